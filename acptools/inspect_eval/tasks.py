"""Inspect tasks: the eight ACPBench Hard generation tasks, an agentic variant with the acptools MCP
tools, and a policy task that plays episodes. Registered as `acptools/<name>` (the `inspect_ai` entry
point), so `inspect eval acptools/acp_nexta_gen` works; task options go in with `-T name=value`."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import accuracy, stderr
from inspect_ai.solver import generate, system_message, use_tools

from ..dataset import acpbench_hard, load_records, task_of
from ..export.harness_prompts import FORM_MAX_TOKENS
from ..prompts import lm_eval_task, max_tokens, stop_strings
from ..scoring.score_report import SET_TASKS
from .agentic import DEFAULT_TOOLS, SYSTEM, acptools_mcp, generate_with_server
from .policy import episode_scorer, play_episode, policy_sample
from .samples import acpbench_dataset, records_dataset
from .scorer import acptools_scorer, mean_iou


def _config(kind: str, pddl: bool, stops: bool) -> GenerateConfig:
    """lm-eval's generation settings: greedy, its token limit and (with stops) its stop strings."""
    return GenerateConfig(
        temperature=0.0, max_tokens=max_tokens(kind, pddl), stop_seqs=stop_strings(kind, pddl) if stops else None
    )


def gen_task(
    kind: str,
    split: str = "test",
    source: str | None = None,
    pddl: bool = False,
    chat: bool = True,
    stops: bool = True,
    semantics: str = "exact",
    budget: float = 60.0,
) -> Task:
    """One ACPBench Hard generation task as lm-eval runs it, graded by acptools_scorer. split: dev or test
    (the bundled copy); source: records from elsewhere (a path, acpbench-hard:..., hf:acpbench-hard:...);
    pddl: the PDDL in front; chat: the examples as chat turns; stops: lm-eval's stop strings;
    semantics: exact or reference; budget: CPU seconds per answer."""
    return Task(
        dataset=acpbench_dataset(kind, split, source, pddl, chat),
        solver=generate(),
        scorer=acptools_scorer(semantics, budget),
        config=_config(kind, pddl, stops),
        metrics=_metrics(kind in SET_TASKS),
        name=lm_eval_task(kind, pddl),
    )


def _metrics(sets: bool) -> list:
    """accuracy and stderr, and mean IoU only where answers are sets (elsewhere it has no value)."""
    return [accuracy(), stderr()] + ([mean_iou()] if sets else [])


def _has_sets(dataset) -> bool:
    for sample in dataset:
        record = sample.metadata["record"]
        spec = record.get("spec") if isinstance(record.get("spec"), dict) else {}
        if sample.metadata["task"] in SET_TASKS or spec.get("answer_type") in ("set", "effects"):
            return True
    return False


def records_task(
    source, form: str | None = None, pddl: bool = False, semantics: str = "exact", budget: float = 60.0
) -> Task:
    """The records of `source` (of one form, or all), each asked with its own prompt
    (acptools.export.record_prompt), greedy, graded by acptools_scorer."""
    dataset = records_dataset(source, form, pddl)
    return Task(
        dataset=dataset,
        solver=generate(),
        scorer=acptools_scorer(semantics, budget),
        config=GenerateConfig(temperature=0.0, max_tokens=FORM_MAX_TOKENS),
        metrics=_metrics(_has_sets(dataset)),
        name=f"acptools_{form or 'records'}",
    )


@task
def acp_bool(source=None, pddl=False, semantics="exact", budget=60.0):
    """ACPBench's yes/no questions from `acptools generate --form bool` (-T source=FILE)."""
    return records_task(source, "bool", pddl, semantics, budget)


@task
def acp_mcq(source=None, pddl=False, semantics="exact", budget=60.0):
    """ACPBench's 4-choice questions from `acptools generate --form mcq` (-T source=FILE)."""
    return records_task(source, "mcq", pddl, semantics, budget)


@task
def acp_arb(source=None, pddl=False, semantics="exact", budget=60.0):
    """ActionReasoningBench questions from `acptools generate --form arb` (-T source=FILE)."""
    return records_task(source, "arb", pddl, semantics, budget)


@task
def acp_records(source=None, pddl=False, semantics="exact", budget=60.0):
    """Every record of -T source=FILE, whatever its form, each with its own prompt."""
    return records_task(source, None, pddl, semantics, budget)


def _gen(kind: str, what: str):
    """The registered task acp_<kind>_gen (Inspect finds tasks by their registered name)."""

    def make(split="test", source=None, pddl=False, chat=True, stops=True, semantics="exact", budget=60.0):
        return gen_task(kind, split, source, pddl, chat, stops, semantics, budget)

    make.__name__ = make.__qualname__ = f"acp_{kind}_gen"
    make.__doc__ = f"{kind}: {what} Options: split, source, pddl, chat, stops, semantics, budget (see gen_task)."
    return task(name=make.__name__)(make)


acp_app_gen = _gen("app", "every action applicable in the state.")
acp_prog_gen = _gen("prog", "the positive and negative effects of an action.")
acp_reach_gen = _gen("reach", "a proposition that can never hold (or None).")
acp_areach_gen = _gen("areach", "an action that can never become applicable (or None).")
acp_val_gen = _gen("val", "the index of the first inapplicable action of a sequence.")
acp_just_gen = _gen("just", "the plan with one or two consecutive redundant actions removed.")
acp_land_gen = _gen("land", "a non-trivial fact landmark (or None).")
acp_nexta_gen = _gen("nexta", "an action that brings the goal one step closer.")


@task
def acp_agentic(
    task="nexta",
    split="test",
    source=None,
    tools=DEFAULT_TOOLS,
    server_args=None,
    semantics="exact",
    budget=60.0,
    message_limit=30,
):
    """One ACPBench Hard task with the PDDL in the prompt, where the model may call the acptools MCP
    tools named in `tools` (names or globs; "all" for every tool) before it answers."""
    allowed = [t.strip() for t in tools.split(",")] if isinstance(tools, str) and tools != "all" else tools
    server = acptools_mcp(allowed, server_args)
    return Task(
        dataset=acpbench_dataset(task, split, source, pddl=True, chat=True),
        solver=[system_message(SYSTEM), use_tools(server), generate_with_server(server)],
        scorer=acptools_scorer(semantics, budget),
        message_limit=message_limit,
        config=GenerateConfig(temperature=0.0),
        name=f"acp_agentic_{task}",
    )


@task
def acp_policy(split="test", source=None, pddl=False, max_steps=None, max_invalid=5, budget=60.0):
    """Play each nexta record's task from its initial state, one action per turn, every step graded
    against h*: solved, solved optimally, the rate of optimal steps and the invalid replies."""
    records = (
        acpbench_hard(split, "nexta")
        if source is None
        else [r for r in load_records(str(source) if isinstance(source, Path) else source) if task_of(r) == "nexta"]
    )
    return Task(
        dataset=MemoryDataset([policy_sample(r, pddl) for r in records], name="acp_policy"),
        solver=play_episode(max_steps, max_invalid, budget),
        scorer=episode_scorer(),
        config=GenerateConfig(temperature=0.0),
        name="acp_policy",
    )
