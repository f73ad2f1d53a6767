"""The Gymnasium environment: gymnasium's own checker, an optimal policy (driven by the independent
unified-planning oracle) on bundled ACPBench Hard nexta states, and the verdicts of bad actions."""

from __future__ import annotations

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the rl extra (gymnasium) is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from acptools import AcpError  # noqa: E402
from acptools.environments import gymnasium_env  # noqa: E402
from acptools.environments.gymnasium_env import ENV_ID, PlanningEnv  # noqa: E402
from tests.support.data import PDDL, records  # noqa: E402
from tests.support.oracle import Oracle  # noqa: E402
from tests.support.oracle import solved_nexta as solved  # noqa: E402

# nexta records whose state spaces the brute-force oracle enumerates in seconds (ferry, blocksworld)
SMALL = (0, 4, 12)


def nexta(k: int) -> dict:
    return records("dev", "nexta")[k]


def test_check_env_passes_on_the_registered_env():
    env = gymnasium.make(ENV_ID, source="ferry", max_steps=5)
    check_env(env.unwrapped)
    assert isinstance(env.unwrapped, PlanningEnv)


def test_check_env_passes_over_several_tasks_and_without_the_action_list():
    check_env(PlanningEnv(source=[nexta(k) for k in SMALL], show_actions=False, max_steps=3))


def test_seeded_reset_is_deterministic_and_covers_the_source():
    env = PlanningEnv(source=[nexta(k) for k in SMALL])
    picks = [env.reset(seed=s)[1]["index"] for s in range(30)]
    assert picks == [env.reset(seed=s)[1]["index"] for s in range(30)]
    assert set(picks) == set(range(len(SMALL)))


def optimal_run(env: PlanningEnv, k: int, index: int) -> tuple[float, int]:
    """Play the oracle's optimal policy (first action, by name, that lowers the oracle's h*)."""
    oracle, dist = solved(k)
    obs, info = env.reset(options={"index": index})
    state = oracle.init_atoms()
    assert info["h_star"] == dist[state] == int(nexta(k)["answer"]["opt"])
    invariant = frozenset.intersection(*dist)
    total, length, terminated, truncated = 0.0, 0, False, False
    while not (terminated or truncated):
        action = next(a for a in oracle.applicable(state) if dist.get(oracle.successor(state, a)) == dist[state] - 1)
        obs, reward, terminated, truncated, info = env.step(action)
        state = oracle.successor(state, action)
        assert info["verdict"] == "applied" and info["optimal"] and info["regret"] == 0
        assert info["h_star"] == dist[state]
        shown = set(obs.split("\n")[0].removeprefix("State: ").replace(") (", ")|(").split("|"))
        assert shown <= state and state - shown <= invariant  # only the unchanging (static) atoms are left out
        total, length = total + reward, length + 1
    assert terminated and not truncated and oracle.is_goal(state) and info["solved"]
    return total, length


@pytest.mark.parametrize("k", SMALL)
def test_an_optimal_policy_returns_h_star_in_h_star_steps(k):
    oracle, dist = solved(k)
    h = dist[oracle.init_atoms()]
    for reward, expected in (("progress", h), ("cost", -h), ("regret", 0)):
        env = PlanningEnv(source=[nexta(k)], reward=reward, max_steps=h + 5)
        total, length = optimal_run(env, k, 0)
        assert (total, length) == (expected, h), reward


def test_a_goal_bonus_is_added_once_on_reaching_the_goal():
    total, length = optimal_run(PlanningEnv(source=[nexta(4)], reward="regret", goal_bonus=3.0), 4, 0)
    assert total == 3.0 and length == int(nexta(4)["answer"]["opt"])


