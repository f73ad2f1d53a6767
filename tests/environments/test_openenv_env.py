"""The OpenEnv environment, played by OpenEnv's own clients against real `acptools-openenv` processes
over HTTP and WebSocket: an optimal policy driven by the independent unified-planning oracle reaches
the goal with the documented reward in h* steps; bad actions get their verdicts; a dead end, the
step limit and the tool-call limit end episodes; sessions do not see each other's state and are
bounded; tools run under the profile; the typed client and OpenEnv's runtime validator agree."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("openenv.core", reason="the openenv extra (openenv-core) is not installed")

from acptools_openenv import AcptoolsAction, AcptoolsEnv, AcptoolsObservation, AcptoolsState  # noqa: E402
from acptools_server.config import TOOL_NAMES, hidden_by_profile  # noqa: E402
from openenv.core import GenericEnvClient  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from acptools import examples  # noqa: E402
from tests.support.data import PDDL, ROOT, records  # noqa: E402
from tests.support.load import slack  # noqa: E402
from tests.support.openenv_server import OpenEnvServer  # noqa: E402
from tests.support.oracle import Oracle  # noqa: E402
from tests.support.oracle import solved_nexta as solved  # noqa: E402

SMALL = (0, 4, 12)  # dev nexta records whose state spaces the oracle enumerates in seconds (ferry, blocksworld)
LIMITED = ("--max-steps", "3", "--max-tool-calls", "2", "--tool-profile", "policy", "--max-sessions", "2")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Default settings: reward progress, penalties 1, no tool use."""
    with OpenEnvServer(tmp_path_factory.mktemp("openenv")) as s:
        yield s


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """3 attempts, 2 tool calls per episode under the policy profile, 2 sessions at once."""
    with OpenEnvServer(tmp_path_factory.mktemp("openenv-limited"), *LIMITED) as s:
        yield s


def client(server: OpenEnvServer):
    return GenericEnvClient(base_url=server.url, message_timeout_s=slack(120)).sync()


def nexta(k: int) -> dict:
    return records("dev", "nexta")[k]


def optimal_action(oracle: Oracle, dist: dict, state) -> str:
    """The oracle's first action (by name) that lowers h*."""
    return next(a for a in oracle.applicable(state) if dist.get(oracle.successor(state, a)) == dist[state] - 1)


@pytest.mark.parametrize("k", SMALL)
def test_an_optimal_policy_reaches_the_goal_in_h_star_steps_returning_h_star(server, k):
    """What a client that knows nothing of acptools sends: reset(domain=PDDL, problem=PDDL), step({"action"})."""
    oracle, dist = solved(k)
    r, state = nexta(k), oracle.init_atoms()
    invariant = frozenset.intersection(*dist)
    with client(server) as env:
        result = env.reset(domain=r["PDDL_domain"], problem=r["PDDL_problem"])
        assert result.observation["h_star_after"] == dist[state] == int(r["answer"]["opt"]) and not result.done
        total, steps = 0.0, 0
        while not result.done:
            action = optimal_action(oracle, dist, state)
            result = env.step({"action": action})
            state, steps, total = oracle.successor(state, action), steps + 1, total + result.reward
            obs = result.observation
            assert obs["verdict"] == "applied" and obs["optimal"] is True and obs["regret"] == 0, obs
            assert obs["h_star_after"] == dist[state] and obs["h_star_before"] == dist[state] + 1
            assert set(obs["state"]) <= state and state - set(obs["state"]) <= invariant
            assert set(obs["applicable_actions"]) == set(oracle.applicable(state))
            assert steps <= dist[oracle.init_atoms()]
    assert (total, steps) == (float(dist[oracle.init_atoms()]), dist[oracle.init_atoms()])
    assert obs["done_reason"] == "goal" and obs["solved"] and oracle.is_goal(state)
    assert obs["summary"]["plan_length"] == steps and obs["summary"]["optimal_steps"] == steps


def test_bad_actions_get_their_verdicts_and_the_invalid_penalty(server):
    r = nexta(0)
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    init = oracle.init_atoms()
    here = set(oracle.applicable(init))
    later = next(a for b in sorted(here) for a in oracle.applicable(oracle.successor(init, b)) if a not in here)
    with client(server) as env:
        start = env.reset(domain=r["PDDL_domain"], problem=r["PDDL_problem"]).observation
        cases = [
            (later, "inapplicable", "unsatisfied preconditions"),
            ("I would rather not move.", "unparsed", ""),
            ("(teleport c0 l1)", "hallucinated", "teleport"),
            ("(board c99 l0)", "hallucinated", "c99"),
        ]
        for text, verdict, why in cases:
            result = env.step({"action": text})
            obs = result.observation
            assert obs["verdict"] == verdict and obs["reason"] and why in obs["reason"], (text, obs)
            assert result.reward == -1.0 and not result.done and obs["regret"] is None
            assert (
                obs["state"] == start["state"] and obs["h_star_after"] == obs["h_star_before"] == start["h_star_after"]
            )
        assert env.state()["steps"] == 4


