"""What a task holds goes with it (issue 39): Fast Downward's texts, the engines and their caches are
owned by the task, so a forgotten task is freed at once and nothing module-level keeps its operators;
and `approx_bytes`, what the server budgets with, bounds what the task and its engines take."""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import pytest

from acptools import Budget, load_task, truth
from acptools.planners import fd
from tests.support.data import SUITE
from tests.support.server_procs import FERRY_DOMAIN, ferry, wait_until


def _asked(task) -> None:
    """What the server's callers ask: both go to Fast Downward on a task this size."""
    task.questions.unreachable_actions(task.init, budget=Budget(1))
    task.questions.optimal_next(task.init, budget=Budget(1))


def test_a_forgotten_task_frees_what_it_and_its_engines_held() -> None:
    gc.collect()
    tracemalloc.start()
    try:
        held = []
        for seed in range(4):
            task = load_task(FERRY_DOMAIN, ferry(60, 20, seed=seed)[0])
            _asked(task)
            assert fd.sas_cache(task).texts, "Fast Downward was asked: the task's own cache holds its texts"
            gone = weakref.ref(task)
            truth.forget_task(task)
            del task
            # a race's losing searches may still be stopping in their threads, holding the task a moment
            assert wait_until(lambda: gc.collect() is not None and gone() is None, 10), (
                "something outside the task still holds it"
            )
            held.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    print("\ntraced after each forgotten task: " + ", ".join(f"{b / 1e6:.1f} MB" for b in held))
    assert held[-1] - held[0] < 2_000_000, held
    assert not any(
        isinstance(v, dict) and v and isinstance(next(iter(v.values())), tuple)
        for k, v in vars(fd).items()
        if k.startswith("_")
    ), "a module-level cache of operators"


TASKS = {
    "ferry 80x20": (FERRY_DOMAIN, ferry(80, 20)[0]),
    "briefcaseworld (conditional effects)": tuple(
        (SUITE / "briefcaseworld" / f).read_text() for f in ("domain.pddl", "medium.pddl")
    ),
}


@pytest.mark.parametrize("name", TASKS)
def test_approx_bytes_bounds_the_task_and_its_engines(name: str) -> None:
    domain, problem = TASKS[name]
    gc.collect()
    tracemalloc.start()
    try:
        task = load_task(domain, problem)
        _asked(task)
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    print(f"\n{name}: traced {traced / 1e6:.1f} MB, approx_bytes {task.approx_bytes / 1e6:.1f} MB")
    assert traced <= task.approx_bytes
