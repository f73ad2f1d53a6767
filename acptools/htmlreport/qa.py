"""The question-answering part of the page (scored items of `score` or `eval`): the summary per
model x task x domain, partial-credit histograms per task (the models side by side on one chart), and
the filterable item table (`items`)."""

from __future__ import annotations

from html import escape

from ..answers import TASKS
from ..scoring.score_report import SET_TASKS, item_iou, summarize
from .item_table import item_table
from .svg import grouped_bar_chart, histogram


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _task_order(names) -> list:
    names = set(names)
    return [t for t in TASKS if t in names] + sorted((t for t in names if t not in TASKS), key=str)


def _cell(st: dict | None) -> str:
    """One summary cell: accuracy, mean IoU, n and unknowns (+ errors)."""
    if not st:
        return "<td></td><td></td><td></td><td></td>"
    iou = "–" if st["mean_iou"] is None else f"{st['mean_iou']:.3f}"
    unk = st["unknown"] + st["errors"]
    cls = ' class="num unk"' if unk else ' class="num"'
    return (
        f'<td class="num">{_pct(st["accuracy"])}</td><td class="num">{iou}</td>'
        f'<td class="num">{st["n"]}</td><td{cls}>{unk}{"!" if st["errors"] else ""}</td>'
    )


def _domains(n: int) -> str:
    return f"{n} domain{'s' * (n != 1)}"


def summary_table(summary: dict) -> str:
    """Rows task x domain (and each task's total), four columns per model side by side."""
    models = sorted(summary, key=lambda m: (m != "gold", m))
    head1 = "".join(f'<th colspan="4">{escape(m)}</th>' for m in models)
    head2 = "<th>acc</th><th>IoU</th><th>n</th><th>unk</th>" * len(models)
    rows = []
    for t in _task_order(t for m in models for t in summary[m]["tasks"]):
        domains = sorted({d for m in models for d in summary[m]["tasks"].get(t, {}).get("domains", {})}, key=str)
        for d in domains:
            cells = "".join(_cell(summary[m]["tasks"].get(t, {}).get("domains", {}).get(d)) for m in models)
            rows.append(f"<tr><td>{escape(t)}</td><td>{escape(str(d))}</td>{cells}</tr>")
        cells = "".join(_cell(summary[m]["tasks"].get(t)) for m in models)
        rows.append(f'<tr class="total"><td>{escape(t)}</td><td>(all: {_domains(len(domains))})</td>{cells}</tr>')
    cells = "".join(_cell(summary[m]["overall"]) for m in models)
    covered = max((summary[m]["overall"].get("domain_count") or 0 for m in models), default=0)
    rows.append(f'<tr class="total"><td>ALL</td><td>{_domains(covered) if covered else ""}</td>{cells}</tr>')
    return (
        f'<table id="qa-summary"><thead><tr><th rowspan="2">task</th><th rowspan="2">domain</th>{head1}</tr>'
        f"<tr>{head2}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        '<p class="small">acc: accuracy over decided items; IoU: mean IoU (set answers; an unreadable '
        "answer counts 0); n: items; unk: unknown (+ errors, marked !)</p>"
    )


def _metric_values(items: list[dict], key: str) -> list[float]:
    if key == "iou":  # an unparsed set answer counts 0, as in the means
        return [v for v in map(item_iou, items) if v is not None]
    out = []
    for it in items:
        v = (it.get("metrics") or {}).get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(float(v))
    return out


# the partial-credit metrics (docs/scoring.md): shares in [0, 1], and signed distances from the truth
SHARES = ("iou", "precision", "recall", "nh_jaccard")
DISTANCES = ("index_error", "regret")


def _numeric_metrics(items: list[dict]) -> list[str]:
    keys = {
        k
        for it in items
        for k, v in (it.get("metrics") or {}).items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }
    if any(it.get("task") in SET_TASKS for it in items):
        keys.add("iou")  # unparsed set answers count IoU 0 even without metrics
    return [k for k in SHARES + DISTANCES if k in keys]


def distributions(items: list[dict]) -> str:
    """A histogram per task x numeric partial-credit metric (IoU first), the models' bars side by side
    in each bin, on one axis."""
    models = sorted({str(it.get("model")) for it in items}, key=lambda m: (m != "gold", m))
    out = []
    for t in _task_order({it.get("task") for it in items}):
        of_task = [it for it in items if it.get("task") == t]
        charts = []
        for key in _numeric_metrics(of_task):
            values = {m: _metric_values([it for it in of_task if str(it.get("model")) == m], key) for m in models}
            values = {m: v for m, v in values.items() if v}
            if values:
                labels, series = histogram(values, key in SHARES)
                charts.append(grouped_bar_chart(labels, series, f"{t} {key}"))
        if charts:
            out.append(
                f'<h3>{escape(str(t))}</h3><div class="charts" data-task="{escape(str(t))}">{"".join(charts)}</div>'
            )
    return "".join(out) or '<p class="small">No item carries a numeric partial-credit metric.</p>'


def section(items: list[dict], reports: list[tuple[str, dict]]) -> str:
    """The whole question-answering section (from items, or from report summaries alone)."""
    summary = summarize(items) if items else {}
    for _, doc in reports:  # a report without its items still gives the summary
        for model, st in doc.get("models", {}).items():
            summary.setdefault(model, st)
    if not summary:
        return ""
    parts = ["<h2>Question answering</h2>", summary_table(summary)]
    if items:
        parts += ["<h2>Partial credit</h2>", distributions(items), "<h2>Items (worst first)</h2>", item_table(items)]
    return "".join(parts)
