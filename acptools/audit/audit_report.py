"""The audit of a record set: every trivial answerer scored per form and task, beside chance, as a
table or JSON; a cell is flagged when the answerer is more than `tolerance` points above the chance
of the records it answered, or below it when every one of them has a closed answer (yes/no, an
option, a step, a name: an answerer far below chance gives those away too, by elimination)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..errors import AcpError
from ..kinds import FORMS
from .answerers import ANSWERERS, Answerers, item_of

TOLERANCE = 10.0  # points from chance an answerer may score before it is flagged


@dataclass
class Cell:
    """One answerer on one task: how many records it answered, its mean score and their mean chance."""

    records: int
    score: float
    chance: float
    closed: bool = True  # every record answered has a closed answer (below chance counts too)

    @property
    def delta(self) -> float:
        """Points above (or below) chance."""
        return 100 * (self.score - self.chance)

    def flagged(self, tolerance: float) -> bool:
        """More than `tolerance` points above chance (or below it, for closed answers)?"""
        return self.delta > tolerance or (self.closed and -self.delta > tolerance)


@dataclass
class Row:
    """One task of one form: its records, their mean chance and each answerer's cell."""

    form: str
    task: str
    records: int
    chance: float
    cells: dict[str, Cell] = field(default_factory=dict)


@dataclass
class Audit:
    """Rows by form then task, the records that could not be read, and the tolerance in points."""

    rows: list[Row]
    unread: list[str]
    tolerance: float = TOLERANCE

    def flagged(self) -> list[tuple[Row, str, Cell]]:
        """(row, answerer, cell) of every answerer more than the tolerance from chance."""
        return [
            (row, name, cell) for row in self.rows for name, cell in row.cells.items() if cell.flagged(self.tolerance)
        ]

    def to_json(self) -> dict:
        """The audit as plain JSON (scores and chance as fractions, rounded to 4 places)."""
        return {
            "tolerance_points": self.tolerance,
            "answerers": ANSWERERS,
            "unread": self.unread,
            "rows": [
                {
                    "form": r.form,
                    "task": r.task,
                    "records": r.records,
                    "chance": round(r.chance, 4),
                    "answerers": {
                        name: {
                            "records": c.records,
                            "score": round(c.score, 4),
                            "chance": round(c.chance, 4),
                            "flagged": c.flagged(self.tolerance),
                        }
                        for name, c in r.cells.items()
                    },
                }
                for r in self.rows
            ],
            "flagged": len(self.flagged()),
        }

    def table(self) -> str:
        """A text table: one row per form and task, the chance and each answerer's score in percent
        ('!' marks a score more than the tolerance from the chance of the records it answered, '-' an
        answerer with nothing to say about the task)."""
        names = [n for n in ANSWERERS if any(n in r.cells for r in self.rows)]
        head = ["form", "task", "n", "chance"] + names
        lines = [head]
        for r in self.rows:
            line = [r.form, r.task, str(r.records), f"{100 * r.chance:.0f}"]
            for n in names:
                c = r.cells.get(n)
                line.append("-" if c is None else f"{100 * c.score:.0f}" + ("!" if c.flagged(self.tolerance) else ""))
            lines.append(line)
        widths = [max(len(line[k]) for line in lines) for k in range(len(head))]
        out = [
            "  ".join(x.ljust(w) if k < 2 else x.rjust(w) for k, (x, w) in enumerate(zip(line, widths)))
            for line in lines
        ]
        flagged = self.flagged()
        out.append(
            f"{len(flagged)} answerer score(s) more than {self.tolerance:g} points from chance"
            + (
                ": "
                + ", ".join(
                    f"{r.form} {r.task} {n} {100 * c.score:.0f}% vs {100 * c.chance:.0f}%" for r, n, c in flagged
                )
                if flagged
                else ""
            )
        )
        if self.unread:
            out.append(
                f"{len(self.unread)} record(s) not audited: "
                + "; ".join(self.unread[:3])
                + (" ..." if len(self.unread) > 3 else "")
            )
        return "\n".join(out)


def audit(records, budget: float = 10.0, tolerance: float = TOLERANCE, progress=None) -> Audit:
    """Score every trivial answerer on `records` (dicts of any record file acptools reads), per form
    and task. `budget`: CPU seconds per proof when an answer is graded from the PDDL. `progress`:
    called with (done, total) as records are audited."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    unread = []
    for r in records:
        try:
            item = item_of(r, budget)
        except (AcpError, AttributeError, TypeError) as e:
            unread.append(f"record {r.get('id') if isinstance(r, dict) else r!r}: {e}")
            continue
        groups[(item.form, item.task)].append(item)
    order = sorted(groups, key=lambda k: (FORMS.index(k[0]) if k[0] in FORMS else len(FORMS), k[1]))
    rows, done, total = [], 0, sum(len(v) for v in groups.values())
    for form, task in order:
        items = groups[(form, task)]
        rows.append(_row(form, task, items, Answerers(items, budget)))
        done += len(items)
        if progress is not None:
            progress(done, total)
    return Audit(rows, unread, tolerance)


def _row(form: str, task: str, items, answerers: Answerers) -> Row:
    row = Row(form, task, len(items), sum(it.chance for it in items) / len(items))
    for name in ANSWERERS:
        scores = [(answerers.score(name, it), it) for it in items]
        scores = [(s, it) for s, it in scores if s is not None]
        if scores:
            row.cells[name] = Cell(
                len(scores),
                sum(s for s, _ in scores) / len(scores),
                sum(it.chance for _, it in scores) / len(scores),
                all(it.closed for _, it in scores),
            )
    return row
