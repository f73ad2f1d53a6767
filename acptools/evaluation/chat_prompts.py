"""What a model is asked for one record: the benchmark's own prompt, as chat turns.

ACPBench Hard's eight tasks get lm-eval's 2-shot prompt (`acptools.prompts`: the description as the
system message, the two solved examples as earlier turns, `pddl=True` for the `_with_pddl` variant).
Records of the generated forms (yes/no, 4-choice, ActionReasoningBench, plans) get their own
`context` and `question` (the options are in the question), the PDDL in front with `pddl=True`, and
a system message saying how to answer their answer type. A record whose context says its PDDL is
given with the question (generated from a domain without phrase templates) is always asked with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..answers import TASKS
from ..dataset import promises_pddl, task_of
from ..errors import AcpError
from ..prompts import prompt_messages

FORM_SYSTEM = "You are an expert in AI planning. Answer the question about the planning task below."
HOW_TO_ANSWER = {
    "bool": "Answer yes or no.",
    "choice": "Answer with the letter of the one correct option.",
    "count": "Answer with a number.",
    "index": "Answer with the step number, or None.",
    "value": "Answer with the exact number: an integer, a decimal or a fraction such as 5/4.",
    "name": "Answer with the name, or None.",
    "plan": "Answer with the plan: one action per line, in PDDL syntax such as (name arg1 arg2).",
}


def messages_for(record: dict, pddl: bool = False) -> list[dict]:
    """The chat turns that ask `record`'s question (system message first when there is one)."""
    kind = task_of(record)
    if kind in TASKS:
        return prompt_messages(record, pddl)
    spec = record.get("spec") if isinstance(record.get("spec"), dict) else {}
    system = " ".join(x for x in (FORM_SYSTEM, HOW_TO_ANSWER.get(spec.get("answer_type"), "")) if x)
    parts = []
    if pddl:
        parts.append(
            f"PDDL domain:\n{record.get('PDDL_domain', '')}\n\nPDDL problem:\n{record.get('PDDL_problem', '')}"
        )
    parts += [str(record.get("context", "")), str(record.get("question", ""))]
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(p for p in parts if p)}]


@dataclass
class Question:
    """What a policy is given: `.system` and `.messages` (the chat turns after it), `.prompt` (the last
    turn, for policies that send one message), `.record` (for python: policies); `to_json()` is what a
    cmd: policy reads, one line per question."""

    id: str
    task: str
    system: str
    messages: list[dict] = field(default_factory=list)
    record: dict | None = None
    pddl: bool = False  # whether the PDDL is sent with the question

    @property
    def prompt(self) -> str:
        """The last message's text (the question itself)."""
        return self.messages[-1]["content"] if self.messages else ""

    def to_json(self) -> dict:
        """The question as a JSON object: id, task, system prompt, messages and prompt."""
        return {
            "id": self.id,
            "task": self.task,
            "system": self.system,
            "messages": self.messages,
            "prompt": self.prompt,
        }


def needs_pddl(record: dict, pddl: bool = False) -> bool:
    """Whether the record is asked with its PDDL: with --with-pddl (`pddl`), and always when its context
    says the PDDL is given with the question (generated records of a domain without templates)."""
    if not pddl and not promises_pddl(record):
        return False
    if not (record.get("PDDL_domain") and record.get("PDDL_problem")):
        why = "its context says its PDDL is given with the question" if not pddl else "--with-pddl"
        raise AcpError(
            f"{why}, but the record has no PDDL_domain and PDDL_problem",
            f"record {record.get('id')!r}",
            "give the records as acptools generate writes them (with their PDDL)",
        )
    return True


def question_for(record: dict, pddl: bool = False) -> Question:
    """The Question a record asks (its lm-eval prompt; with its PDDL in front when `needs_pddl`)."""
    with_pddl = needs_pddl(record, pddl)
    turns = messages_for(record, with_pddl)
    system = turns[0]["content"] if turns and turns[0]["role"] == "system" else ""
    rest = turns[1:] if system else turns
    kind = task_of(record)
    return Question(f"{kind}/{record.get('id')}", kind, system, rest, record, with_pddl)
