"""ACPBench Hard records as Inspect samples, with lm-eval's 2-shot prompts (with or without the PDDL)."""

from __future__ import annotations

from pathlib import Path

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

from ..answers import canonical_task
from ..dataset import acpbench_hard, domain_name, load_records, task_of
from ..errors import AcpError
from ..prompts import lm_eval_task, prompt_messages, prompt_text
from ..scoring import gold_response

_ROLES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def record_to_sample(record: dict, pddl: bool = False, chat: bool = True) -> Sample:
    """One record as a Sample: the prompt as chat turns (the two examples as earlier turns) or as one
    text, the stored answer written as text as the target, and the record itself in the metadata
    (the scorer grades against its PDDL). The id is a string: 64-bit ids do not survive JavaScript."""
    kind = task_of(record)
    if chat:
        prompt = [_ROLES[m["role"]](content=m["content"]) for m in prompt_messages(record, pddl)]
    else:
        prompt = prompt_text(record, pddl)
    try:
        target = gold_response(record)
    except AcpError:
        target = ""  # a stored answer that cannot be written out: the exact scorer does not need it
    return Sample(
        input=prompt,
        target=target,
        id=f"{kind}-{record['id']}",
        metadata={
            "record": record,
            "task": kind,
            "domain": domain_name(record),
            "lm_eval_task": lm_eval_task(kind, pddl),
        },
    )


def _records(task: str, split: str, source) -> list[dict]:
    if source is None:
        return acpbench_hard(split, task)
    records = load_records(str(source) if isinstance(source, Path) else source)
    picked = [r for r in records if task_of(r) == task]
    if not picked:
        kinds = sorted({task_of(r) for r in records})
        forms = sorted({FORM_OF.get(k.rsplit("_", 1)[-1], "arb" if k.startswith("arb_") else "hard") for k in kinds})
        raise AcpError(
            f"no {task} records (the source holds {', '.join(kinds[:8]) or 'none'})",
            f"source {source}",
            "ask them with " + " or ".join(f"acptools/{FORM_TASKS[f]}" for f in forms),
        )
    return picked


# generated forms (acptools.forms) -> the Inspect task that asks them
FORM_OF = {"bool": "bool", "mcq": "mcq"}
FORM_TASKS = {"bool": "acp_bool", "mcq": "acp_mcq", "arb": "acp_arb", "hard": "acp_records"}


def form_of(record: dict) -> str:
    """'bool', 'mcq', 'arb' or 'hard' (ACPBench Hard's eight tasks and model-written plans)."""
    kind = task_of(record)
    if kind.endswith("_bool"):
        return "bool"
    if kind.endswith("_mcq"):
        return "mcq"
    return "arb" if kind.startswith("arb_") else "hard"


def record_sample(record: dict, pddl: bool = False) -> Sample:
    """Any record (ACPBench Hard or a generated form) as a one-message Sample with its own prompt
    (acptools.export.record_prompt), the stored answer as target and the record in the metadata."""
    from ..export import record_prompt

    kind = task_of(record)
    try:
        target = gold_response(record)
    except AcpError:
        target = ""
    return Sample(
        input=record_prompt(record, pddl),
        target=target,
        id=f"{kind}-{record['id']}",
        metadata={"record": record, "task": kind, "domain": domain_name(record), "form": form_of(record)},
    )


def records_dataset(source, form: str | None = None, pddl: bool = False) -> MemoryDataset:
    """The records of `source` (files, folders, acpbench-hard:..., hf:...) as a dataset; `form`
    keeps one form only ('bool', 'mcq', 'arb', 'hard')."""
    if source is None:
        raise AcpError("no source given", "-T source", "pass -T source=records.jsonl (files from acptools generate)")
    records = load_records(str(source) if isinstance(source, Path) else source)
    picked = [r for r in records if form is None or form_of(r) == form]
    if not picked:
        found = sorted({form_of(r) for r in records})
        raise AcpError(
            f"no {form} records (the source holds {', '.join(found) or 'none'})",
            f"source {source}",
            "ask them with " + " or ".join(f"acptools/{FORM_TASKS[f]}" for f in found),
        )
    return MemoryDataset([record_sample(r, pddl) for r in picked], name=f"acptools_{form or 'records'}")


def acpbench_dataset(
    task: str, split: str = "test", source: str | Path | None = None, pddl: bool = False, chat: bool = True
) -> MemoryDataset:
    """The records of one task as a dataset. source: None (the bundled copy, `split`), a named source
    (`acpbench-hard:dev`, `hf:acpbench-hard:test`) or files and folders of records (only `task`'s are
    kept). pddl: lm-eval's `_with_pddl` prompt; chat: the examples as chat turns (else one text)."""
    try:
        kind = canonical_task(task)
    except ValueError as e:
        raise AcpError(str(e), "task") from None
    samples = [record_to_sample(r, pddl, chat) for r in _records(kind, split, source)]
    return MemoryDataset(samples, name=lm_eval_task(kind, pddl))
