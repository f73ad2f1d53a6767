"""Obfuscated tasks (PlanBench's "mystery" variant, ActionReasoningBench's obfuscated one): every name a
domain and its problems declare (domain, problem, types, constants, objects, predicates, actions, action
variables) is replaced by a seeded random word, so a model cannot lean on what the names mean.

The renaming is done on the PDDL itself, before anything is generated: the domain and each problem are
parsed, written back as acptools read them (comments, costs and functions dropped: acptools reads plan
length as the cost anyway) and renamed token by token. Questions are then generated from the obfuscated PDDL with generic
phrases (`pred(o1, o2)`), so every answer is proven on the obfuscated task itself. The mapping
(original name -> obfuscated name, by kind) goes into each record, so answers can be mapped back.
"""

from __future__ import annotations

import random
import re

from ..errors import AcpError

# the words of PDDL the written text uses (a declared name must not be one: renaming it would rename them)
WRITTEN = frozenset("define domain problem and or not imply forall exists when either object".split())
# words of PDDL, written or not: an obfuscated name is never one
KEYWORDS = WRITTEN | frozenset(
    "define domain problem and or not imply forall exists when either object number "
    "increase decrease assign minimize maximize total-cost total-time at over start end all "
    "preference sometime always within".split()
)
CONSONANTS = "bcdfghjklmnprstvz"
VOWELS = "aeiou"
SYLLABLES = 3
_TOKEN = re.compile(r"[^\s()]+")
KINDS = ("domain", "types", "constants", "predicates", "actions", "variables", "problem", "objects")


def _declared(task) -> dict[str, list[str]]:
    """The names a task declares, by kind, in a fixed order (the written text is lower-case)."""
    d, p = task.domain, task.problem
    variables = {v for a in d.actions.values() for v, _ in a.params} | {
        v for pr in d.predicates.values() for v, _ in pr.params
    }
    variables |= set(re.findall(r"\?[^\s()]+", _domain_text(task) + task.problem_for(task.init)))
    names = {
        "domain": [d.name],
        "types": [t for t in d.supertypes if t != "object"],
        "constants": d.constants,
        "predicates": d.predicates,
        "actions": d.actions,
        "variables": variables,
        "problem": [p.name],
        "objects": p.objects,
    }
    return {kind: sorted(str(n) for n in found) for kind, found in names.items()}  # plain str: records pickle


def _domain_text(task) -> str:
    """The domain as acptools read it, written back (no comments, no costs)."""
    try:  # empty sections are valid PDDL, but some readers (unified-planning's) refuse them
        return re.sub(r"\n? *\(:(types|constants) *\)", "", task.written_domain_text)
    except ValueError as e:
        raise AcpError(f"cannot obfuscate this domain: {e}", "--obfuscate") from None


def _fresh(rng: random.Random, taken: set[str]) -> str:
    """A pronounceable random word not in `taken` (keywords, original names, names already given)."""
    while True:
        word = "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(SYLLABLES))
        if word not in taken:
            taken.add(word)
            return word


def mappings(tasks, seed: int) -> list[dict]:
    """Per task (the problems of one domain), its mapping by kind: {kind: {original: obfuscated}}.
    A name gets the same obfuscated word wherever it occurs (in every problem and every kind)."""
    declared = [_declared(t) for t in tasks]
    every = {n for dec in declared for names in dec.values() for n in names}
    for name in sorted(every):
        if name in WRITTEN:
            raise AcpError(
                f"cannot obfuscate the name {name!r}: it is a PDDL keyword",
                "--obfuscate",
                "rename it in the PDDL first",
            )
    rng = random.Random(f"{seed}/obfuscate")
    taken = set(KEYWORDS) | {n.lstrip("?") for n in every}
    words: dict[str, str] = {}
    for dec in declared:
        for kind in KINDS:
            for name in dec[kind]:
                if name not in words:
                    new = _fresh(rng, taken)
                    words[name] = "?" + new if name.startswith("?") else new
    return [{kind: {n: words[n] for n in dec[kind]} for kind in KINDS} for dec in declared]


def rename(text: str, mapping: dict) -> str:
    """PDDL text (as the writer writes it) with every declared name replaced."""
    words = {n: new for names in mapping.values() for n, new in names.items()}
    return _TOKEN.sub(lambda m: words.get(m.group(), m.group()), text)


def obfuscated_texts(tasks, seed: int) -> tuple[str, list[str], list[dict]]:
    """The obfuscated domain text, each problem's obfuscated text, and each problem's record field
    (`obfuscation`: the seed and the mapping by kind)."""
    maps = mappings(tasks, seed)
    domain_text = rename(_domain_text(tasks[0]), maps[0])
    problems = [rename(t.problem_for(t.init), m) for t, m in zip(tasks, maps)]
    return domain_text, problems, [{"seed": seed, **m} for m in maps]


def reverse(mapping: dict) -> dict[str, str]:
    """The obfuscated name -> original name, over every kind (to map an answer back)."""
    return {new: n for kind in KINDS for n, new in mapping.get(kind, {}).items()}


def deobfuscate(text: str, mapping: dict) -> str:
    """A text of obfuscated PDDL names (a record's PDDL, an action, an answer) with the original names back."""
    back = reverse(mapping)
    return re.sub(r"(?<![\w?-])\??[a-z]+(?![\w-])", lambda m: back.get(m.group(), m.group()), text)
