"""Reporting scored items: statistics per model x task x domain, the text table, the JSON report, plots."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

from ..answers import TASKS
from ..verdict import Grade

# set answers are graded with IoU; an unreadable answer to them has IoU 0 (it is no closer to the set)
SET_TASKS = frozenset({"app", "prog"})


def item_iou(item: dict) -> float | None:
    """The IoU an item counts with in means and histograms: its metric, or 0 for an unparsed
    answer to a set question (dropping those would let garbage raise the mean); None otherwise."""
    metrics = item.get("metrics")
    if isinstance(metrics, dict) and isinstance(metrics.get("iou"), (int, float)):
        return float(metrics["iou"])
    if item.get("task") in SET_TASKS and item.get("verdict") == Grade.UNPARSED:
        return 0.0
    return None


# ---- summaries -----------------------------------------------------------------------------------


def _stats(items: list[dict]) -> dict:
    """Counts, accuracy over decided items, mean IoU (unparsed set answers count 0), verdict counts
    and timing of `items`."""
    known = [it for it in items if it.get("score") is not None]
    ones = sum(1 for it in known if it["score"] == 1)
    ious = [v for v in map(item_iou, items) if v is not None]
    verdicts: dict[str, int] = defaultdict(int)
    for it in items:
        verdicts[it.get("verdict", "?")] += 1
    secs = [it.get("seconds") or 0.0 for it in items]
    return {
        "n": len(items),
        "scored": len(known),
        "correct": ones,
        "accuracy": round(ones / len(known), 6) if known else None,
        "unknown": sum(1 for it in items if it.get("verdict") == "unknown"),
        "retried": sum(1 for it in items if it.get("retried")),
        "errors": sum(1 for it in items if it.get("verdict") == Grade.ERROR),
        "mean_iou": round(statistics.fmean(ious), 6) if ious else None,
        "verdicts": dict(sorted(verdicts.items())),
        "seconds_total": round(sum(secs), 3),
        "seconds_p50": round(statistics.median(secs), 6) if secs else None,
        "seconds_max": round(max(secs), 3) if secs else None,
    }


def summarize(items: list[dict]) -> dict:
    """{model: {"overall": stats, "tasks": {task: stats + {"domains": {domain: stats}}}}}; the overall and
    task stats also say how many domains their items cover ("domain_count")."""
    grouped: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))  # model -> task -> domain -> items
    for it in items:
        grouped[str(it.get("model"))][it.get("task")][it.get("domain")].append(it)
    out = {}
    for model, tasks in grouped.items():
        all_items = [it for domains in tasks.values() for lst in domains.values() for it in lst]
        per_task = {}
        for t in [t for t in TASKS if t in tasks] + sorted(t for t in tasks if t not in TASKS):
            domains = tasks[t]
            st = _stats([it for lst in domains.values() for it in lst])
            st["domains"] = {d: _stats(domains[d]) for d in sorted(domains, key=str)}
            st["domain_count"] = len(domains)
            per_task[t] = st
        overall = {**_stats(all_items), "domain_count": len({d for domains in tasks.values() for d in domains})}
        out[model] = {"overall": overall, "tasks": per_task}
    return out


# ---- the text table ------------------------------------------------------------------------------


def _cell(st: dict | None) -> str:
    """One table cell: accuracy, mean IoU, unknown (+ errors) count, '!' when there are errors."""
    if not st:
        return ""
    acc = "   -  " if st["accuracy"] is None else f"{100 * st['accuracy']:5.1f}%"
    iou = "  -  " if st["mean_iou"] is None else f"{st['mean_iou']:.3f}"
    unk = st["unknown"] + st["errors"]
    return f"{acc} {iou} {unk:>3}{'!' if st['errors'] else ' '}"


def table(summary: dict, per_table: int = 4) -> str:
    """Accuracy, mean IoU and unknown count per task x domain, models side by side (`per_table`
    models per table; more models give more tables, one after the other)."""
    models = sorted(summary, key=lambda m: (m != "gold", m))
    chunks = [models[i : i + per_table] for i in range(0, len(models), per_table)] or [[]]
    out = []
    for k, chunk in enumerate(chunks):
        if len(chunks) > 1:
            out.append(f"models {k * per_table + 1}-{k * per_table + len(chunk)} of {len(models)}")
        out.append(_table(summary, chunk))
        out.append("")
    out.append(
        "acc: accuracy over decided items; IoU: mean IoU (set answers: app, prog); unk: unknown (+ errors, marked !)"
    )
    return "\n".join(out)


def _table(summary: dict, models: list[str]) -> str:
    """One table: a row per task x domain, a column per model."""
    rows: list[tuple[str, str, list]] = []
    tasks = [t for t in TASKS if any(t in summary[m]["tasks"] for m in models)]
    tasks += sorted({t for m in models for t in summary[m]["tasks"]} - set(tasks), key=str)
    for t in tasks:
        domains = sorted({d for m in models for d in summary[m]["tasks"].get(t, {}).get("domains", {})}, key=str)
        for d in domains:
            rows.append((t, str(d), [summary[m]["tasks"].get(t, {}).get("domains", {}).get(d) for m in models]))
        rows.append((t, f"(all: {_domains(len(domains))})", [summary[m]["tasks"].get(t) for m in models]))
    covered = max((summary[m]["overall"].get("domain_count") or 0 for m in models), default=0)
    rows.append(("ALL", _domains(covered), [summary[m]["overall"] for m in models]))
    w = 22
    head1 = f"{'task':7} {'domain':18} " + " ".join(f"{m[:w]:>{w}}" for m in models)
    head2 = f"{'':7} {'':18} " + " ".join(f"{'acc    IoU  unk':>{w}}" for _ in models)
    lines = [head1, head2, "-" * len(head1)]
    last = None
    for t, d, cells in rows:
        if last is not None and t != last:
            lines.append("")
        last = t
        lines.append((f"{t:7} {d[:18]:18} " + " ".join(f"{_cell(c):>{w}}" for c in cells)).rstrip())
    return "\n".join(lines)


def _domains(n: int) -> str:
    return f"{n} domain{'s' * (n != 1)}"


# ---- the JSON report ------------------------------------------------------------------------------


def json_report(
    summary: dict,
    items: list[dict],
    *,
    semantics: str,
    budget,
    jobs: int,
    data,
    responses,
    seconds: float,
    gold_check: dict | None = None,
) -> dict:
    """What --report writes: the run's settings and counts, and `summary` per model (see `summarize`)."""
    report = {
        "semantics": semantics,
        "budget": budget,
        "jobs": jobs,
        "data": data,
        "responses": responses,
        "items": len(items),
        "records": len({(it["task"], str(it["id"])) for it in items}),
        "seconds": round(seconds, 3),
        "unknown": sum(1 for it in items if it["verdict"] == "unknown"),
        "errors": sum(1 for it in items if it["verdict"] == Grade.ERROR),
        "models": summary,
    }
    if gold_check is not None:
        report["gold_check"] = gold_check
    return report


