"""The question forms acptools generates and grades besides ACPBench Hard's eight tasks, by group.

A record's `group` says what it asks. ACPBench Hard groups (`applicable_actions_gen`, ...) map to
the eight task kinds (`acptools.dataset.GROUP_TO_TASK`); the groups here map to the kinds of the
other forms:

* ACPBench (v1) yes/no and 4-choice questions of its seven tasks: `applicable_actions_bool` ->
  `app_bool`, `landmarks_mcq` -> `land_mcq`, ... (ACPBench's own group names; `_mc` is read as
  `_mcq`, and lm-eval's task names `acp_app_bool` are read too);
* ActionReasoningBench families after a sequence of actions: `arb_fluent_tracking`, ...;
* a model-written plan: `plan_generation` -> `plan`.

This module imports nothing, so the lowest layers (the answer reader, the dataset loader) can ask it
which kind a group names.
"""

from __future__ import annotations

FORMS = ("hard", "bool", "mcq", "arb")

# ACPBench's seven tasks and the stem of their group names
ACP_TASKS = ("app", "prog", "reach", "areach", "val", "just", "land")
ACP_STEMS = {"app": "applicable_actions", "prog": "progression", "reach": "reachable_atom",
             "areach": "reachable_action", "val": "validation", "just": "action_justification",
             "land": "landmarks"}

# ActionReasoningBench's question families
ARB_FAMILIES = ("fluent_tracking", "state_tracking", "action_executability", "effects", "numerical_reasoning",
                "composite", "hallucination")

PLAN_KIND = "plan"
PLAN_GROUP = "plan_generation"


def _table() -> dict[str, str]:
    groups = {}
    for task, stem in ACP_STEMS.items():
        groups[f"{stem}_bool"] = f"{task}_bool"
        groups[f"{stem}_mcq"] = f"{task}_mcq"
    for family in ARB_FAMILIES:
        groups[f"arb_{family}"] = f"arb_{family}"
    groups[PLAN_GROUP] = PLAN_KIND
    return groups


GROUP_TO_KIND: dict[str, str] = _table()
KIND_TO_GROUP: dict[str, str] = {k: g for g, k in GROUP_TO_KIND.items()}
KINDS: tuple[str, ...] = tuple(KIND_TO_GROUP)


def form_kind(name) -> str | None:
    """The kind a group, kind or lm-eval task name of a generated form names ('landmarks_mc',
    'acp_land_mcq', 'land_mcq' -> 'land_mcq'); None when it names none of them."""
    if not isinstance(name, str):
        return None
    t = name.strip().lower()
    if t.endswith("_mc"):
        t += "q"
    if t.startswith("acp_") and t[4:] in KIND_TO_GROUP:
        t = t[4:]
    if t in KIND_TO_GROUP:
        return t
    return GROUP_TO_KIND.get(t)


def form_of_kind(kind: str) -> str:
    """'app_bool' -> 'bool', 'land_mcq' -> 'mcq', 'arb_effects' -> 'arb', 'plan' -> 'hard'."""
    if kind.endswith("_bool"):
        return "bool"
    if kind.endswith("_mcq"):
        return "mcq"
    if kind.startswith("arb_"):
        return "arb"
    return "hard"
