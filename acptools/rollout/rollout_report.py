"""Reporting rollouts from their trace rows: figures per domain and overall, a table, the JSON
report and PNG plots. Everything is computed from the rows, so a report can be rebuilt from a trace
file alone (`summarize(read_rows(path))`).

Step rates pool the steps of all episodes (each step counts once). Steps whose optimality is
unknown (their grading ran out of budget) are left out of optimal_step_rate and mean_regret and
counted in unknown_steps; episodes whose start h* is unknown are left out of plan_length_ratio
and counted in unknown_start.

Episodes of tasks with action costs (metric "cost") are measured in cost: their regrets are in
cost, and their solved plans' cost / h*(start) goes to plan_cost_ratio (never plan_length_ratio);
the figures of a run with such episodes carry "metric" ("cost", or "mixed" beside unit-cost ones).
A trace keeps a cost that is not whole as the exact text "n/d".
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path

from ..episode import APPLIED, VERDICTS
from .traces import DEAD_END, ENDINGS, EPISODE, ERROR, STEP

INVALID = tuple(v for v in VERDICTS if v != APPLIED)

DEFINITIONS = {
    "episodes": "episodes run (those whose task failed to load are counted in ended.error and nowhere else)",
    "solved_rate": "episodes that reached the goal / episodes",
    "dead_end_episodes": "episodes that ended at a dead end (no action applies, or the goal is proven out of reach)",
    "optimal_step_rate": "applied steps with regret 0 / applied steps whose optimality is known",
    "mean_regret": "mean of cost(action) + h*(after) - h*(before) over applied steps with a known regret (each "
    "action costs 1 unless the task has action costs; a step into a dead end has none: see dead_end_steps)",
    "plan_length_ratio": "mean of plan length / h*(start) over solved episodes with h*(start) known and > 0",
    "plan_cost_ratio": "tasks with action costs: mean of plan cost / h*(start) over such solved episodes",
    "invalid": "replies not applied, by kind: inapplicable, unparsed (no action found), hallucinated (a name "
    "the task does not have)",
    "unknown_steps": "applied steps whose optimality could not be decided within the grading budget",
    "unknown_start": "episodes whose start h* could not be computed within the grading budget",
    "tokens_per_step": "mean input / output tokens per step, over steps whose policy reported them",
    "seconds_per_step": "mean seconds the policy took per reply",
    "harness_seconds_p50": "median seconds per step spent outside the policy (observation, grading, traces)",
}


def _mean(values) -> float | None:
    values = list(values)
    return round(statistics.fmean(values), 6) if values else None


def _median(values) -> float | None:
    values = list(values)
    return round(statistics.median(values), 6) if values else None


def _number(value) -> float:
    """A cost from a trace row (an int, a Fraction, or its text "n/d") as a float for the figures."""
    return float(Fraction(str(value)))


def _metric_figures(ran: list[dict]) -> dict:
    """The metric and plan_cost_ratio of a run with cost episodes ({} without: unit-cost reports stay as they are)."""
    costed = [e for e in ran if e.get("metric") == "cost"]
    if not costed:
        return {}
    return {
        "metric": "cost" if len(costed) == len(ran) else "mixed",
        "plan_cost_ratio": _mean(_number(e["length_ratio"]) for e in costed if e.get("length_ratio") is not None),
    }


def _stats(episodes: list[dict], steps: list[dict]) -> dict:
    ran = [e for e in episodes if e.get("ended") != ERROR]
    applied = [s for s in steps if s["verdict"] == APPLIED]
    decided = [s for s in applied if s.get("known")]
    verdicts = Counter(s["verdict"] for s in steps)
    ended = Counter(e.get("ended") for e in episodes)
    tokens = [s for s in steps if s.get("input_tokens") is not None or s.get("output_tokens") is not None]
    solved = sum(1 for e in ran if e.get("solved"))
    return {
        "episodes": len(ran),
        "solved": solved,
        "solved_rate": round(solved / len(ran), 6) if ran else None,
        "dead_end_episodes": ended.get(DEAD_END, 0),
        "steps": len(steps),
        "applied_steps": len(applied),
        "optimal_steps": sum(1 for s in decided if s["optimal"]),
        "optimal_step_rate": round(sum(1 for s in decided if s["optimal"]) / len(decided), 6) if decided else None,
        "mean_regret": _mean(_number(s["regret"]) for s in decided if s["regret"] is not None),
        "dead_end_steps": sum(1 for s in decided if s["regret"] is None and s["optimal"] is False),
        "plan_length_ratio": _mean(
            e["length_ratio"] for e in ran if e.get("length_ratio") is not None and e.get("metric") != "cost"
        ),
        **_metric_figures(ran),
        "invalid": {v: verdicts.get(v, 0) for v in INVALID},
        "invalid_rate": round(sum(verdicts.get(v, 0) for v in INVALID) / len(steps), 6) if steps else None,
        "unknown_steps": len(applied) - len(decided),
        "unknown_start": sum(1 for e in ran if "h_star_known" in e and not e["h_star_known"]),
        "ended": {k: ended.get(k, 0) for k in ENDINGS},
        "tokens_per_step": {
            "input": _mean(s.get("input_tokens") or 0 for s in tokens),
            "output": _mean(s.get("output_tokens") or 0 for s in tokens),
        }
        if tokens
        else None,
        "seconds_per_step": _mean(s["seconds"] for s in steps),
        "grading_seconds_p50": _median(s["grading_seconds"] for s in steps),
        "harness_seconds_p50": _median(s["harness_seconds"] for s in steps),
    }


def summarize(rows: list[dict]) -> dict:
    """{"overall": stats, "by_domain": {domain: stats}} from trace rows (see DEFINITIONS)."""
    episodes = [r for r in rows if r.get("kind") == EPISODE]
    finished = {e["episode"] for e in episodes}
    steps = [r for r in rows if r.get("kind") == STEP and r["episode"] in finished]
    by_domain: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
    for e in episodes:
        by_domain[e["domain"]][0].append(e)
    for s in steps:
        by_domain[s["domain"]][1].append(s)
    return {"overall": _stats(episodes, steps), "by_domain": {d: _stats(*by_domain[d]) for d in sorted(by_domain)}}


def json_report(summary: dict, settings: dict, tasks: list[str], seconds: float) -> dict:
    """What --report writes: the settings, the figures overall and per domain, their definitions."""
    return {"settings": settings, "tasks": tasks, "seconds": round(seconds, 3), **summary, "definitions": DEFINITIONS}


# ---- the text table ------------------------------------------------------------------------------


def _pct(x) -> str:
    return "  -  " if x is None else f"{100 * x:5.1f}"


def _num(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def table(summary: dict) -> str:
    """The summary as a text table, a row per domain and one for all."""
    head = (
        f"{'domain':20} {'eps':>4} {'solved%':>7} {'dead':>4} {'opt%':>6} {'regret':>6} {'len/h*':>6} "
        f"{'inapp':>5} {'unpars':>6} {'halluc':>6} {'unk':>4} {'tok/step':>9} {'s/step':>7}"
    )
    lines = [head, "-" * len(head)]
    rows = list(summary["by_domain"].items()) + [("ALL", summary["overall"])]
    for name, st in rows:
        if name == "ALL":
            lines.append("-" * len(head))
        tok = st["tokens_per_step"]
        tok = "-" if tok is None else f"{tok['input'] or 0:.0f}+{tok['output'] or 0:.0f}"
        inv = st["invalid"]
        lines.append(
            f"{name[:20]:20} {st['episodes']:>4} {_pct(st['solved_rate']):>7} "
            f"{st.get('dead_end_episodes', 0):>4} {_pct(st['optimal_step_rate']):>6} "
            f"{_num(st['mean_regret'], '.2f'):>6} "
            f"{_num(_ratio(st), '.2f'):>6} {inv['inapplicable']:>5} {inv['unparsed']:>6} "
            f"{inv['hallucinated']:>6} {st['unknown_steps']:>4} {tok:>9} "
            f"{_num(st['seconds_per_step'], '.3f'):>7}"
        )
    lines.append(
        "dead: episodes ended at a dead end; opt%: optimal steps / applied steps of known optimality; "
        "regret: mean over applied steps; "
        "len/h*: plan length / h* of solved episodes; unk: applied steps of unknown optimality"
    )
    if "metric" in summary["overall"]:
        lines.append("tasks with action costs: regret and len/h* are in cost (plan cost / h*)")
    return "\n".join(lines)


def _ratio(st: dict) -> float | None:
    """A row's plan / h* figure: in cost when all its episodes are measured in cost."""
    return st.get("plan_cost_ratio") if st.get("metric") == "cost" else st["plan_length_ratio"]


