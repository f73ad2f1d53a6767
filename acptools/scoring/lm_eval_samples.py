"""lm-evaluation-harness `--log_samples` files as scoring input, and lm-eval's own metric beside ours.

lm-eval writes one `samples_<task>_<date>.jsonl` per task under `<output_path>/<model>/`; each row
holds the record it asked about (`doc`: the Hugging Face ACPBench Hard row, PDDL included), the raw
generation (`resps`, a list of generations per request), what lm-eval's filter extracted from it
(`filtered_resps`) and its own metric (`metrics` names the fields, e.g. `score`). The record is the
row's doc, so no `--data` is needed; the task comes from the doc's group and must agree with the
file's task name (`acp_<task>_gen` or `acp_<task>_gen_with_pddl`, 2-shot or chat-templated alike).

By default the raw generation is graded (what the model said); `filtered=True` grades lm-eval's
filtered response (what its acp_utils scored), written back as answer text. Rows are parsed with
Python's json, so 64-bit ids stay exact; an id that arrives as a float is refused, because its
low bits are already gone.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from ..answers import canonical_task
from ..dataset import hub_record, task_of
from ..errors import AcpError

SAMPLES_FILE = re.compile(r"samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl")
RAW, FILTERED = "resps", "filtered_resps"
GRADED_HELP = {
    RAW: "the raw generation (resps); --filtered grades lm-eval's filtered_resps instead",
    FILTERED: "lm-eval's filtered response (filtered_resps, what its acp_utils scored), written as "
    "answer text; without --filtered the raw generation (resps) is graded",
}


def samples_files(paths) -> list[Path]:
    """The samples files named, and every `samples_acp_*.jsonl` below the folders named."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("samples_*.jsonl") if _lm_eval_task(f) is not None)
            if not found:
                raise AcpError(
                    "no ACPBench Hard samples files (samples_acp_<task>_gen*_<date>.jsonl) below it",
                    f"--lm-eval {p}",
                    "run lm-eval with --log_samples --output_path DIR, then pass DIR",
                )
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise AcpError(f"no such file or folder: {p}", "--lm-eval")
    return out


def _lm_eval_task(path: Path) -> str | None:
    """The lm-eval task a samples file is named after when it is an ACPBench Hard one, else None."""
    m = SAMPLES_FILE.fullmatch(path.name)
    if not m:
        return None
    try:
        canonical_task(m.group("task"))
    except ValueError:
        return None
    return m.group("task")


def model_of(path: Path) -> str:
    """The model lm-eval ran: `model_name` in the run's results file beside the samples file, else the
    folder lm-eval named after it (with '/' sanitised to '__')."""
    m = SAMPLES_FILE.fullmatch(path.name)
    if m:
        results = path.parent / f"results_{m.group('date')}.json"
        try:
            name = json.loads(results.read_text(encoding="utf-8")).get("model_name")
            if isinstance(name, str) and name:
                return name
        except (OSError, ValueError, AttributeError):
            pass
    return path.parent.name.replace("__", "/")


def read_samples(paths, *, filtered: bool = False, model: str | None = None) -> list[dict]:
    """Response rows (id, group, model, response and lm-eval's fields) from samples files, each with
    its record in `_record` (the doc, shaped as the bundled records are)."""
    rows: list[dict] = []
    for path in samples_files(paths):
        rows.extend(_file_rows(path, filtered, model or model_of(path)))
    if not rows:
        raise AcpError("no samples", "--lm-eval " + " ".join(map(str, paths)), "the files hold no rows")
    return rows


def _file_rows(path: Path, filtered: bool, model: str) -> list[dict]:
    lm_task = _lm_eval_task(path)
    if lm_task is None:
        raise AcpError(
            "not an lm-eval ACPBench Hard samples file (expected samples_acp_<task>_gen[_with_pddl]_<date>.jsonl)",
            str(path),
            "pass the files lm-eval --log_samples wrote for acp_*_gen tasks",
        )
    task = canonical_task(lm_task)
    out, seen = [], set()
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path} line {n}"
            sample = _parse_line(line, where)
            if sample["doc_id"] in seen and not filtered:
                continue  # one row per filter: the raw generation is graded once per doc
            seen.add(sample["doc_id"])
            record = _record_of(sample["doc"], task, lm_task, where)
            for k, text in enumerate(_texts(sample, task, filtered, where)):
                out.append(
                    {
                        "id": record["id"],
                        "group": record["group"],
                        "model": model,
                        "response": text,
                        "_record": record,
                        "_line": n,
                        "lm_eval_task": lm_task,
                        "doc_id": sample["doc_id"],
                        "repeat": k,
                        "filter": sample.get("filter"),
                        "graded": FILTERED if filtered else RAW,
                        "lm_eval_metrics": {m: sample.get(m) for m in sample.get("metrics") or ()},
                        "file": str(path),
                    }
                )
    return out


def _parse_line(line: str, where: str) -> dict:
    try:
        sample = json.loads(line)
    except json.JSONDecodeError as e:
        raise AcpError(f"invalid JSON ({e.msg}, column {e.colno})", where) from None
    if not isinstance(sample, dict):
        raise AcpError(f"expected a JSON object, got {type(sample).__name__}", where)
    missing = [k for k in ("doc_id", "doc", RAW, FILTERED) if k not in sample]
    if missing:
        raise AcpError(
            f"no {', '.join(missing)} field(s)",
            where,
            "lm-eval samples rows carry doc_id, doc, resps and filtered_resps (lm-eval --log_samples)",
        )
    return sample


