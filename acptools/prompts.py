"""The ACPBench Hard prompts as lm-evaluation-harness sends them (the paper's 2-shot setup).

    from acptools.prompts import prompt_text, prompt_messages
    prompt_text(record)                  # acp_<task>_gen: two solved examples, then the question
    prompt_text(record, pddl=True)       # acp_<task>_gen_with_pddl: the PDDL domain and problem in front
    prompt_messages(record)              # the same as chat turns (lm-eval --apply_chat_template --fewshot_as_multiturn)

The templates, examples and stop strings come from lm-eval's task yamls (data/acpbench_prompts.json,
made by scripts/extract_acpbench_prompts.py); tests check the text against the prompts lm-eval
itself logged. A record is an ACPBench Hard record (or any dict with context, question and, for
the PDDL variant, PDDL_domain and PDDL_problem).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from .answers import TASKS, canonical_task
from .dataset import task_of
from .errors import AcpError

DATA = Path(__file__).parent / "data" / "acpbench_prompts.json"
_FIELD = re.compile(r"{{\s*(\w+)\s*}}")

__all__ = ["lm_eval_task", "prompt_text", "prompt_messages", "stop_strings", "max_tokens"]


@lru_cache(maxsize=1)
def _variants() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))["variants"]


def lm_eval_task(task: str, pddl: bool = False) -> str:
    """lm-eval's task name for one of our tasks: 'nexta' -> 'acp_nexta_gen' (or '..._with_pddl')."""
    try:
        kind = canonical_task(task)
    except ValueError as e:
        raise AcpError(str(e), "task") from None
    if kind not in TASKS:
        raise AcpError(
            f"unknown task {task!r} for lm-eval: its ACPBench Hard tasks are {', '.join(TASKS)}",
            "task",
            "generated forms have no lm-eval prompt; use the record's own question",
        )
    return f"acp_{kind}_gen" + ("_with_pddl" if pddl else "")


def _config(task: str, pddl: bool) -> dict:
    return _variants()["2shot_with_pddl" if pddl else "2shot"][lm_eval_task(task, pddl)]


def _render(template: str, doc: dict, where: str) -> str:
    def field(m):
        if m.group(1) not in doc:
            raise AcpError(f"the record has no {m.group(1)!r} field, which the prompt needs", where)
        return str(doc[m.group(1)])

    return _FIELD.sub(field, template)


def _turns(record: dict, task: str | None, pddl: bool) -> tuple[dict, list[tuple[str, str]], str]:
    """(config, [(example question, its answer)], the record's question)."""
    kind = task or task_of(record)
    cfg = _config(kind, pddl)
    where = f"record {record.get('group', kind)}/{record.get('id', '?')}"
    shots = [
        (_render(cfg["doc_to_text"], s, "few-shot example"), _render(cfg["doc_to_target"], s, "few-shot example"))
        for s in cfg["fewshot"]
    ]
    return cfg, shots, _render(cfg["doc_to_text"], record, where)


def prompt_text(record: dict, pddl: bool = False, task: str | None = None) -> str:
    """The completion prompt lm-eval builds: description, two solved examples, the question."""
    cfg, shots, question = _turns(record, task, pddl)
    examples = "".join(q + cfg["target_delimiter"] + a + cfg["fewshot_delimiter"] for q, a in shots)
    return cfg["description"] + examples + question


def prompt_messages(record: dict, pddl: bool = False, task: str | None = None) -> list[dict]:
    """The same prompt as chat turns: the description as system message, each example as a user
    question and an assistant answer, then the question."""
    cfg, shots, question = _turns(record, task, pddl)
    messages = [{"role": "system", "content": cfg["description"]}] if cfg["description"] else []
    for q, a in shots:
        messages += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    return messages + [{"role": "user", "content": question}]


def stop_strings(task: str, pddl: bool = False) -> list[str]:
    """lm-eval's stop strings for the task (generation ends at the first of them)."""
    return list(_config(task, pddl)["until"])


def max_tokens(task: str, pddl: bool = False) -> int | None:
    """lm-eval's generation length limit for the task."""
    return _config(task, pddl)["max_gen_toks"]
