"""The novelty search of the list questions (questions/reach.py `_explore`): everything it shows is
reachable (the brute-force oracle's state space says so), and on an alfred-size task it saves most
of Fast Downward's batches."""

from __future__ import annotations

import pytest

from acptools import Budget, load_task
from acptools.planners import fd
from acptools.questions import reach
from tests.support.data import ROOT
from tests.support.small_tasks import DOMAINS, make

HOUSEHOLD = ROOT / "tests" / "pddl" / "household"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_what_the_novelty_search_shows_is_reachable(domain):
    task, oracle = next(made for made in (make(domain, seed) for seed in range(6)) if made[0].applicable(made[0].init))
    engine = task.questions.engine
    everything = (1 << len(task.atoms)) - 1
    actions = set(range(task.num_actions))
    left_atoms, left_actions = reach._explore(engine, task.init, everything, actions, Budget(None))
    graph = oracle.graph(oracle.init_atoms())
    reachable_atoms = set().union(*graph)
    applicable = {a for out in graph.values() for a, _ in out}
    shown_atoms = set(task.names(everything & ~left_atoms))
    shown_actions = {task.action_names[a] for a in actions - left_actions}
    assert shown_atoms <= reachable_atoms and shown_actions <= applicable, domain
    assert shown_actions, f"{domain}: nothing shown, the test checks nothing"


def test_the_household_list_needs_few_fast_downward_batches(monkeypatch):
    """From the end of each batch's plan the novelty search shows the region the plan opened: the
    first list of an alfred-size task (2,283 atoms, 2,719 actions, ~1,100 actions left after the
    sweep) is complete after ~45 Fast Downward runs (99 with random walks there instead)."""
    task = load_task((HOUSEHOLD / "domain.pddl").read_text(), (HOUSEHOLD / "problem.pddl").read_text())
    runs = []
    real = fd.solve

    def counted(*args, **kwargs):
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(fd, "solve", counted)
    res = task.questions.unreachable_actions(None, Budget(None, cpu=60))
    print(f"\nhousehold: the list took {len(runs)} Fast Downward runs")
    assert res.complete and 0 < len(runs) <= 70, len(runs)


def test_around_a_plan_end_the_search_that_showed_more_per_second_runs(monkeypatch):
    """Each search is tried once, then the one with more items shown per CPU second so far runs,
    and its tally grows by what it showed."""
    task, _ = make("ferry", 1)
    engine = task.questions.engine
    ran = []
    for name in ("_explore", "_walk"):
        real = getattr(reach, name)
        monkeypatch.setattr(reach, name, lambda *a, real=real, name=name, **k: (ran.append(name), real(*a, **k))[1])
    wanted = set(range(task.num_actions))
    tally = {"explore": [0, 0.0], "walk": [0, 0.0]}
    reach._around(engine, task.init, 0, set(wanted), Budget(None), tally, seed=0)
    reach._around(engine, task.init, 0, set(wanted), Budget(None), tally, seed=0)
    assert ran == ["_explore", "_walk"] and tally["explore"][0] > 0 and tally["walk"][1] > 0, (ran, tally)
    tally = {"explore": [1, 1.0], "walk": [50, 1.0]}
    left = reach._around(engine, task.init, 0, set(wanted), Budget(None), tally, seed=0)[1]
    assert (
        ran[-1] == "_walk" and tally["walk"] == [50 + len(wanted - left), tally["walk"][1]] and tally["walk"][1] > 1.0
    )
