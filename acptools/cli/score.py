"""`acptools score`: grade free-text answers to records, exactly (or by the published rules).

    acptools score --data SOURCE... --responses R.jsonl [--semantics exact|reference] [--out items.jsonl]
                   [--report report.json] [--plots DIR] [--html report.html] [--jobs N] [--budget SECONDS]
                   [--resume | --force]
    acptools score --data SOURCE... --gold         # the stored answers, written as text
    acptools score --lm-eval FILE_OR_DIR... [--filtered] [--model NAME]   # lm-eval --log_samples files
    (SOURCE: acpbench-hard[:dev|test][:TASK], the bundled copy; hf:acpbench-hard[...], the Hugging Face
     copy, needs `pip install 'acptools[hf]'`; or files and folders of records)

Exit codes: 0 done; 1 --gold found a stored answer that is neither correct nor a proven data error,
or some item ended unknown or in error; 2 bad input (the message says what, where, and what to do);
130 interrupted (the items scored so far are in --out; the message gives the command that resumes).
"""

from __future__ import annotations

import json
import time

from ..errors import AcpError
from ..util.progress import Progress
from ..util.runfile import RunFile, rewrite
from .common import (
    EXIT_CHECK,
    EXIT_OK,
    backend_flags,
    cache_flags,
    check_outputs,
    check_resume,
    fail,
    html_flag,
    interrupted,
    open_cache,
    write_html,
)


