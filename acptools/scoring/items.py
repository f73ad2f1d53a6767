"""What the scorer returns for one answer: a score, a verdict category, a reason and metrics."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from ..dataset import domain_name, task_of
from ..errors import AcpError
from ..verdict import Grade

VERDICTS = tuple(Grade)  # the verdict categories (the `verdict` field), acptools.verdict.Grade


@dataclass
class ItemScore:
    """The grade of one response.

    score: 1, 0, or None when the verdict could not be proven within the budget (verdict 'unknown').
    witness: a replayable plan from the question's state backing the reason, when one exists (the plan
    that reaches an atom claimed unreachable, the plan that avoids a claimed landmark, an optimal plan).
    metrics: partial credit (IoU, precision, recall, index error, regret, ...), see docs/scoring.md.
    parsed: what was read from the response.
    """

    id: object = None
    group: str | None = None
    task: str = ""
    domain: str | None = None
    model: str | None = None
    score: int | None = None
    verdict: str = Grade.UNKNOWN
    reason: str = ""
    witness: list[str] | None = None
    metrics: dict = field(default_factory=dict)
    parsed: dict = field(default_factory=dict)
    seconds: float = 0.0
    semantics: str = "exact"
    extra: dict = field(default_factory=dict)  # fields of the response row passed through unchanged

    @property
    def known(self) -> bool:
        """Whether the item was scored (its score is not None)."""
        return self.score is not None

    def to_dict(self) -> dict:
        """The item as a flat dict: its fields, with the extra ones they do not shadow."""
        d = asdict(self)
        extra = d.pop("extra")
        out = {k: v for k, v in extra.items() if k not in d}
        out.update(d)
        return out


ITEM_FIELDS = tuple(f.name for f in fields(ItemScore))  # in the order `ItemScore.to_dict` writes them


@dataclass
class Outcome:
    """The semantic part of a grade (what the task-specific scorers produce)."""

    score: int | None
    verdict: str
    reason: str
    witness: list[str] | None = None
    metrics: dict = field(default_factory=dict)


def parsed_dict(p) -> dict:
    """A ParsedAnswer as plain JSON."""
    if p is None:
        return {}
    out: dict = {"ok": p.ok}
    if p.items:
        out["items"] = [x.text for x in p.items]
    if p.negative:
        out["negative"] = [x.text for x in p.negative]
    if p.index is not None:
        out["index"] = p.index
    if p.none:
        out["none"] = True
    if p.error:
        out["error"] = p.error
    return out


# ---- partial credit ----------------------------------------------------------------------------


def set_metrics(answer: set, truth: set, hallucinated: int = 0, prefix: str = "") -> dict:
    """IoU, precision, recall and counts. `answer` holds every distinct answered item (hallucinated
    ones too, as written); `hallucinated` says how many of them name nothing in the task.
    Conventions: an empty answer has precision 1 only if the truth is empty too; an empty truth has
    recall 1 only if the answer is empty too; two empty sets have IoU 1."""
    inter = len(answer & truth)
    union = len(answer | truth)
    m = {
        "iou": round(inter / union, 6) if union else 1.0,
        "precision": round(inter / len(answer), 6) if answer else (1.0 if not truth else 0.0),
        "recall": round(inter / len(truth), 6) if truth else (1.0 if not answer else 0.0),
        "missing": len(truth - answer),
        "extra": len(answer - truth) - hallucinated,
        "hallucinated": hallucinated,
        "answered": len(answer),
        "expected": len(truth),
    }
    return {prefix + k: v for k, v in m.items()}


def nh_jaccard(answer: set, truth: set) -> float:
    """'No hallucination Jaccard': |A|/|G| when A is a subset of G, else 0 (1 when both are empty)."""
    if not answer <= truth:
        return 0.0
    return round(len(answer) / len(truth), 6) if truth else 1.0


def show(names, limit: int = 6) -> str:
    """Names joined by commas, at most `limit` then how many more ("none" when empty)."""
    names = list(names)
    if not names:
        return "none"
    text = ", ".join(names[:limit])
    return text + (f" and {len(names) - limit} more" if len(names) > limit else "")


def plan_text(plan, limit: int = 40) -> str:
    """A plan as text, at most `limit` actions, with its length."""
    plan = list(plan or [])
    if not plan:
        return "[] (empty plan)"
    body = " ".join(plan[:limit])
    return f"[{body}{' ...' if len(plan) > limit else ''}] ({len(plan)} steps)"


# fields of a response row that the scorer reads; the others pass through to the item
RESERVED = {"id", "group", "response", "model"}


def item_for(record: dict, row: dict, semantics: str) -> ItemScore:
    """An ungraded item for one response: the record's identity, the row's model and extra fields."""
    extra = {k: v for k, v in row.items() if k not in RESERVED and not k.startswith("_")}
    try:
        kind = task_of(record)
    except AcpError:
        kind = "?"
    return ItemScore(
        id=record.get("id"),
        group=record.get("group"),
        task=kind,
        domain=domain_name(record),
        model=row.get("model"),
        semantics=semantics,
        extra=extra,
    )