def test_bad_actions_get_their_verdicts_and_leave_the_state():
    r = nexta(0)
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    init = oracle.init_atoms()
    here = set(oracle.applicable(init))
    # a real ground action that is applicable one step later but not now
    later = next(a for b in sorted(here) for a in oracle.applicable(oracle.successor(init, b)) if a not in here)
    env = PlanningEnv(source=[r], invalid_penalty=0.5, max_steps=4)
    obs0, info0 = env.reset(seed=0)
    cases = [
        (later, "inapplicable"),
        ("I would rather not move.", "unparsed"),
        ("(teleport c0 l1)", "hallucinated"),
        ("(board c99 l0)", "hallucinated"),
    ]
    for n, (text, verdict) in enumerate(cases, 1):
        obs, reward, terminated, truncated, info = env.step(text)
        assert info["verdict"] == verdict and info["reason"], (text, info)
        assert reward == -0.5 and info["regret"] is None and info["h_star"] == info0["h_star"]
        assert obs.split("\n")[:3] == obs0.split("\n")[:3]  # state, goal, actions unchanged
        assert terminated is False and truncated is (n == 4)


def test_cost_reward_charges_every_attempt():
    env = PlanningEnv(source="ferry", reward="cost")
    env.reset(seed=0)
    assert env.step("nothing")[1] == -1.0


def test_a_dead_end_terminates_with_its_penalty():
    """The test 'doors' task: a slammed door stays shut for good (tests/pddl/doors)."""
    dom, prob = (PDDL / "doors" / "domain.pddl").read_text(), (PDDL / "doors" / "problem.pddl").read_text()
    path = Oracle(dom, prob).path_to_a_dead_end()
    env = PlanningEnv(source=(dom, [prob]), dead_end_penalty=7.0)
    env.reset(seed=0)
    for action in path[:-1]:
        assert env.step(action)[4]["dead_end"] is False
    obs, reward, terminated, truncated, info = env.step(path[-1])
    assert info["verdict"] == "applied" and info["dead_end"] and info["h_star"] is None and info["known"]
    assert info["optimal"] is False and info["regret"] is None and info["h_star_before"] is not None
    assert reward == -7.0 and terminated and not truncated
    with pytest.raises(AcpError, match=r"the episode is over \(dead_end\)"):
        env.step(path[0])


def test_bad_configuration_is_a_clear_error():
    with pytest.raises(AcpError, match="unknown reward"):
        PlanningEnv(source="ferry", reward="joy")
    with pytest.raises(AcpError, match="no bundled example, folder, file or PDDL text"):
        PlanningEnv(source="ferrry")
    env = PlanningEnv(source="ferry")
    with pytest.raises(AcpError, match="before reset"):
        env.step("(sail l0 l1)")
    with pytest.raises(AcpError, match="no start"):
        env.reset(options={"index": 3})


def test_importing_acptools_imports_no_rl_package():
    import subprocess
    import sys

    code = (
        "import sys, acptools, acptools.environments, acptools.environments.task_sources; "
        "print(sorted(m for m in ('gymnasium', 'reasoning_gym', 'verifiers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert gymnasium_env.ENV_ID in gymnasium.registry


@pytest.mark.parametrize("split", ["dev", pytest.param("test", marks=pytest.mark.slow)])
def test_h_star_and_first_step_grades_match_the_stored_nexta_answers(split):
    """On every bundled nexta state: the env's h* at reset is the record's stored h*, each stored
    optimal action ('yes') is applied with regret 0 and each stored other action ('no') is not optimal."""
    recs = records(split, "nexta")
    env = PlanningEnv(source=recs, budget=60.0)
    for k, r in enumerate(recs):
        obs, info = env.reset(options={"index": k})
        assert info["h_star"] == int(r["answer"]["opt"]), r["id"]
        for action in r["answer"]["yes"] + r["answer"]["no"]:
            env.reset(options={"index": k})
            info = env.step(action)[4]
            if action in r["answer"]["yes"]:
                assert info["verdict"] == "applied" and info["regret"] == 0, (r["id"], action, info)
            else:
                assert info["optimal"] is not True, (r["id"], action, info)