def _record_of(doc, task: str, lm_task: str, where: str) -> dict:
    """The doc as a record; its group must be the file's task, its id an exact integer."""
    if not isinstance(doc, dict):
        raise AcpError(f"'doc' is not a JSON object ({type(doc).__name__})", where)
    if isinstance(doc.get("id"), float):
        raise AcpError(
            f"the doc's id {doc['id']!r} is a float: its low bits are lost (64-bit ids must not pass through a float)",
            where,
            "use the samples file as lm-eval wrote it, or rewrite it with "
            "an exact JSON tool (Python's json, not jq 1.6 or JavaScript)",
        )
    # a doc without a group (the Hub's rows may lack it) takes the file's task
    doc_task = task_of({"id": doc.get("id"), "group": doc["group"]}) if doc.get("group") else task
    if doc_task != task:
        raise AcpError(
            f"the doc's group {doc.get('group')!r} is task {doc_task}, but the file is {lm_task}",
            where,
            "pass the files as lm-eval named them",
        )
    try:
        return hub_record(doc, task)
    except AcpError as e:
        raise AcpError(f"the doc is not an ACPBench Hard record: {e}", where) from None


def _texts(sample: dict, task: str, filtered: bool, where: str) -> list[str]:
    """The text(s) to grade: every generation of the (single) request, or lm-eval's filtered response."""
    if filtered:
        value = sample[FILTERED]
        return [answer_text(task, value[0] if isinstance(value, list) and value else value)]
    resps = sample[RAW]
    gens = resps[0] if isinstance(resps, list) and resps and isinstance(resps[0], list) else resps
    if not isinstance(gens, list) or not gens or not all(isinstance(g, str) for g in gens):
        raise AcpError(f"'resps' is not a list of generations (got {str(resps)[:80]!r})", where)
    return gens


def answer_text(task: str, value) -> str:
    """lm-eval's filtered value (its grammar's parse, stringified by lm-eval) written as an answer:
    lists of actions as `[(a), (b)]`, prog's two lists side by side, anything else as it stands."""
    if value is None:
        return "None"
    if isinstance(value, list):
        if task == "prog" and len(value) == 2 and all(isinstance(v, list) for v in value):
            return " ".join(answer_text("app", v) for v in value)
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


# ---- lm-eval's metric beside ours --------------------------------------------------------------


def side_by_side(items: list[dict]) -> list[dict]:
    """Per samples file (model x lm-eval task x run): lm-eval's stored metric and our accuracy on the same docs (first
    generation of each doc only, since lm-eval scores that one), with where they disagree."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for it in items:
        if it.get("lm_eval_task") and it.get("repeat", 0) == 0:
            groups[(str(it.get("model")), it["lm_eval_task"], it.get("file"))].append(it)
    out = []
    for (model, lm_task, file), its in sorted(groups.items()):
        metric = next((m for it in its for m in it.get("lm_eval_metrics") or {}), None)
        theirs = [_number(it["lm_eval_metrics"].get(metric)) for it in its] if metric else []
        pairs = [(t, it["score"]) for t, it in zip(theirs, its) if t is not None and it["score"] is not None]
        known = [it["score"] for it in its if it["score"] is not None]
        out.append(
            {
                "model": model,
                "lm_eval_task": lm_task,
                "file": file,
                "n": len(its),
                "lm_eval_metric": metric,
                "lm_eval_mean": _mean([t for t in theirs if t is not None]),
                "exact_accuracy": _mean(known),
                "unknown": len(its) - len(known),
                "compared": len(pairs),
                "agree": sum(1 for t, s in pairs if t == s),
                "lm_eval_1_exact_0": sum(1 for t, s in pairs if t == 1 and s == 0),
                "lm_eval_0_exact_1": sum(1 for t, s in pairs if t == 0 and s == 1),
            }
        )
    return out


def _number(v) -> float | None:
    if isinstance(v, bool):
        return float(v)
    return float(v) if isinstance(v, (int, float)) else None


def _mean(xs) -> float | None:
    return round(sum(xs) / len(xs), 6) if xs else None


def side_by_side_table(rows: list[dict], semantics: str) -> str:
    """The side-by-side as text, one line per samples file."""
    ours = f"{semantics} acc"
    head = (
        f"{'model':24} {'lm-eval task':26} {'run':19} {'n':>4} {'lm-eval':>8} {ours:>10} {'unk':>4} {'agree':>7}  "
        f"{'1->0':>4} {'0->1':>4}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        pct = lambda v: "   -" if v is None else f"{100 * v:.1f}%"
        m = SAMPLES_FILE.fullmatch(Path(r["file"]).name) if r.get("file") else None
        run = m.group("date")[:19] if m else ""
        lines.append(
            f"{r['model'][:24]:24} {r['lm_eval_task'][:26]:26} {run:19} {r['n']:>4} "
            f"{pct(r['lm_eval_mean']):>8} "
            f"{pct(r['exact_accuracy']):>10} {r['unknown']:>4} {r['agree']:>3}/{r['compared']:<3}  "
            f"{r['lm_eval_1_exact_0']:>4} {r['lm_eval_0_exact_1']:>4}"
        )
    lines.append(
        f"lm-eval: its stored metric (mean); {ours}: accuracy over decided items; agree: same 0/1 on "
        f"docs both decided; 1->0 / 0->1: lm-eval scored 1 and we 0 / the other way round"
    )
    return "\n".join(lines)
