"""Grounding: the lifted model (acptools.pddl) made into fluent atoms and ground operators as small ints,
states as int bit sets; only what relaxed exploration reaches is grounded, more on demand.

Stages, bottom up: `bitset` (sets of ints), `names` (lenient atom and action names), `join` and
`exploration` (which bindings to ground), `grounding` (formulas and schemas to operators), `grounded`
(the grounded task), `conditional` (conditional effects compiled away for LM-cut).
"""