# ---- plots ---------------------------------------------------------------------------------------


def write_plots(summary: dict, rows: list[dict], folder) -> list[str]:
    """rates.png (solved and optimal-step rate per domain), verdicts.png (what became of the
    replies, per domain) and regret.png (how many applied steps had each regret); the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    domains = list(summary["by_domain"])
    written = []
    for name, draw in (("rates.png", _rates), ("verdicts.png", _verdicts), ("regret.png", _regret)):
        fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(domains) + 3), 4))
        draw(ax, summary, rows)
        fig.tight_layout()
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
        written.append(str(folder / name))
    return written


def _rates(ax, summary: dict, rows: list[dict]) -> None:
    names = list(summary["by_domain"]) + ["ALL"]
    stats = list(summary["by_domain"].values()) + [summary["overall"]]
    from ..util.barplots import labelled_bars

    figures = (("solved_rate", "solved", "episodes"), ("optimal_step_rate", "optimal steps", "applied_steps"))
    for k, (key, label, n_key) in enumerate(figures):
        shown = [i for i, st in enumerate(stats) if st[key] is not None]  # no bar where the rate is undefined
        ns = [
            stats[i]["episodes"] if n_key == "episodes" else stats[i]["applied_steps"] - stats[i]["unknown_steps"]
            for i in shown
        ]
        labelled_bars(ax, [i + 0.4 * k for i in shown], [100 * stats[i][key] for i in shown], 0.4, ns=ns, label=label)
    ax.set_xticks([i + 0.2 for i in range(len(names))])
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("%")
    ax.set_ylim(0, 115)
    ax.legend(fontsize="small")
    ax.set_title("Solved episodes and optimal steps per domain")


def _verdicts(ax, summary: dict, rows: list[dict]) -> None:
    names = list(summary["by_domain"])
    stats = list(summary["by_domain"].values())
    bottom = [0.0] * len(names)
    for v in VERDICTS:
        counts = [st["applied_steps"] if v == APPLIED else st["invalid"][v] for st in stats]
        shares = [100 * c / st["steps"] if st["steps"] else 0 for c, st in zip(counts, stats, strict=True)]
        ax.bar(range(len(names)), shares, 0.6, bottom=bottom, label=v)
        bottom = [b + s for b, s in zip(bottom, shares, strict=True)]
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([f"{n}\nn={st['steps']}" for n, st in zip(names, stats, strict=True)], rotation=30, ha="right")
    ax.set_ylabel("% of replies")
    ax.legend(fontsize="small")
    ax.set_title("What became of the replies")


def _regret(ax, summary: dict, rows: list[dict]) -> None:
    steps = [r for r in rows if r.get("kind") == STEP and r["verdict"] == APPLIED and r.get("known")]
    counts = Counter("dead end" if s["regret"] is None else str(s["regret"]) for s in steps)
    labels = sorted((k for k in counts if k != "dead end"), key=Fraction) + (
        ["dead end"] if "dead end" in counts else []
    )
    from ..util.barplots import labelled_bars

    labelled_bars(
        ax, list(range(len(labels))), [counts[k] for k in labels], 0.6, fmt="{}", top=max(counts.values(), default=1)
    )
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_xlabel("regret of the step (cost of the action + h* after - h* before)")
    ax.set_ylabel("applied steps")
    ax.set_title(f"Regret of applied steps (unknown: {summary['overall']['unknown_steps']})")
