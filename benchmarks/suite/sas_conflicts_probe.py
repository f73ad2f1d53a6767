"""Would Fast Downward solve the conditional-effect tasks our SAS+ encoding refuses? Encodes the
grounded task with an FD-translator-style operator writer (several effects may touch one variable;
a delete meeting an add of the same atom under another condition gets that condition negated, one
effect per literal; add wins, as in Task.apply_op) by swapping `fd._sas_operator` from outside, and
compares with the library's h_star on random-walk states.

    PYTHONPATH=. python benchmarks/suite/sas_conflicts_probe.py [DOMAIN SIZE ...]
"""
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from acptools import fd, load_task  # noqa: E402
from acptools.task import bits  # noqa: E402


def sas_operator(name, op, started=None, gated=False):
    pre_val = {a: 0 for a in bits(op.pre)}
    pre_val.update({a: 1 for a in bits(op.neg)})
    if started is not None:
        raise fd.Unsupported("the probe does not gate first actions")
    adds = [((), a) for a in bits(op.add)]
    dels = [((), a) for a in bits(op.dele & ~op.add)]
    for cp, cn, ca, cd in op.conds:
        cond = tuple([(a, 0) for a in bits(cp)] + [(a, 1) for a in bits(cn)])
        adds += [(cond, a) for a in bits(ca)]
        dels += [(cond, a) for a in bits(cd & ~ca & ~op.add)]
    added = {}
    for cond, a in adds:
        added.setdefault(a, []).append(cond)
    effects = [(cond, a, 0) for cond, a in adds]
    for cond, a in dels:
        conds = [cond]
        for acond in added.get(a, []):  # the delete fires only when this add's condition fails
            if not acond:
                conds = []
                break
            conds = [c + ((v, 1 - x),) for c in conds for v, x in acond if (v, x) not in c]
        effects += [(c, a, 1) for c in conds if not any((v, 1 - x) in c for v, x in c)]
    if not effects:
        return None
    affected = {v for _, v, _ in effects}
    prevail = [(v, x) for v, x in pre_val.items() if v not in affected]
    lines = ["begin_operator", name, str(len(prevail))] + [f"{v} {x}" for v, x in prevail]
    lines.append(str(len(effects)))
    for cond, v, post in effects:
        lines.append(" ".join([str(len(cond))] + [f"{cv} {cx}" for cv, cx in cond] +
                              [str(v), str(pre_val.get(v, -1)), str(post)]))
    lines += ["1", "end_operator"]
    return "\n".join(lines)


args = sys.argv[1:] or ["briefcaseworld", "small", "rubiks-cube", "small"]
for dom, size in zip(args[::2], args[1::2]):
    d = Path(__file__).resolve().parent / dom
    task = load_task(d / "domain.pddl", d / f"{size}.pddl")
    rng = random.Random(1)
    for length in (3, 6, 9):
        s = task.init
        for _ in range(length):
            s = task.apply_op(rng.choice(task.applicable_ops(s)), s)
        orig = fd._sas_operator
        before = fd.solve(len(task.atoms), task.operators, s, task.goal, 20)
        fd._sas_operator, fd._op_text_cache = sas_operator, {}
        t0 = time.perf_counter()
        after = fd.solve(len(task.atoms), task.operators, s, task.goal, 20)
        t_after = time.perf_counter() - t0
        fd._sas_operator, fd._op_text_cache = orig, {}
        t0 = time.perf_counter()
        h = task.questions.h_star(s, budget=20)
        t_lib = time.perf_counter() - t0
        valid = after.plan is not None and task.questions.is_plan(
            [task.action_names[task.operators[i].action] for i in after.plan], s)
        print(f"{dom}/{size} walk{length}: today's encoding: {before.detail[:45] or 'accepted'}; FD-style: "
              f"h={None if after.plan is None else len(after.plan)} in {t_after:.2f} s (plan valid: {valid}); "
              f"library h_star {h.cost} ({h.how}) in {t_lib:.2f} s")
