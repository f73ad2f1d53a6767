"""The question-answering part of the page (scored items of `score` or `eval`): the summary per
model x task x domain, partial-credit histograms per task, and the filterable item table."""

from __future__ import annotations

import json
from html import escape

from ..answers import TASKS
from ..scoring.report import SET_TASKS, item_iou, summarize
from .svg import bar_chart, histogram

ITEM_ROWS = 5000  # the item table keeps the worst this many (the page stays quick to open)


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
    return (f'<td class="num">{_pct(st["accuracy"])}</td><td class="num">{iou}</td>'
            f'<td class="num">{st["n"]}</td><td{cls}>{unk}{"!" if st["errors"] else ""}</td>')


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
        rows.append(f'<tr class="total"><td>{escape(t)}</td><td>(all)</td>{cells}</tr>')
    cells = "".join(_cell(summary[m]["overall"]) for m in models)
    rows.append(f'<tr class="total"><td>ALL</td><td></td>{cells}</tr>')
    return (f'<table id="qa-summary"><thead><tr><th rowspan="2">task</th><th rowspan="2">domain</th>{head1}</tr>'
            f"<tr>{head2}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            '<p class="small">acc: accuracy over decided items; IoU: mean IoU (set answers; an unreadable '
            "answer counts 0); n: items; unk: unknown (+ errors, marked !)</p>")


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
    keys = {k for it in items for k, v in (it.get("metrics") or {}).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if any(it.get("task") in SET_TASKS for it in items):
        keys.add("iou")  # unparsed set answers count IoU 0 even without metrics
    return [k for k in SHARES + DISTANCES if k in keys]


def distributions(items: list[dict]) -> str:
    """A histogram per task x numeric partial-credit metric x model (IoU first)."""
    out = []
    for t in _task_order({it.get("task") for it in items}):
        of_task = [it for it in items if it.get("task") == t]
        charts = []
        for key in _numeric_metrics(of_task):
            for m in sorted({str(it.get("model")) for it in of_task}):
                values = _metric_values([it for it in of_task if str(it.get("model")) == m], key)
                if values:
                    labels, counts = histogram(values, key in SHARES)
                    charts.append(bar_chart(labels, counts, f"{t} {key}: {m}"))
        if charts:
            out.append(f'<h3>{escape(str(t))}</h3><div class="charts" data-task="{escape(str(t))}">'
                       f"{''.join(charts)}</div>")
    return "".join(out) or '<p class="small">No item carries a numeric partial-credit metric.</p>'


def _badness(it: dict) -> tuple:
    """Worst first: wrong, then unknown or error, then right; lower IoU first within each."""
    score = it.get("score")
    rank = 0 if score == 0 else 1 if score is None else 2
    iou = item_iou(it)
    return rank, 1.0 if iou is None else iou


def select_box(name: str, values) -> str:
    """An HTML select filtering on `name`, offering each distinct value and "all"."""
    opts = "".join(f'<option value="{escape(str(v), quote=True)}">{escape(str(v))}</option>'
                   for v in sorted(set(values), key=str))
    return f'<label>{name} <select name="{name}"><option value="">all</option>{opts}</select></label>'


def item_table(items: list[dict]) -> str:
    """The worst items first, with verdict, reason, what was read and the witness plan; filterable."""
    shown = sorted(items, key=_badness)[:ITEM_ROWS]
    rows = []
    for it in shown:
        model, task, verdict = str(it.get("model")), str(it.get("task")), str(it.get("verdict"))
        score = "–" if it.get("score") is None else str(it.get("score"))
        iou = item_iou(it)
        plan = "<br>".join(escape(str(a)) for a in it.get("witness") or [])
        parsed = escape(json.dumps(it.get("parsed") or {}, default=str)[:300])
        cls = "good" if it.get("score") == 1 else "bad" if it.get("score") == 0 else "unk"
        rows.append(
            f'<tr data-row data-model="{escape(model, quote=True)}" data-task="{escape(task, quote=True)}" '
            f'data-verdict="{escape(verdict, quote=True)}"><td>{escape(model)}</td><td>{escape(task)}</td>'
            f"<td>{escape(str(it.get('domain')))}</td><td>{escape(str(it.get('id')))}</td>"
            f'<td class="{cls}">{escape(verdict)}</td><td class="num">{score}</td>'
            f'<td class="num">{"–" if iou is None else f"{iou:.2f}"}</td>'
            f'<td class="reason">{escape(str(it.get("reason") or ""))}<div class="small">read: {parsed}</div></td>'
            f'<td class="plan">{plan}</td></tr>')
    more = (f'<p class="small">The {ITEM_ROWS} worst of {len(items)} items are listed.</p>'
            if len(items) > ITEM_ROWS else "")
    filters = (f'<div class="filters" data-filter="qa-items"><input type="search" id="qa-filter" '
               f'placeholder="filter: any text in a row (id, domain, reason, action...)">'
               f'{select_box("model", (str(i.get("model")) for i in shown))}'
               f'{select_box("task", (str(i.get("task")) for i in shown))}'
               f'{select_box("verdict", (str(i.get("verdict")) for i in shown))}<span class="count"></span></div>')
    return (f"{filters}{more}<table id=\"qa-items\"><thead><tr><th>model</th><th>task</th><th>domain</th>"
            "<th>id</th><th>verdict</th><th>score</th><th>IoU</th><th>reason</th><th>witness plan</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


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
