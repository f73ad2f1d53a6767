"""An Inspect scorer that grades ACPBench Hard answers exactly (or with the published lm-eval rules)."""

from __future__ import annotations

import json

from inspect_ai.scorer import Metric, SampleScore, Score, Target, accuracy, metric, scorer, stderr
from inspect_ai.solver import TaskState

from ..errors import AcpError
from ..scoring import score_response
from ..scoring.items import ItemScore
from .offloop import off_loop


@metric
def mean_iou() -> Metric:
    """Mean IoU of the answered set with the true one (app, prog) over the samples that have one."""

    def compute(scores: list[SampleScore]) -> float:
        ious = [s.score.metadata.get("iou") for s in scores if s.score.metadata]
        ious = [x for x in ious if isinstance(x, (int, float))]
        return sum(ious) / len(ious) if ious else float("nan")

    return compute


def _answer(item: ItemScore) -> str:
    p = item.parsed or {}
    if "reference" in p:
        return json.dumps(p["reference"])
    if "index" in p:
        return str(p["index"])
    if p.get("none"):
        return "None"
    return " ".join(p.get("items", [])) + (" | " + " ".join(p["negative"]) if p.get("negative") else "")


def score_of(item: ItemScore) -> Score:
    """An ItemScore as an Inspect Score: 1/0 when decided, unscored (left out of metrics) when unknown."""
    metadata = {
        "verdict": item.verdict,
        "reason": item.reason,
        "witness": item.witness,
        "metrics": item.metrics,
        "parsed": item.parsed,
        "task": item.task,
        "domain": item.domain,
        "semantics": item.semantics,
        "iou": item.metrics.get("iou"),
        "regret": item.metrics.get("regret"),
        "seconds": item.seconds,
    }
    explanation = f"{item.verdict}: {item.reason}"
    if item.witness:
        explanation += f"\nwitness plan ({len(item.witness)} steps): {' '.join(item.witness)}"
    if item.score is None:
        return Score.unscored(reason="unknown", answer=_answer(item), explanation=explanation, metadata=metadata)
    return Score(value=float(item.score), answer=_answer(item), explanation=explanation, metadata=metadata)


@scorer(metrics=[accuracy(), stderr(), mean_iou()])
def acptools_scorer(semantics: str = "exact", budget: float = 60.0):
    """Grade the model's answer against the sample's record (metadata["record"]).

    semantics: 'exact' (computed from the PDDL) or 'reference' (the published lm-eval scorer's rules).
    budget: CPU seconds per answer; an answer whose verdict is not proven within it is unscored
    (reason 'unknown'), so accuracy is over decided answers."""

    async def score(state: TaskState, target: Target) -> Score:
        record = (state.metadata or {}).get("record")
        if not isinstance(record, dict):
            return Score.unscored(
                reason="scoring_failed",
                explanation="the sample has no ACPBench Hard record in "
                "its metadata ('record'); build samples with acptools.inspect_eval.record_to_sample",
            )
        text = state.output.completion if state.output else ""
        try:
            item = await off_loop(lambda b: score_response(record, text, semantics, b), budget)
        except AcpError as e:
            return Score.unscored(reason="scoring_failed", explanation=str(e))
        return score_of(item)

    return score
