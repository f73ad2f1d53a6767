"""Generated record sets shared by the generation tests: every bundled and ADL test domain, each form,
generated once per session."""

from __future__ import annotations

from functools import cache

from acptools import examples
from acptools.generate import Options, generate
from tests.support.data import pddl_texts

BUNDLED = tuple(examples.names())
ADL = ("briefcase", "doors", "join", "switches")
FORMS = ("hard", "bool", "mcq", "arb")
N = 2
SEED = 11


def texts(name: str) -> tuple[str, str]:
    return examples.texts(name) if name in BUNDLED else pddl_texts(name)


@cache
def generated(name: str, form: str):
    d, p = texts(name)
    return generate(d, [p], Options(form=form, n=N, seed=SEED, budget=20.0))
