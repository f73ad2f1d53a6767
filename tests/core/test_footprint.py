"""A task's memory is known from its lifted model before grounding: the estimate bounds what loading
takes, a task over the limit is refused at once with the estimate and the limit, and no real task is
refused by a loose bound."""

from __future__ import annotations

import pytest

from acptools import AcpError, examples, load_task
from acptools.ground.footprint import Footprint
from tests.support.data import SUITE, pddl_texts, records
from tests.support.effort import cpu_effort
from tests.support.server_procs import wide_task

GB = 1_000_000_000


@pytest.mark.parametrize("objects, flat", [(10, False), (22, False), (10, True), (22, True)])
def test_a_huge_task_is_refused_before_grounding_with_the_estimate_and_the_limit(objects: int, flat: bool) -> None:
    domain, problem = wide_task(objects, flat=flat)
    assert len(domain) < 300
    with cpu_effort() as spent, pytest.raises(AcpError) as refused:
        load_task(domain, problem, max_bytes=2 * GB, max_actions=500_000)
    message = str(refused.value)
    assert "refused before grounding" in message, message
    if flat:  # few atoms: the count of ground actions binds first
        assert refused.value.where == "ground actions" and "500,000" in message
    else:
        assert refused.value.where == "memory" and "2,000 MB" in message and f"{objects**6:,}" in message
    assert spent.seconds < 2.0, spent


def test_the_estimate_bounds_the_task() -> None:
    """Atoms are counted exactly (type-correct ones) and the ground actions bounded from above."""
    texts = [examples.texts(name) for name in examples.names()] + [pddl_texts(n) for n in ("join", "doors")]
    texts += [(r["PDDL_domain"], r["PDDL_problem"]) for r in records("dev", "nexta")[:5]]
    for domain, problem in texts:
        task = load_task(domain, problem)
        found = task.footprint
        assert found.atoms <= len(task.atoms) and found.actions >= task.num_possible_actions
        assert found.bytes >= task.approx_bytes - len(domain) - len(problem)


def test_a_loose_bound_refuses_no_task_that_fits() -> None:
    """Folding (IPC 2023): the bound is 14 times the actions its static facts allow. Under a limit the
    bound exceeds but the task fits, the actions are counted and the task loads."""
    domain, problem = ((SUITE / "folding" / name).read_text() for name in ("domain.pddl", "small.pddl"))
    task = load_task(domain, problem)
    possible = task.num_possible_actions
    fits = Footprint(task.footprint.atoms, 2 * possible).bytes
    assert task.footprint.bytes > 4 * fits and task.footprint.actions > 4 * possible
    loaded = load_task(domain, problem, max_bytes=fits, max_actions=2 * possible)
    assert loaded.footprint.counted and possible <= loaded.footprint.actions <= 2 * possible
    assert loaded.num_possible_actions == possible
    with pytest.raises(AcpError, match="refused before grounding"):
        load_task(domain, problem, max_bytes=fits // 4)


def test_without_limits_nothing_is_refused() -> None:
    domain, problem = wide_task(3)
    task = load_task(domain, problem)
    assert task.num_possible_actions == 3**6 == task.footprint.actions
