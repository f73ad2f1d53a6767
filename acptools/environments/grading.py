"""Rewards from acptools' graders, shared by every convention: exact (1 or 0) or partial credit.
An answer whose verdict could not be proven within the budget (score None) never scores."""

from __future__ import annotations

from ..errors import AcpError
from ..scoring import ItemScore, gold_response, score_response

CREDITS = ("exact", "partial")


def credit_of(item: ItemScore, credit: str = "exact") -> float:
    """1.0 for a correct answer. Otherwise 0.0, except with credit="partial": the IoU of an answered
    set with the true one (sets, effects), or 1 / (1 + regret) for an applicable, non-optimal next
    action of known regret. Unknown (score None) gives 0.0: never rewarded as right."""
    if credit not in CREDITS:
        raise AcpError(f"unknown credit {credit!r}", "credit", f"credits: {', '.join(CREDITS)}")
    if item.score is None:
        return 0.0
    if item.score == 1:
        return 1.0
    if credit == "partial" and item.verdict != "hallucinated":
        if isinstance(item.metrics.get("iou"), (int, float)):
            return float(item.metrics["iou"])
        if isinstance(item.metrics.get("regret"), int) and item.metrics["regret"] > 0:
            return 1.0 / (1 + item.metrics["regret"])
    return 0.0


def reward(record: dict, response, credit: str = "exact", budget: float = 10.0) -> float:
    """The reward of one response to one record (any form acptools.generate writes, or ACPBench Hard)."""
    if not isinstance(response, str) or not response.strip():
        return 0.0
    return credit_of(score_response(record, response, budget=budget), credit)


def proof(record: dict, budget: float = 10.0) -> dict:
    """The stored answer as text and the grader's proof of it: verdict, reason, witness plan."""
    gold = gold_response(record)
    item = score_response(record, gold, budget=budget)
    return {
        "answer": gold,
        "score": item.score,
        "verdict": item.verdict,
        "reason": item.reason,
        "witness": item.witness,
        "metrics": item.metrics,
    }
