"""Scoring many responses: matching them to records, running (in parallel), summarising.

Responses are grouped by record so each record's question is built (and its truth computed) once;
groups are handed to worker processes largest-first. Every per-item problem (a record whose PDDL
does not load, a stored answer of the wrong shape, an internal error) becomes an item with
verdict 'error' and a reason, never a crash of the whole run.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

from ..answers import TASK_ALIASES, TASKS
from ..dataset import domain_name, task_of
from ..errors import AcpError
from .api import gold_response, grade
from .items import ERROR, ItemScore
from .question import question_of_record, record_where

_RESERVED = {"id", "group", "response", "model"}


# ---- inputs --------------------------------------------------------------------------------------

def read_responses(path) -> list[dict]:
    """JSONL rows with id, optional group, response, optional model (other fields pass through)."""
    p = Path(path)
    if not p.is_file():
        raise AcpError(f"no such file: {p}", "--responses")
    rows, problems = [], []
    with open(p, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"line {n}: invalid JSON ({e.msg}, column {e.colno})")
                continue
            if not isinstance(row, dict):
                problems.append(f"line {n}: expected a JSON object, got {type(row).__name__}")
                continue
            if "id" not in row:
                problems.append(f"line {n}: no 'id' field")
            elif "response" not in row:
                problems.append(f"line {n}: no 'response' field (id {row['id']!r})")
            elif not isinstance(row["response"], str):
                problems.append(f"line {n}: 'response' must be a string, got {type(row['response']).__name__} "
                                f"(id {row['id']!r})")
            else:
                row["_line"] = n
                rows.append(row)
            if len(problems) >= 20:
                break
    if problems:
        raise AcpError(f"{len(problems)} bad row(s): " + "; ".join(problems[:10]) +
                       (" ..." if len(problems) > 10 else ""), str(p),
                       "each line must be a JSON object like {\"id\": 123, \"response\": \"...\"}")
    if not rows:
        raise AcpError("no responses", str(p), "the file holds no JSON lines")
    return rows


def _task_key(group) -> str | None:
    if group is None:
        return None
    g = str(group).strip().lower()
    if g in TASKS:
        return g
    if g in TASK_ALIASES:
        return TASK_ALIASES[g]
    if g.startswith("acp_") and g.endswith("_gen") and g[4:-4] in TASKS:
        return g[4:-4]
    return "?" + g


class RecordIndex:
    """Records by (task, id) and by id alone."""

    def __init__(self, records: list[dict]):
        self.by_key: dict[tuple[str, str], dict] = {}
        self.by_id: dict[str, list[dict]] = defaultdict(list)
        for r in records:
            if not isinstance(r, dict) or "id" not in r or "group" not in r:
                raise AcpError("a record without 'id' or 'group'", "--data",
                               f"got {str(r)[:80]!r}; ACPBench Hard records carry id and group")
            t = task_of(r)
            self.by_key[(t, str(r["id"]))] = r
            self.by_id[str(r["id"])].append(r)

    def find(self, row: dict) -> tuple[dict | None, str]:
        rid = str(row["id"])
        t = _task_key(row.get("group"))
        if t is not None:
            if t.startswith("?"):
                return None, f"unknown group {row.get('group')!r}"
            r = self.by_key.get((t, rid))
            return r, "" if r else f"no {t} record with id {rid}"
        cands = self.by_id.get(rid, [])
        if len(cands) == 1:
            return cands[0], ""
        if not cands:
            return None, f"no record with id {rid}"
        return None, f"id {rid} matches {len(cands)} records ({', '.join(task_of(c) for c in cands)}); give a group"


def match(records: list[dict], rows: list[dict]) -> list[tuple[dict, dict]]:
    """(record, row) pairs; raises AcpError listing every row that matches no record."""
    index = RecordIndex(records)
    pairs, bad = [], []
    for row in rows:
        rec, why = index.find(row)
        if rec is None:
            bad.append(f"line {row.get('_line', '?')}: {why}")
        else:
            pairs.append((rec, row))
    if bad:
        raise AcpError(f"{len(bad)} response(s) match no record: " + "; ".join(bad[:12]) +
                       (f"; ... ({len(bad) - 12} more)" if len(bad) > 12 else ""), "--responses",
                       "check the ids (and groups) against the --data files")
    return pairs


def gold_rows(records: list[dict]) -> list[dict]:
    return [{"id": r["id"], "group": r["group"], "model": "gold", "response": gold_response(r)} for r in records]


# ---- scoring -------------------------------------------------------------------------------------

def _item_for(record: dict, row: dict, semantics: str) -> ItemScore:
    extra = {k: v for k, v in row.items() if k not in _RESERVED and not k.startswith("_")}
    try:
        kind = task_of(record)
    except AcpError:
        kind = "?"
    return ItemScore(id=record.get("id"), group=record.get("group"), task=kind, domain=domain_name(record),
                     model=row.get("model"), semantics=semantics, extra=extra)


def score_group(record: dict, rows: list[dict], semantics: str, budget, until: bool = True) -> list[ItemScore]:
    """Score every response to one record (its question is built once)."""
    out = []
    try:
        q = question_of_record(record, lazy=semantics == "reference")
        if semantics == "reference":
            from .api import _check_stored
            _check_stored(q, record_where(record))
        setup_error = None
    except AcpError as e:
        q, setup_error = None, str(e)
    except Exception as e:  # noqa: BLE001 - reported per item, never a crash
        q, setup_error = None, f"internal error while loading {record_where(record)}: {type(e).__name__}: {e}"
    for row in rows:
        item = _item_for(record, row, semantics)
        t0 = time.perf_counter()
        if q is None:
            item.score, item.verdict, item.reason = None, ERROR, setup_error
        else:
            try:
                res, parsed = grade(q, row["response"], semantics, budget, until)
                item.score, item.verdict, item.reason = res.score, res.verdict, res.reason
                item.witness, item.metrics, item.parsed = res.witness, res.metrics, parsed
            except AcpError as e:
                item.score, item.verdict, item.reason = None, ERROR, str(e)
            except Exception as e:  # noqa: BLE001
                tb = traceback.extract_tb(e.__traceback__)[-1]
                item.score, item.verdict = None, ERROR
                item.reason = (f"internal error (please report): {type(e).__name__}: {e} at "
                               f"{os.path.basename(tb.filename)}:{tb.lineno}")
        item.seconds = round(time.perf_counter() - t0, 6)
        out.append(item)
    return out


def _cost(record: dict) -> float:
    """A scheduling guess (largest first): nexta needs optimal planning, then searches, then the rest."""
    kind = task_of(record)
    size = len(record.get("PDDL_problem", "")) / 1000
    base = {"nexta": 100.0, "reach": 20.0, "areach": 20.0, "land": 10.0, "just": 2.0}.get(kind, 1.0)
    if kind == "nexta" and isinstance(record.get("answer"), dict):
        try:
            base *= 1 + int(record["answer"].get("opt") or 0) / 5
        except (TypeError, ValueError):
            pass
    return base * (1 + size)


def _worker(args):
    idx, record, rows, semantics, budget, until = args
    return idx, [it.to_dict() for it in score_group(record, rows, semantics, budget, until)]


def score_pairs(pairs: list[tuple[dict, dict]], semantics: str = "exact", budget=None, jobs: int = 1,
                until: bool = True, progress=None) -> list[dict]:
    """Score (record, row) pairs; returns item dicts in the order of `pairs`."""
    groups: dict[tuple, list[int]] = {}
    for i, (rec, _row) in enumerate(pairs):
        groups.setdefault((task_of(rec), str(rec["id"])), []).append(i)
    units = sorted(groups.values(), key=lambda ids: -_cost(pairs[ids[0]][0]))
    results: list[dict | None] = [None] * len(pairs)
    done = 0
    if jobs <= 1 or len(units) <= 1:
        for ids in units:
            items = score_group(pairs[ids[0]][0], [pairs[i][1] for i in ids], semantics, budget, until)
            for i, it in zip(ids, items):
                results[i] = it.to_dict()
            done += len(ids)
            if progress:
                progress(done, len(pairs))
        return results
    import multiprocessing as mp
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    work = [(k, pairs[ids[0]][0], [pairs[i][1] for i in ids], semantics, budget, until) for k, ids in enumerate(units)]
    with ctx.Pool(jobs) as pool:
        for k, items in pool.imap_unordered(_worker, work, chunksize=1):
            for i, it in zip(units[k], items):
                results[i] = it
            done += len(units[k])
            if progress:
                progress(done, len(pairs))
    return results


# ---- summaries -----------------------------------------------------------------------------------

def _stats(items: list[dict]) -> dict:
    known = [it for it in items if it.get("score") is not None]
    ones = sum(1 for it in known if it["score"] == 1)
    ious = [it["metrics"]["iou"] for it in items if isinstance(it.get("metrics"), dict)
            and isinstance(it["metrics"].get("iou"), (int, float))]
    verdicts: dict[str, int] = defaultdict(int)
    for it in items:
        verdicts[it.get("verdict", "?")] += 1
    secs = [it.get("seconds") or 0.0 for it in items]
    return {
        "n": len(items), "scored": len(known), "correct": ones,
        "accuracy": round(ones / len(known), 6) if known else None,
        "unknown": sum(1 for it in items if it.get("verdict") == "unknown"),
        "errors": sum(1 for it in items if it.get("verdict") == ERROR),
        "mean_iou": round(statistics.fmean(ious), 6) if ious else None,
        "verdicts": dict(sorted(verdicts.items())),
        "seconds_total": round(sum(secs), 3),
        "seconds_p50": round(statistics.median(secs), 6) if secs else None,
        "seconds_max": round(max(secs), 3) if secs else None,
    }


def summarize(items: list[dict]) -> dict:
    """{model: {"overall": stats, "tasks": {task: stats + {"domains": {domain: stats}}}}}"""
    by: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for it in items:
        m = str(it.get("model"))
        by[m][it.get("task")][it.get("domain")].append(it)
    out = {}
    for m, tasks in by.items():
        all_items = [it for doms in tasks.values() for lst in doms.values() for it in lst]
        tdict = {}
        for t in [t for t in TASKS if t in tasks] + sorted(t for t in tasks if t not in TASKS):
            doms = tasks[t]
            st = _stats([it for lst in doms.values() for it in lst])
            st["domains"] = {d: _stats(doms[d]) for d in sorted(doms, key=str)}
            tdict[t] = st
        out[m] = {"overall": _stats(all_items), "tasks": tdict}
    return out


def _cell(st: dict | None) -> str:
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
    chunks = [models[i:i + per_table] for i in range(0, len(models), per_table)] or [[]]
    out = []
    for k, chunk in enumerate(chunks):
        if len(chunks) > 1:
            out.append(f"models {k * per_table + 1}-{k * per_table + len(chunk)} of {len(models)}")
        out.append(_table(summary, chunk))
        out.append("")
    out.append("acc: accuracy over decided items; IoU: mean IoU (set answers: app, prog); unk: unknown "
               "(+ errors, marked !)")
    return "\n".join(out)


def _table(summary: dict, models: list[str]) -> str:
    rows: list[tuple[str, str, list]] = []
    tasks = [t for t in TASKS if any(t in summary[m]["tasks"] for m in models)]
    tasks += sorted({t for m in models for t in summary[m]["tasks"]} - set(tasks), key=str)
    for t in tasks:
        domains = sorted({d for m in models for d in summary[m]["tasks"].get(t, {}).get("domains", {})}, key=str)
        for d in domains:
            rows.append((t, str(d), [summary[m]["tasks"].get(t, {}).get("domains", {}).get(d) for m in models]))
        rows.append((t, "(all)", [summary[m]["tasks"].get(t) for m in models]))
    rows.append(("ALL", "", [summary[m]["overall"] for m in models]))
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


class Progress:
    """A progress bar on stderr (redrawn at most 10 times a second)."""

    def __init__(self, stream=None, enabled: bool = True):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if done < total and now - self.last < (0.1 if self.tty else 5.0):
            return
        self.last = now
        frac = done / total if total else 1.0
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        el = now - self.t0
        eta = el / frac - el if frac > 0 else math.nan
        msg = f"[{bar}] {done}/{total} responses  {el:6.1f}s" + (f"  ~{eta:.0f}s left" if done < total else "")
        if self.tty:
            self.stream.write("\r" + msg + ("\n" if done >= total else ""))
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()


# ---- plots ---------------------------------------------------------------------------------------

def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_plots(summary: dict, items: list[dict], folder) -> list[str]:
    """accuracy.png (accuracy per task: grouped bars, or a heat map when there are many models) and
    iou_<task>.png (IoU histograms of the set tasks, one outline per model)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    models = sorted(summary, key=lambda m: (m != "gold", m))
    tasks = [t for t in TASKS if any(t in summary[m]["tasks"] for m in models)]

    def acc(m, t):
        st = summary[m]["tasks"].get(t)
        return None if not st or st["accuracy"] is None else 100 * st["accuracy"]

    if len(models) <= 8:
        fig, ax = plt.subplots(figsize=(min(16, max(6, 0.9 * len(tasks) * max(1, len(models)) ** 0.5 + 2)), 4))
        width = 0.8 / max(1, len(models))
        for k, m in enumerate(models):
            xs = [i + k * width for i, t in enumerate(tasks) if acc(m, t) is not None]
            ax.bar(xs, [acc(m, t) for t in tasks if acc(m, t) is not None], width, label=m)
        ax.set_xticks([i + width * (len(models) - 1) / 2 for i in range(len(tasks))])
        ax.set_xticklabels(tasks)
        ax.set_ylabel("accuracy (%)")
        ax.set_ylim(0, 100)
        if len(models) > 1:
            ax.legend(fontsize="small", ncol=2)
    else:
        import numpy as np
        grid = np.array([[np.nan if acc(m, t) is None else acc(m, t) for t in tasks] for m in models])
        fig, ax = plt.subplots(figsize=(min(16, 2 + 1.1 * len(tasks)), min(40, 1 + 0.32 * len(models))))
        im = ax.imshow(grid, vmin=0, vmax=100, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(tasks)))
        ax.set_xticklabels(tasks)
        ax.set_yticks(range(len(models)))
        ax.set_yticklabels([m[:40] for m in models], fontsize="small")
        for i in range(len(models)):
            for j in range(len(tasks)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.0f}", ha="center", va="center", fontsize="x-small",
                            color="white" if grid[i, j] < 60 else "black")
        fig.colorbar(im, ax=ax, label="accuracy (%)")
    ax.set_title("Accuracy per task")
    fig.tight_layout()
    path = folder / "accuracy.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(str(path))
    for t in tasks:
        series = {}
        for m in models:
            vals = [it["metrics"]["iou"] for it in items if it.get("task") == t and str(it.get("model")) == m
                    and isinstance(it.get("metrics"), dict) and isinstance(it["metrics"].get("iou"), (int, float))]
            if vals:
                series[m] = vals
        if not series:
            continue
        shown = sorted(series, key=lambda m: -len(series[m]))[:8]
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        bins = [i / 10 for i in range(11)]
        for m in shown:
            ax.hist(series[m], bins=bins, histtype="step", linewidth=1.6, label=f"{m[:30]} (n={len(series[m])})")
        ax.set_xlabel("IoU with the true set")
        ax.set_ylabel("responses")
        more = f" (8 of {len(series)} models)" if len(series) > 8 else ""
        ax.set_title(f"{t}: IoU histogram{more}")
        ax.legend(fontsize="x-small")
        fig.tight_layout()
        path = folder / f"iou_{t}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(str(path))
    return written
