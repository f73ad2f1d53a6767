"""ACPBench Hard in Inspect AI: datasets, an exact scorer and tasks (needs `pip install 'acptools[inspect]'`).

    inspect eval acptools/acp_nexta_gen --model openai/gpt-4o-mini            # one of the eight tasks
    inspect eval acptools/acp_app_gen -T pddl=true -T split=dev               # the PDDL in front, the dev split
    inspect eval acptools/acp_agentic -T task=nexta                           # may call the acptools MCP tools
    inspect eval acptools/acp_policy                                          # plays episodes, graded per step
    inspect eval acptools/acp_mcq -T source=kd-mcq.jsonl                      # generated records: acp_bool,
                                                                              # acp_mcq, acp_arb, acp_records

    from acptools.inspect_eval import acpbench_dataset, acptools_scorer
    Task(dataset=acpbench_dataset("nexta"), solver=generate(), scorer=acptools_scorer())

The prompts are lm-eval's (the paper's 2-shot prompts, :mod:`acptools.prompts`); the scorer grades in
a worker thread under a cancellable CPU budget, reports `unknown` as an unscored sample (left out of
every metric, never a 0) and puts the verdict, reason, witness plan and partial credit in the score.
"""

from __future__ import annotations

try:
    import inspect_ai  # noqa: F401
except ImportError:  # the extra is optional: say how to get it
    from ..errors import AcpError

    raise AcpError(
        "acptools.inspect_eval needs Inspect AI, which is not installed",
        "acptools.inspect_eval",
        "pip install 'acptools[inspect]'",
    ) from None

from .samples import acpbench_dataset, record_sample, record_to_sample, records_dataset
from .scorer import acptools_scorer, mean_iou
from .tasks import (
    acp_agentic,
    acp_app_gen,
    acp_arb,
    acp_areach_gen,
    acp_bool,
    acp_just_gen,
    acp_land_gen,
    acp_mcq,
    acp_nexta_gen,
    acp_policy,
    acp_prog_gen,
    acp_reach_gen,
    acp_records,
    acp_val_gen,
)

__all__ = [
    "acpbench_dataset",
    "record_to_sample",
    "acptools_scorer",
    "mean_iou",
    "acp_app_gen",
    "acp_prog_gen",
    "acp_reach_gen",
    "acp_areach_gen",
    "acp_val_gen",
    "acp_just_gen",
    "acp_land_gen",
    "acp_nexta_gen",
    "acp_agentic",
    "acp_policy",
    "acp_bool",
    "acp_mcq",
    "acp_arb",
    "acp_records",
    "records_dataset",
    "record_sample",
]
