"""The rollout part of the page (traces of `rollout`): figures per domain with the runs side by side,
and every episode step by step with h* before and after and the regret of each step."""

from __future__ import annotations

from html import escape

from ..rollout.rollout_report import summarize
from .item_table import select_box
from .readers import Run

FIGURES = (
    ("episodes", "eps", None),
    ("solved_rate", "solved", "%"),
    ("dead_end_episodes", "dead end", None),
    ("optimal_step_rate", "optimal", "%"),
    ("mean_regret", "regret", ".2f"),
    ("plan_length_ratio", "len/h*", ".2f"),
    ("unknown_steps", "unk", None),
)
EPISODE_ROWS = 2000


def _fmt(x, fmt) -> str:
    if x is None:
        return "–"
    if fmt == "%":
        return f"{100 * x:.1f}%"
    return format(x, fmt) if fmt else str(x)


def summary_table(runs: list[Run], reports: list[tuple[str, dict]]) -> str:
    """Rows domain (and ALL), a group of columns per run."""
    sums = {r.name: summarize(r.rows) for r in runs}
    for path, doc in reports:  # a report alone (no traces) still gives its figures
        name = str(doc.get("settings", {}).get("policy") or path)
        sums.setdefault(name, {"overall": doc["overall"], "by_domain": doc.get("by_domain", {})})
    names = list(sums)
    head1 = "".join(f'<th colspan="{len(FIGURES) + 1}">{escape(n)}</th>' for n in names)
    head2 = ("".join(f"<th>{label}</th>" for _, label, _ in FIGURES) + "<th>invalid</th>") * len(names)
    rows = []
    domains = sorted({d for s in sums.values() for d in s["by_domain"]})
    for d in domains + ["ALL"]:
        cells = []
        for n in names:
            st = sums[n]["overall"] if d == "ALL" else sums[n]["by_domain"].get(d)
            if not st:
                cells.append("<td></td>" * (len(FIGURES) + 1))
                continue
            inv = sum((st.get("invalid") or {}).values())
            cells.append(
                "".join(f'<td class="num">{_fmt(st.get(k), f)}</td>' for k, _, f in FIGURES)
                + f'<td class="num">{inv}</td>'
            )
        cls = ' class="total"' if d == "ALL" else ""
        rows.append(f"<tr{cls}><td>{escape(d)}</td>{''.join(cells)}</tr>")
    return (
        f'<table id="rollout-summary"><thead><tr><th rowspan="2">domain</th>{head1}</tr><tr>{head2}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
        '<p class="small">solved: episodes at the goal; dead end: episodes ended where no action applies or the '
        "goal is proven out of reach; optimal: applied steps with regret 0 among those of "
        "known optimality; regret: mean h*(after) + 1 − h*(before); len/h*: plan length / h*(start) of "
        "solved episodes; unk: steps of unknown optimality; invalid: replies not applied</p>"
    )


def _step_row(s: dict) -> str:
    regret = s.get("regret")
    cls = "good" if s.get("optimal") else "bad" if s.get("verdict") != "applied" or (regret or 0) > 0 else "unk"
    return (
        f'<tr><td class="num">{s.get("step")}</td><td><pre>{escape(str(s.get("reply") or "")[:400])}</pre></td>'
        f'<td>{escape(str(s.get("action") or ""))}</td><td class="{cls}">{escape(str(s.get("verdict")))}</td>'
        f'<td class="num">{_bounded(s, "h_star_before")}</td>'
        f'<td class="num">{_bounded(s, "h_star_after")}</td>'
        f'<td class="num">{_bounded(s, "regret")}</td><td>{escape(str(s.get("reason") or ""))}</td></tr>'
    )


def _bounded(s: dict, key: str) -> str:
    """A step's value, or its proven interval when only that is known ('[2, 5]', '≥ 2')."""
    lo, hi = s.get(key + "_lower"), s.get(key + "_upper")
    if s.get(key) is not None or lo is None:
        return _fmt(s.get(key), None)
    return f"≥ {lo}" if hi is None else f"[{lo}, {hi}]"


def _episode(run: Run, ep: dict, steps: list[dict]) -> str:
    ended = str(ep.get("ended"))
    h0 = ep.get("h_star_start", steps[0].get("h_star_before") if steps else None)
    head = (
        f"{escape(str(ep.get('episode')))} · {escape(str(ep.get('domain')))} · ended: {escape(ended)}"
        f" · {len(steps)} steps · h*(start) {_fmt(h0, None)}"
        + (f" · {escape(str(ep['error']))}" if ep.get("error") else "")
    )
    table = (
        "<table><thead><tr><th>step</th><th>reply</th><th>action</th><th>verdict</th><th>h* before</th>"
        "<th>h* after</th><th>regret</th><th>reason</th></tr></thead><tbody>"
        + "".join(_step_row(s) for s in steps)
        + "</tbody></table>"
    )
    return (
        f'<details data-row data-run="{escape(run.name, quote=True)}" data-ended="{escape(ended, quote=True)}" '
        f'data-domain="{escape(str(ep.get("domain")), quote=True)}"><summary>{escape(run.name)}: {head}'
        f"</summary>{table}</details>"
    )


def episode_list(runs: list[Run]) -> str:
    """Every episode of every run as a foldable step table; filterable by text, run, domain and ending."""
    blocks, n = [], 0
    for run in runs:
        steps: dict = {}
        for r in run.rows:
            if r.get("kind") == "step":
                steps.setdefault(r.get("episode"), []).append(r)
        for ep in (r for r in run.rows if r.get("kind") == "episode"):
            if n < EPISODE_ROWS:
                blocks.append(_episode(run, ep, steps.get(ep.get("episode"), [])))
            n += 1
    if not blocks:
        return ""
    eps = [r for run in runs for r in run.rows if r.get("kind") == "episode"]
    filters = (
        f'<div class="filters" data-filter="episodes"><input type="search" id="episode-filter" '
        f'placeholder="filter: any text (episode, action, reason...)">'
        f"{select_box('run', (run.name for run in runs))}"
        f"{select_box('domain', (str(e.get('domain')) for e in eps))}"
        f'{select_box("ended", (str(e.get("ended")) for e in eps))}<span class="count"></span></div>'
    )
    more = f'<p class="small">The first {EPISODE_ROWS} of {n} episodes are listed.</p>' if n > EPISODE_ROWS else ""
    return f'<h2>Episodes</h2>{filters}{more}<div id="episodes">{"".join(blocks)}</div>'


def section(runs: list[Run], reports: list[tuple[str, dict]]) -> str:
    """The page's Rollouts section: a summary table and the episodes (empty without runs or reports)."""
    if not runs and not reports:
        return ""
    return "<h2>Rollouts</h2>" + summary_table(runs, reports) + episode_list(runs)
