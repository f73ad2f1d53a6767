"""Fast Downward gets one SAS+ variable per atom the operators or goal mention (planners/fd.py
Numbering): fewer variables than atoms where many never change, and the same h* as the
brute-force oracle, with plans that replay, from every state checked."""

from __future__ import annotations

import pytest

from acptools.budget import Budget
from acptools.planners import fd
from tests.support.small_tasks import make, space


@pytest.mark.parametrize("domain, seed", [("doors", 2), ("ferry", 0), ("briefcase", 0)])
def test_numbered_variables_give_the_oracles_h_star(domain, seed):
    task, _ = make(domain, seed)
    _, _, dist = space(domain, seed)
    ops = task.questions.engine.operators
    used = fd.mentioned_atoms(ops)
    sas = fd.write_sas(len(task.atoms), ops, task.init, task.goal)
    assert sas.count("begin_variable") == bin(used | sum(p | n for p, n in task.goal)).count("1")
    for atoms, h in sorted(dist.items(), key=lambda kv: (-kv[1], sorted(kv[0])))[:5]:
        s = task.parse_state(sorted(atoms))
        res = fd.solve(len(task.atoms), ops, s, task.goal, Budget(60))
        plan = [ops[i].action for i in res.plan]
        assert len(plan) == h and task.is_plan(plan, s)


def test_a_domain_with_atoms_no_operator_mentions_gets_fewer_variables():
    task, _ = make("doors", 2)
    ops = task.questions.engine.operators
    used = fd.mentioned_atoms(ops)
    assert used.bit_count() < len(task.atoms)
    sas = fd.write_sas(len(task.atoms), ops, task.init, task.goal)
    assert sas.count("begin_variable") < len(task.atoms)