# ---- plots ---------------------------------------------------------------------------------------


def have_matplotlib() -> bool:
    """Whether matplotlib can be imported (the plots need it)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_plots(summary: dict, items: list[dict], folder) -> list[str]:
    """accuracy.png (accuracy per task: grouped bars, or a heat map when there are many models) and
    iou_<task>.png (IoU histograms of the set tasks, one outline per model); returns the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    models = sorted(summary, key=lambda m: (m != "gold", m))
    tasks = [t for t in TASKS if any(t in summary[m]["tasks"] for m in models)]

    def accuracy(m, t):
        st = summary[m]["tasks"].get(t)
        return None if not st or st["accuracy"] is None else 100 * st["accuracy"]

    def scored(m, t):
        return (summary[m]["tasks"].get(t) or {}).get("scored", 0)

    grid = [[accuracy(m, t) for t in tasks] for m in models]
    ns = [[scored(m, t) for t in tasks] for m in models]
    fig = (
        _accuracy_bars(plt, models, tasks, grid, ns)
        if len(models) <= 8
        else _accuracy_heat_map(plt, models, tasks, grid)
    )
    written = [_save(plt, fig, folder / "accuracy.png")]
    for t in tasks:
        fig = _iou_histogram(plt, t, models, items)
        if fig is not None:
            written.append(_save(plt, fig, folder / f"iou_{t}.png"))
    return written


