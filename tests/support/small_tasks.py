"""Small real tasks for the property tests: a real problem moved by seeded random walks, with the
brute-force oracle's state space of each (computed once per task and shared by the tests)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from acptools import load_task
from tests.support.data import PDDL, ROOT
from tests.support.oracle import Oracle
from tests.support.random_tasks import random_task

# real problems with small state spaces (the oracle enumerates them); ADL ones included, and two with
# derived predicates (one IPC-style, one whose goal is a derived atom)
AXIOM_DOMAINS = ("blocks-derived", "rooms-derived")
DOMAINS = {name: PDDL / name for name in ("briefcase", "doors", "switches") + AXIOM_DOMAINS}
for name in ("ferry", "gripper-strips", "blocksworld-4ops", "grid-visit-all"):
    DOMAINS[name] = ROOT / "acptools" / "examples" / name


@cache
def make(domain: str, seed: int):
    folder = Path(DOMAINS[domain])
    dom_text = (folder / "domain.pddl").read_text()
    prob_text = random_task(dom_text, (folder / "problem.pddl").read_text(), seed)
    return load_task(dom_text, prob_text), Oracle(dom_text, prob_text)


@cache
def space(domain: str, seed: int):
    """(init atoms, reachable graph, h* of every state) from the oracle, computed once per task."""
    task, oracle = make(domain, seed)
    init = oracle.init_atoms()
    graph = oracle.graph(init)
    return init, graph, oracle.distances(init)


SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


SEEDS = st.integers(0, 5)  # few seeds per domain, so the oracle's state spaces are shared across tests
