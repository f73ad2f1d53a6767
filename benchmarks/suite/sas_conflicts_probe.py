"""Fast Downward on the conditional-effect tasks our SAS+ encoding used to refuse (one atom added
and deleted in two conditional effects of one operator). The encoding now follows Fast Downward's
translator (`acptools.planners.fd._effects`: several effects may set one variable; a delete meeting an add
of the same atom under another condition gets that condition negated, one effect per literal; add
wins, as in GroundedTask.apply_op). Compares its h* and time with the library's h_star on
random-walk states, and checks every plan.

    PYTHONPATH=. python benchmarks/suite/sas_conflicts_probe.py [DOMAIN SIZE ...]
"""

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from acptools import load_task
from acptools.planners import fd

args = sys.argv[1:] or ["briefcaseworld", "small", "rubiks-cube", "small"]
for dom, size in zip(args[::2], args[1::2]):
    d = Path(__file__).resolve().parent / dom
    task = load_task(d / "domain.pddl", d / f"{size}.pddl")
    rng = random.Random(1)
    for length in (3, 6, 9):
        s = task.init
        for _ in range(length):
            s = task.apply_op(rng.choice(task.applicable_ops(s)), s)
        t0 = time.perf_counter()
        res = fd.solve(len(task.atoms), task.operators, s, task.goal, 20)
        t_fd = time.perf_counter() - t0
        t0 = time.perf_counter()
        h = task.questions.h_star(s, budget=20)
        t_lib = time.perf_counter() - t0
        valid = res.plan is not None and task.questions.is_plan(
            [task.action_names[task.operators[i].action] for i in res.plan], s
        )
        print(
            f"{dom}/{size} walk{length}: Fast Downward h={None if res.plan is None else len(res.plan)} in "
            f"{t_fd:.2f} s (plan valid: {valid}) {res.detail[:45]}; library h_star {h.h_star} ({h.how}) in {t_lib:.2f} s"
        )