def test_a_step_into_a_dead_end_ends_the_episode_with_its_penalty(server):
    """The test 'doors' task: a slammed door stays shut for good (tests/pddl/doors)."""
    dom, prob = (PDDL / "doors" / "domain.pddl").read_text(), (PDDL / "doors" / "problem.pddl").read_text()
    oracle = Oracle(dom, prob)
    path = oracle.path_to_a_dead_end()
    with client(server) as env:
        env.reset(domain=dom, problem=prob)
        for action in path[:-1]:
            result = env.step({"action": action})
            assert not result.done and result.observation["h_star_after"] is not None
        result = env.step({"action": path[-1]})
        obs = result.observation
        assert oracle.distances(oracle.run(oracle.init_atoms(), path)) == {}  # the oracle: no way to the goal
        assert obs["verdict"] == "applied" and obs["dead_end"] and obs["h_star_after"] is None and obs["h_star_known"]
        assert obs["regret"] is None and obs["optimal"] is False and obs["proof"]["h_star_how"] != "unknown"
        assert result.done and obs["done_reason"] == "dead_end" and result.reward == -1.0
        with pytest.raises(RuntimeError, match=r"the episode is over \(dead_end\)"):
            env.step({"action": path[0]})


def test_the_step_limit_ends_an_episode(limited):
    with client(limited) as env:
        env.reset(example="ferry")
        for n in (1, 2, 3):
            result = env.step({"action": "(sail l0 l0)"})
            assert result.observation["verdict"] == "inapplicable" and result.reward == -1.0
            assert result.done is (n == 3)
        assert result.observation["done_reason"] == "step_limit" and result.observation["summary"]["steps"] == 3
        with pytest.raises(RuntimeError, match="the episode is over"):
            env.step({"action": "(sail l0 l1)"})
        assert env.reset(example="ferry").done is False  # a new episode on the same session


def test_two_sessions_do_not_see_each_others_state(server):
    """Two WebSocket sessions on two tasks, steps interleaved: each follows its own oracle."""
    players = [(k, *solved(k)) for k in (0, 12)]
    clients = [client(server) for _ in players]
    try:
        states = []
        for env, (k, oracle, dist) in zip(clients, players):
            env.connect()
            env.reset(domain=nexta(k)["PDDL_domain"], problem=nexta(k)["PDDL_problem"])
            states.append(oracle.init_atoms())
        for _ in range(3):
            for n, (env, (k, oracle, dist)) in enumerate(zip(clients, players)):
                action = optimal_action(oracle, dist, states[n])
                obs = env.step({"action": action}).observation
                states[n] = oracle.successor(states[n], action)
                assert (
                    obs["verdict"] == "applied"
                    and set(obs["state"]) <= states[n]
                    and obs["h_star_after"] == dist[states[n]]
                )
        assert clients[0].state()["task_id"] != clients[1].state()["task_id"]
        assert [c.state()["steps"] for c in clients] == [3, 3]
    finally:
        for env in clients:
            env.close()


def refusal(server: OpenEnvServer) -> dict:
    """What the server says first to one more WebSocket session (it speaks first only to refuse one)."""
    with connect(server.url.replace("http://", "ws://") + "/ws", open_timeout=slack(30)) as ws:
        return json.loads(ws.recv(timeout=slack(30)))


def test_sessions_beyond_the_limit_are_refused_until_one_closes(limited):
    with client(limited) as first, client(limited) as second:
        first.reset(example="ferry")
        second.reset(example="grid")
        said = refusal(limited)
        assert said["type"] == "error" and said["data"]["code"] == "CAPACITY_REACHED", said
        assert first.step({"action": "(sail l0 l1)"}).observation["verdict"] == "applied"  # the others go on
    deadline = time.monotonic() + slack(30)
    while True:  # the server frees the closed sessions' slots once it has seen them go
        try:
            with client(limited) as env:
                assert env.reset(example="ferry").observation["start"] == "example:ferry"
            break
        except RuntimeError:
            assert time.monotonic() < deadline, "no slot freed"
            time.sleep(0.2)


def test_tools_run_under_the_profile_and_one_call_past_the_limit_ends_the_episode(limited):
    with client(limited) as env:
        listed = env.step({"type": "list_tools"}).observation["tools"]  # before any reset, as OpenEnv allows
        assert {t["name"] for t in listed} == set(TOOL_NAMES) - hidden_by_profile("policy")
        obs = env.reset(example="ferry").observation
        obs = env.step({"action": "(sail l0 l1)"}).observation
        task, state = obs["task_id"], obs["state"]
        answer = env.step({"tool_name": "list_applicable", "arguments": {"task_id": task, "state": state}}).observation
        assert answer["tool_error"] is None and answer["tool_result"]["actions"] == obs["applicable_actions"]
        assert answer["state"] == state and answer["tool_calls"] == 1 and not answer.get("done_reason")
        hidden = env.step({"type": "call_tool", "tool_name": "plan", "arguments": {"task_id": task}}).observation
        assert hidden["tool_result"] is None and "plan" in hidden["tool_error"] and hidden["tool_calls"] == 2
        over = env.step({"tool_name": "list_applicable", "arguments": {"task_id": task}})
        assert over.done and over.observation["done_reason"] == "tool_limit" and over.observation["tool_result"] is None
        assert "more than 2 tool calls" in over.observation["tool_error"]