def _save(plt, fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


def _accuracy_bars(plt, models: list[str], tasks: list[str], grid: list[list], ns: list[list]):
    """Grouped bars: one group per task, one bar per model (grid[model][task] is a percentage or None,
    ns[model][task] the decided items), each bar labelled with its value and n, 0% visible."""
    from ..util.barplots import labelled_bars

    fig, ax = plt.subplots(figsize=(min(16, max(6, 0.9 * len(tasks) * max(1, len(models)) ** 0.5 + 2)), 4.4))
    width = 0.8 / max(1, len(models))
    for k, (m, row, nrow) in enumerate(zip(models, grid, ns)):
        shown = [i for i, acc in enumerate(row) if acc is not None]
        labelled_bars(
            ax, [i + k * width for i in shown], [row[i] for i in shown], width, ns=[nrow[i] for i in shown], label=m
        )
    ax.set_xticks([i + width * (len(models) - 1) / 2 for i in range(len(tasks))])
    ax.set_xticklabels(tasks)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 112)
    if len(models) > 1:
        ax.legend(fontsize="small", ncol=2)
    ax.set_title("Accuracy per task")
    return fig


def _accuracy_heat_map(plt, models: list[str], tasks: list[str], grid: list[list]):
    """A models x tasks heat map with the percentage in each cell (for more models than bars can show)."""
    import numpy as np

    values = np.array([[np.nan if acc is None else acc for acc in row] for row in grid])
    fig, ax = plt.subplots(figsize=(min(16, 2 + 1.1 * len(tasks)), min(40, 1 + 0.32 * len(models))))
    im = ax.imshow(values, vmin=0, vmax=100, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(tasks)))
    ax.set_xticklabels(tasks)
    ax.set_yticks(range(len(models)))
    ax.set_yticklabels([m[:40] for m in models], fontsize="small")
    for i in range(len(models)):
        for j in range(len(tasks)):
            if not np.isnan(values[i, j]):
                ax.text(
                    j,
                    i,
                    f"{values[i, j]:.0f}",
                    ha="center",
                    va="center",
                    fontsize="x-small",
                    color="white" if values[i, j] < 60 else "black",
                )
    fig.colorbar(im, ax=ax, label="accuracy (%)")
    ax.set_title("Accuracy per task")
    return fig


def _iou_histogram(plt, task: str, models: list[str], items: list[dict]):
    """IoU histograms of one task, one outline per model (the 8 with most items); None without IoUs."""
    series = {}
    for m in models:
        vals = [
            v
            for it in items
            if it.get("task") == task and str(it.get("model")) == m
            for v in [item_iou(it)]
            if v is not None
        ]
        if vals:
            series[m] = vals
    if not series:
        return None
    shown = sorted(series, key=lambda m: -len(series[m]))[:8]
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    bins = [i / 10 for i in range(11)]
    for m in shown:
        ax.hist(series[m], bins=bins, histtype="step", linewidth=1.6, label=f"{m[:30]} (n={len(series[m])})")
    ax.set_xlabel("IoU with the true set")
    ax.set_ylabel("responses")
    more = f" (8 of {len(series)} models)" if len(series) > 8 else ""
    ax.set_title(f"{task}: IoU histogram{more}")
    ax.legend(fontsize="x-small")
    return fig
