"""A single-turn verifiers environment (`acptools-qa`): one question with a proven answer per task,
the reply graded by acptools' graders (1 right, 0 wrong; `credit="partial"` gives partial credit;
an answer the budget could not decide never scores). Tasks come from any record source
(`acptools.dataset.load_records`: the bundled ACPBench Hard records, JSONL files, folders) or from a
generated family (`acptools.generate`, e.g. family="hard:nexta" over a bundled example or your PDDL).

    vf-eval acptools-qa --env.taskset.data acpbench-hard:test:app -n 5 --model M --client.base-url URL
    vf-eval acptools-qa --env.taskset.family mcq:land --env.taskset.domain EXAMPLE -n 8 ...
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from .. import examples
from ..dataset import load_records
from ..errors import AcpError
from . import task_sources
from .grading import CREDITS, reward
from .prompting import prompt
from .verifiers_chat import ChatHarness, ChatHarnessConfig, LocalEnv, vf

SYSTEM = "You answer questions about PDDL planning tasks. Reply with the answer in the format the question asks for."


class QaData(vf.TaskData):
    """One question: the record (ACPBench Hard, or acptools.generate output) with its proven answer."""

    record: dict = Field(default_factory=dict)


class QaTaskConfig(vf.TaskConfig):
    """How replies are graded: credit "exact" or "partial"; budget: CPU seconds per grading proof."""

    credit: str = "exact"
    budget: float = Field(10.0, gt=0)


class QaTask(vf.Task[QaData, vf.State, QaTaskConfig]):
    """Rewarded by acptools' grader on the final reply."""

    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        c = self.config
        if c.credit not in CREDITS:
            raise AcpError(
                f"unknown credit {c.credit!r}", "--env.taskset.task.credit", f"credits: {', '.join(CREDITS)}"
            )
        return await asyncio.to_thread(reward, self.data.record, trace.last_reply, c.credit, c.budget)


class QaConfig(vf.TasksetConfig):
    """Where the questions come from: `data` (a record source) or `family` ("FORM:TASK", generated
    from `domain` / `problems`: a bundled example's name, a folder, or files)."""

    data: str = "acpbench-hard:test"
    family: str = ""
    domain: str = examples.DEFAULT
    problems: list[str] = Field(default_factory=list)
    num_tasks: int = Field(0, ge=0)  # 0: every record of `data`; a family generates 16 by default
    seed: int = 0
    pddl: bool = False  # put the PDDL in front of each question
    task: QaTaskConfig = QaTaskConfig()


def family_records(config: QaConfig) -> list[dict]:
    """Records generated for config.family ("FORM:TASK"), every answer proven."""
    return task_sources.family_records(
        config.family,
        config.domain,
        config.problems,
        config.num_tasks or 16,
        config.seed,
        config.task.budget,
        where="--env.taskset.family",
    )


def records(config: QaConfig) -> list[dict]:
    """The configured records, in source order (num_tasks: the first N)."""
    out = family_records(config) if config.family else load_records(config.data)
    if not out:
        raise AcpError("the source holds no question", config.family or config.data)
    return out[: config.num_tasks] if config.num_tasks else out


def task_data(record: dict, pddl: bool, hint: str = "") -> QaData:
    """The task data of one record: the question text, the system prompt and the record."""
    text = prompt(record, pddl)
    return QaData(
        id=str(record.get("id", "")) or None, prompt=f"{text}\n\n{hint}".strip(), system_prompt=SYSTEM, record=record
    )


class QaTaskset(vf.Taskset[QaTask, QaConfig]):
    """The questions of a record source or a generated family."""

    def load(self):
        for record in records(self.config):
            yield QaTask(task_data(record, self.config.pddl), self.config.task)


class QaHarness(ChatHarness):
    """The in-process chat loop (acptools-qa's default harness)."""


__all__ = ["QaTaskset", "QaHarness", "LocalEnv", "QaTask", "QaData", "QaConfig", "QaTaskConfig", "ChatHarnessConfig"]