def test_tool_calls_are_refused_where_tool_use_is_off(server):
    with client(server) as env:
        env.reset(example="ferry")
        obs = env.step({"tool_name": "list_applicable", "arguments": {"task_id": "example:ferry"}}).observation
        assert "tool use is off" in obs["tool_error"] and obs["tool_result"] is None and obs["tool_calls"] == 0
        assert env.step({"type": "list_tools"}).observation["tools"] is None


def test_a_reset_names_its_start_and_bad_requests_leave_the_session_serving(server):
    r = nexta(4)
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    with client(server) as env:
        by_record = env.reset(record=json.dumps(r)).observation
        by_name = env.reset(data="acpbench-hard:dev:nexta", index=4).observation
        assert by_record["state"] == by_name["state"] and set(by_name["state"]) <= oracle.init_atoms()
        family = [env.reset(family="hard:nexta", domain="ferry", seed=7).observation for _ in range(2)]
        assert family[0]["start"] == family[1]["start"] and family[0]["state"] == family[1]["state"]
        with pytest.raises(RuntimeError, match="not PDDL text"):
            env.reset(domain="/etc/hostname", problem="/etc/hostname")
        with pytest.raises(RuntimeError, match="line"):
            env.reset(
                domain="(define (domain d) (:action a :parameters (?x) :precondition (and (p ?x))",
                problem="(define (problem p) (:domain d))",
            )
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step({"move": "(sail l0 l1)"})
        assert env.reset(example="ferry").observation["start"] == "example:ferry"


def test_the_typed_client_speaks_the_models(server):
    with AcptoolsEnv(base_url=server.url, message_timeout_s=slack(120)).sync() as env:
        result = env.reset(example="ferry", episode_id="typed-1")
        assert isinstance(result.observation, AcptoolsObservation) and result.observation.h_star_after == 4
        result = env.step(AcptoolsAction(action="(sail l0 l1)"))
        assert result.observation.optimal and result.reward == 1.0 and result.observation.proof["h_star_how"]
        state = env.state()
        assert isinstance(state, AcptoolsState) and state.episode_id == "typed-1" and state.step_count == 1


def test_openenv_validates_the_running_server_and_http_resets_work(server):
    report = subprocess.run(
        [sys.executable, "-m", "openenv.cli", "validate", "--url", server.url, "--json"],
        capture_output=True,
        text=True,
        timeout=slack(120),
    )
    found = json.loads(report.stdout)
    assert found["passed"], found
    domain, problem = examples.texts("ferry")
    request = urllib.request.Request(
        f"{server.url}/reset",
        data=json.dumps({"domain": domain, "problem": problem}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=slack(60)) as reply:
        body = json.loads(reply.read())
    assert body["observation"]["h_star_after"] == 4 and body["done"] is False
    schema = json.loads(urllib.request.urlopen(f"{server.url}/schema", timeout=slack(30)).read())
    assert {"action", "type", "tool_name"} <= set(schema["action"]["properties"])


def test_the_scripted_policy_example_plays_graded_episodes(limited):
    """examples/openenv_policy.py against a real server (3 attempts per episode): every h* it prints is the
    oracle's along the actions it played, every regret h*(after) + 1 - h*(before)."""
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "openenv_policy.py"),
            "--url",
            limited.url,
            "--episodes",
            "2",
            "--seed",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=slack(120),
    )
    assert out.returncode == 0, out.stderr
    oracle = Oracle(*examples.texts("ferry"))
    dist = oracle.distances(oracle.init_atoms())
    episodes = out.stdout.split("start: ")[1:]
    assert len(episodes) == 2 and "mean return over 2 episodes" in out.stdout
    for text in episodes:
        state, total = oracle.init_atoms(), 0.0
        steps = re.findall(r"^  (\(.*?\)) +(\w+) +regret (\S+) +h\* (\S+) +reward ([-+.\d]+)$", text, re.M)
        assert len(steps) == 3 and steps[1][1] == "hallucinated"
        for action, verdict, regret, h, reward in steps:
            before = dist[state]
            if verdict == "applied":
                state = oracle.successor(state, action)
                assert regret == str(dist[state] + 1 - before)
            assert h == str(dist[state])
            total += float(reward)
        assert f"return {total:+.1f} after 3 steps: step_limit" in text