def add_parser(sub):
    """Register `acptools score`."""
    s = sub.add_parser(
        "score",
        help="grade free-text answers to ACPBench Hard records",
        description="Grade free-text answers to the 8 ACPBench Hard tasks (exactly, with partial "
        "credit and reasons); prints accuracy, mean IoU and unknowns per task x domain.",
    )
    (
        s.add_argument(
            "--data",
            nargs="+",
            action="extend",
            metavar="SOURCE",
            help="acpbench-hard[:dev|test][:TASK] (the bundled ACPBench Hard copy, e.g. acpbench-hard:test), "
            "hf:acpbench-hard[...] (from the Hugging Face Hub; pip install 'acptools[hf]'), "
            "or files or folders of records (JSON arrays, JSONL, .json.gz, .jsonl.gz); "
            "needed except with --lm-eval, whose rows carry their records",
        ),
    )
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--responses", metavar="R.jsonl", help="JSONL rows {id, group (optional), response, model (optional), ...}"
    )
    src.add_argument("--gold", action="store_true", help="score each record's stored answer written as text")
    src.add_argument(
        "--lm-eval",
        nargs="+",
        metavar="FILE",
        dest="lm_eval",
        help="lm-eval --log_samples files (samples_acp_<task>_gen[_with_pddl]_<date>.jsonl) or folders "
        "holding them; each row's doc is its record (with --data: matched against those records)",
    )
    s.add_argument(
        "--filtered",
        action="store_true",
        help="--lm-eval: grade lm-eval's filtered_resps (what its scorer saw) instead of the raw resps",
    )
    s.add_argument("--model", metavar="NAME", help="--lm-eval: the model name (default: from the files' folder)")
    s.add_argument(
        "--semantics",
        choices=("exact", "reference"),
        default="exact",
        help="exact: computed from the PDDL (default); reference: the published lm-eval scorer",
    )
    s.add_argument(
        "--out",
        metavar="items.jsonl",
        help="one JSON row per response, written as each record is scored (its settings in items.jsonl.run.json)",
    )
    s.add_argument(
        "--resume",
        action="store_true",
        help="keep the items already in --out and score only the rest (refused if a setting or the responses differ)",
    )
    s.add_argument("--force", action="store_true", help="overwrite an existing --out")
    s.add_argument("--report", metavar="report.json", help="summary per model x task x domain")
    s.add_argument("--plots", metavar="DIR", help="PNG charts (needs matplotlib)")
    html_flag(s)
    s.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    s.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="CPU seconds per proof (default 60; effort, not wall time, so a busy machine gives "
        "the same verdicts); items still unknown are graded again with 4x the effort, "
        "one at a time, before 'unknown' is reported",
    )
    s.add_argument(
        "--no-until", action="store_true", help="reference semantics: do not cut responses at lm-eval's stop strings"
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    cache_flags(s)
    backend_flags(s)
    return s


def _check_sources(args) -> None:
    check_resume(args, "score")
    if args.lm_eval is None and not args.data:
        raise AcpError(
            "--data is required (the records the responses answer)",
            "acptools score",
            "pass --data acpbench-hard:test (the bundled copy), or files or folders of records",
        )
    if args.lm_eval is None and (args.filtered or args.model):
        raise AcpError(
            f"{'--filtered' if args.filtered else '--model'} only applies to --lm-eval input",
            "acptools score",
            "drop it, or pass --lm-eval FILE...",
        )


def _records(args) -> list[dict]:
    from ..dataset import load_records

    records = load_records(*args.data)
    if not records:
        raise AcpError(
            "no records found",
            "--data " + " ".join(args.data),
            "pass acpbench-hard:test (the bundled copy), or ACPBench Hard .json/.jsonl/.json.gz "
            "files or folders holding them",
        )
    return records


def _pairs(args) -> list[tuple[dict, dict]]:
    """(record, response row) pairs from --responses, --gold or --lm-eval (see the module docstring)."""
    from ..scoring import batch, lm_eval_samples

    if args.lm_eval is not None:
        rows = lm_eval_samples.read_samples(args.lm_eval, filtered=args.filtered, model=args.model)
        if not args.data:
            return [(row.pop("_record"), row) for row in rows]
        for row in rows:
            row.pop("_record")
        return batch.match(_records(args), rows)
    records = _records(args)
    if args.gold:
        return batch.match(records, batch.gold_rows(records))
    rows, problems = batch.read_response_rows(args.responses)
    if not rows and not problems:
        raise AcpError("no responses", str(args.responses), "the file holds no JSON lines")
    return batch.match(records, rows, problems, where=str(args.responses))


def _settings(args) -> dict:
    """What changes the items, by flag (a resumed run must match): the responses by their content."""
    digest = None
    if args.responses:
        import hashlib

        with open(args.responses, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    return {
        "--data": args.data,
        "--responses": args.responses,
        "responses sha256": digest,
        "--gold": args.gold,
        "--lm-eval": args.lm_eval,
        "--filtered": args.filtered,
        "--model": args.model,
        "--semantics": args.semantics,
        "--budget": args.budget,
        "--no-until": args.no_until,
    }


def _key(task, rid, model) -> tuple:
    return str(task), str(rid), model


def _already_scored(pairs, rows: list[dict]) -> tuple[set[int], dict[int, dict]]:
    """Which pairs a resumed run's items answer (matched by task, id and model, as many times as
    they occur), and those items by pair index."""
    from ..dataset import task_of

    waiting: dict[tuple, list[dict]] = {}
    for it in rows:
        waiting.setdefault(_key(it.get("task"), it.get("id"), it.get("model")), []).append(it)
    kept = {}
    for i, (rec, row) in enumerate(pairs):
        try:
            kind = task_of(rec)
        except AcpError:
            kind = "?"
        queue = waiting.get(_key(kind, rec.get("id"), row.get("model")))
        if queue:
            kept[i] = queue.pop(0)
    return set(kept), kept


def _interrupted(args, items: list[dict], total: int, t0: float) -> int:
    """Ctrl-C: the table of what was scored, and the exact command that goes on from there."""
    from ..scoring import score_report

    table = score_report.table(score_report.summarize(items)) if items else ""
    return interrupted(args, table, len(items), total, "responses scored", "items", t0)


def run(args) -> int:
    """Grade the responses, print the table, write --out, --report and --plots."""
    from ..scoring import batch, score_report
    from ..verdict import Grade

    t0 = time.perf_counter()
    open_cache(args)
    try:
        check_outputs(args)
        _check_sources(args)
        pairs = _pairs(args)
    except AcpError as e:
        return fail(e)
    except OSError as e:
        return fail(AcpError(f"{e.strerror or e}", str(e.filename or "input")))
    progress = Progress(enabled=not args.quiet)
    try:
        out = RunFile(args.out, "score", _settings(args), resume=args.resume, force=args.force)
    except AcpError as e:
        return fail(e)
    except OSError as e:
        return fail(AcpError(f"cannot write: {e.strerror or e}", f"--out {args.out}"))
    try:
        skip, kept = _already_scored(pairs, out.rows)
        fresh = batch.score_pairs(
            pairs,
            args.semantics,
            args.budget,
            args.jobs,
            until=not args.no_until,
            progress=progress,
            backend=args.backend,
            address=args.address,
            skip=skip,
            on_items=lambda done: [out.write(it) for it in done],
        )
    except AcpError as e:  # e.g. every attempt of a Ray task died: what finished is in --out
        out.close()
        return fail(e, args)
    except KeyboardInterrupt:
        out.close()
        return _interrupted(args, out.rows, len(pairs), t0)
    out.close()
    items = [kept[i] if i in kept else it for i, it in enumerate(fresh)]
    if args.out:
        rewrite(args.out, items)  # the order of the responses, as an uninterrupted run writes it
    wall = time.perf_counter() - t0
    summary = score_report.summarize(items)
    print(score_report.table(summary))
    lm_eval = _print_lm_eval(args, items)
    unknown = sum(1 for it in items if it["verdict"] == "unknown")
    retried = sum(1 for it in items if it.get("retried"))
    errors = [it for it in items if it["verdict"] == Grade.ERROR]
    print(
        f"\n{len(items)} responses to {len({(it['task'], str(it['id'])) for it in items})} records scored with "
        f"{args.semantics} semantics in {wall:.1f} s (--jobs {args.jobs}); unknown: {unknown} (after grading "
        f"{retried} again with more effort); errors: {len(errors)}"
    )
    for it in errors[:10]:
        print(f"  error: {it['task']}/{it['id']} ({it.get('model')}): {it['reason']}")
    if len(errors) > 10:
        print(f"  ... and {len(errors) - 10} more errors (see --out)")
    status = EXIT_CHECK if unknown or errors else EXIT_OK
    gold = None
    if args.gold:
        gold = _gold_check(items, args.semantics)
        if gold["unexplained"]:
            status = EXIT_CHECK
    try:
        if args.out:
            print(f"items -> {args.out}")
        if args.report:
            doc = score_report.json_report(
                summary,
                items,
                semantics=args.semantics,
                budget=args.budget,
                jobs=args.jobs,
                data=args.data,
                responses="gold" if args.gold else args.responses or args.lm_eval,
                seconds=wall,
                gold_check=gold,
            )
            if lm_eval is not None:
                doc["lm_eval"] = lm_eval
            with open(args.report, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1, default=str)
            print(f"report -> {args.report}")
        if args.plots:
            written = score_report.write_plots(summary, items, args.plots)
            print(f"plots -> {', '.join(written)}")
        write_html(args, items=items, source=args.out or "")
    except OSError as e:
        return fail(AcpError(f"cannot write: {e.strerror or e}", str(e.filename or "output")))
    return status


def _print_lm_eval(args, items: list[dict]) -> dict | None:
    """--lm-eval: say which text was graded, and lm-eval's own metric beside ours per task."""
    if args.lm_eval is None:
        return None
    from ..scoring import lm_eval_samples as les

    graded = les.FILTERED if args.filtered else les.RAW
    rows = les.side_by_side(items)
    print(f"\nlm-eval samples: graded {les.GRADED_HELP[graded]}")
    if any(r["lm_eval_metric"] for r in rows):
        print(les.side_by_side_table(rows, args.semantics))
    return {"graded": graded, "side_by_side": rows}


def _gold_check(items: list[dict], semantics: str) -> dict:
    """Every stored answer must score 1, unless the library refutes it with a proof (a data error)."""
    ok = [it for it in items if it["score"] == 1]
    refuted = [it for it in items if it["score"] == 0 and it["verdict"] not in ("unparsed", "hallucinated")]
    other = [
        it
        for it in items
        if not it["score"] == 1 and not (it["score"] == 0 and it["verdict"] not in ("unparsed", "hallucinated"))
    ]
    if semantics != "exact":  # the reference reads the stored answer as the truth: nothing can refute it
        other, refuted = other + refuted, []
    n = len(items)
    print(f"\ngold check: {len(ok)}/{n} stored answers score 1 ({100 * len(ok) / n:.1f}%)")
    if refuted:
        print(
            f"{len(refuted)} stored answer(s) are refuted by proof (data errors in the records, not scorer "
            f"failures); {len(ok)}/{n - len(refuted)} = 100% of the rest score 1"
            if not other
            else f"{len(refuted)} stored answer(s) are refuted by proof (data errors):"
        )
        for it in refuted:
            print(
                f"  data error: {it['task']}/{it['id']} ({it['domain']}): stored {json.dumps(it['parsed'])[:80]}"
                f" -> {it['verdict']}: {it['reason'][:160]}"
            )
    for it in other:
        print(f"  NOT OK: {it['task']}/{it['id']} ({it['domain']}): {it['verdict']}: {it['reason'][:200]}")
    return {
        "n": n,
        "correct": len(ok),
        "data_errors": [
            {
                "task": it["task"],
                "id": it["id"],
                "domain": it["domain"],
                "verdict": it["verdict"],
                "reason": it["reason"],
            }
            for it in refuted
        ],
        "unexplained": len(other),
    }
