"""The `acptools` command line: score model answers, roll out policies, run the demo, list the examples.

    acptools score --data SOURCE... --responses R.jsonl [--semantics exact|reference] [--out items.jsonl]
                   [--report report.json] [--plots DIR] [--jobs N] [--budget SECONDS]
    acptools score --data SOURCE... --gold         # the stored answers, written as text
    acptools score --lm-eval FILE_OR_DIR... [--filtered] [--model NAME]   # lm-eval --log_samples files
    (SOURCE: acpbench-hard[:dev|test][:TASK], the bundled copy; hf:acpbench-hard[...], the Hugging Face
     copy, needs `pip install 'acptools[hf]'`; or files and folders of records)
    acptools rollout --tasks PATH... --policy POLICY [...]   # a policy's episodes, graded step by step
                                                             # (acptools.rollout.cli; docs/evaluating.md)
    acptools generate --domain D --problem P... [--form hard|bool|mcq|arb] [--tasks ...] [-n N] [--seed S]
                      --out records.jsonl [--nl TEMPLATES.json]   # see acptools/generate/cli.py
    acptools demo [--example NAME] [--budget S]
    acptools examples

Exit codes: 0 done; 1 --gold found a stored answer that is neither correct nor a proven data error,
or some item ended unknown or in error; 2 bad input (the message says what, where, and what to do).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import examples
from .errors import AcpError
from .rollout import cli as rollout_cli
from .generate import cli as generate_cli

EXIT_OK, EXIT_CHECK, EXIT_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's usage errors: exit 2 with a clear line, as ours do
        self.print_usage(sys.stderr)
        sys.stderr.write(f"acptools: error: {message}\n")
        raise SystemExit(EXIT_INPUT)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="acptools", description="Proven answers about PDDL planning tasks; a scorer for model answers.")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    s = sub.add_parser("score", help="grade free-text answers to ACPBench Hard records",
                       description="Grade free-text answers to the 8 ACPBench Hard tasks (exactly, with partial "
                                   "credit and reasons); prints accuracy, mean IoU and unknowns per task x domain.")
    s.add_argument("--data", nargs="+", action="extend", metavar="SOURCE",
                   help="acpbench-hard[:dev|test][:TASK] (the bundled ACPBench Hard copy, e.g. acpbench-hard:test), "
                        "hf:acpbench-hard[...] (from the Hugging Face Hub; pip install 'acptools[hf]'), "
                        "or files or folders of records (JSON arrays, JSONL, .json.gz, .jsonl.gz); "
                        "needed except with --lm-eval, whose rows carry their records"),
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--responses", metavar="R.jsonl",
                     help="JSONL rows {id, group (optional), response, model (optional), ...}")
    src.add_argument("--gold", action="store_true", help="score each record's stored answer written as text")
    src.add_argument("--lm-eval", nargs="+", metavar="FILE", dest="lm_eval",
                     help="lm-eval --log_samples files (samples_acp_<task>_gen[_with_pddl]_<date>.jsonl) or folders "
                          "holding them; each row's doc is its record (with --data: matched against those records)")
    s.add_argument("--filtered", action="store_true",
                   help="--lm-eval: grade lm-eval's filtered_resps (what its scorer saw) instead of the raw resps")
    s.add_argument("--model", metavar="NAME", help="--lm-eval: the model name (default: from the files' folder)")
    s.add_argument("--semantics", choices=("exact", "reference"), default="exact",
                   help="exact: computed from the PDDL (default); reference: the published lm-eval scorer")
    s.add_argument("--out", metavar="items.jsonl", help="one JSON row per response")
    s.add_argument("--report", metavar="report.json", help="summary per model x task x domain")
    s.add_argument("--plots", metavar="DIR", help="PNG charts (needs matplotlib)")
    s.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    s.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="CPU seconds per proof (default 60; effort, not wall time, so a busy machine gives "
                        "the same verdicts); items still unknown are graded again with 4x the effort, "
                        "one at a time, before 'unknown' is reported")
    s.add_argument("--no-until", action="store_true",
                   help="reference semantics: do not cut responses at lm-eval's stop strings")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    _cache_flags(s)
    _backend_flags(s)
    c = sub.add_parser("cache", help="the proof store: statistics, verification, clearing",
                       description="Proven truths are kept in an SQLite file and reused by later runs.")
    c.add_argument("action", choices=("stats", "verify", "clear"))
    c.add_argument("--cache", metavar="PATH", default="default", help="the store (default: the user cache dir)")
    c.add_argument("--sample", type=int, default=50, metavar="N", help="verify: how many facts to prove again")
    c.add_argument("--budget", type=float, default=60.0, metavar="S", help="verify: seconds per proof")
    r = rollout_cli.add_parser(sub)
    _cache_flags(r)
    _backend_flags(r)
    d = sub.add_parser("demo", help="answer all eight questions about a bundled example task")
    d.add_argument("--example", default=examples.DEFAULT, metavar="NAME", help="a bundled example (see `acptools examples`)")
    d.add_argument("--budget", type=float, default=60.0, metavar="S", help="seconds per question")
    sub.add_parser("examples", help="list the bundled example tasks")
    _backend_flags(generate_cli.add_parser(sub))
    return p


def _backend_flags(p: argparse.ArgumentParser) -> None:
    """--backend local|ray and --address: where batch work runs (acptools.backends)."""
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local worker processes (default) or Ray tasks (pip install 'acptools[ray]')")
    p.add_argument("--address", metavar="ADDR", help="--backend ray: a running Ray cluster (default: start one "
                                                     "here with --jobs CPUs)")


def _cache_flags(p: argparse.ArgumentParser) -> None:
    """--cache PATH / --no-cache: where proven truths are kept and reused between runs."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--cache", metavar="PATH", default="default",
                   help="the proof store (default: <user cache dir>/acptools/proofs.sqlite, or $ACPTOOLS_CACHE)")
    g.add_argument("--no-cache", dest="cache", action="store_const", const=None, help="prove everything afresh")


def _open_cache(args) -> None:
    from . import store
    found = store.use(args.cache)
    if found is not None and found.broken:
        sys.stderr.write(f"acptools: warning: proof store not used: {found.broken}\n")


def cmd_cache(args) -> int:
    from . import store
    from .truth import verify_store
    found = store.use(args.cache)
    if found is None:
        return _fail(AcpError("the proof store is turned off", "--cache", "pass --cache PATH"))
    if found.broken:
        return _fail(AcpError(found.broken, "--cache"))
    if args.action == "stats":
        print(json.dumps(found.stats(), indent=1))
    elif args.action == "clear":
        print(f"removed {found.clear()} facts from {found.path}")
    else:
        res = verify_store(found, args.sample, budget=args.budget)
        print(f"proved {res['checked']} stored facts again ({res['skipped']} skipped): "
              f"{len(res['mismatches'])} mismatch(es)")
        for m in res["mismatches"]:
            print(f"  MISMATCH {m}")
        return EXIT_CHECK if res["mismatches"] else EXIT_OK
    return EXIT_OK


def _fail(e: AcpError) -> int:
    sys.stderr.write(f"acptools: error: {e}\n")
    return EXIT_INPUT


def _check_outputs(args) -> None:
    for flag in ("out", "report"):
        path = getattr(args, flag)
        if path:
            parent = Path(path).resolve().parent
            if not parent.is_dir():
                raise AcpError(f"folder {parent} does not exist", f"--{flag} {path}", "create it first")
            if Path(path).is_dir():
                raise AcpError("is a folder", f"--{flag} {path}", "give a file name")
    if args.plots:
        from .scoring.report import have_matplotlib
        if not have_matplotlib():
            raise AcpError("matplotlib is not installed", "--plots",
                           "pip install matplotlib (or pip install 'acptools[plots]'), or drop --plots")
        if Path(args.plots).exists() and not Path(args.plots).is_dir():
            raise AcpError("exists and is not a folder", f"--plots {args.plots}")
    if args.jobs < 1:
        raise AcpError(f"--jobs must be at least 1, got {args.jobs}", "--jobs")
    if args.budget is not None and not args.budget > 0:
        raise AcpError(f"--budget must be a positive number of seconds, got {args.budget}", "--budget")


def _check_sources(args) -> None:
    if args.lm_eval is None and not args.data:
        raise AcpError("--data is required (the records the responses answer)", "acptools score",
                       "pass --data acpbench-hard:test (the bundled copy), or files or folders of records")
    if args.lm_eval is None and (args.filtered or args.model):
        raise AcpError(f"{'--filtered' if args.filtered else '--model'} only applies to --lm-eval input",
                       "acptools score", "drop it, or pass --lm-eval FILE...")


def _records(args) -> list[dict]:
    from .dataset import load_records
    records = load_records(*args.data)
    if not records:
        raise AcpError("no records found", "--data " + " ".join(args.data),
                       "pass acpbench-hard:test (the bundled copy), or ACPBench Hard .json/.jsonl/.json.gz "
                       "files or folders holding them")
    return records


def _pairs(args) -> list[tuple[dict, dict]]:
    """(record, response row) pairs from --responses, --gold or --lm-eval (see the module docstring)."""
    from .scoring import batch, lm_eval_samples
    if args.lm_eval is not None:
        rows = lm_eval_samples.read_samples(args.lm_eval, filtered=args.filtered, model=args.model)
        if not args.data:
            return [(row.pop("_record"), row) for row in rows]
        for row in rows:
            row.pop("_record")
        return batch.match(_records(args), rows)
    records = _records(args)
    rows = batch.gold_rows(records) if args.gold else batch.read_responses(args.responses)
    return batch.match(records, rows)


def cmd_score(args) -> int:
    from .scoring import batch, report
    from .scoring.items import ERROR

    t0 = time.perf_counter()
    _open_cache(args)
    try:
        _check_outputs(args)
        _check_sources(args)
        pairs = _pairs(args)
    except AcpError as e:
        return _fail(e)
    except OSError as e:
        return _fail(AcpError(f"{e.strerror or e}", str(e.filename or "input")))
    progress = batch.Progress(enabled=not args.quiet)
    items = batch.score_pairs(pairs, args.semantics, args.budget, args.jobs, until=not args.no_until,
                              progress=progress, backend=args.backend, address=args.address)
    wall = time.perf_counter() - t0
    summary = report.summarize(items)
    print(report.table(summary))
    lm_eval = _print_lm_eval(args, items)
    unknown = sum(1 for it in items if it["verdict"] == "unknown")
    retried = sum(1 for it in items if it.get("retried"))
    errors = [it for it in items if it["verdict"] == ERROR]
    print(f"\n{len(items)} responses to {len({(it['task'], str(it['id'])) for it in items})} records scored with "
          f"{args.semantics} semantics in {wall:.1f} s (--jobs {args.jobs}); unknown: {unknown} (after grading "
          f"{retried} again with more effort); errors: {len(errors)}")
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
            with open(args.out, "w", encoding="utf-8") as fh:
                for it in items:
                    fh.write(json.dumps(it, default=str) + "\n")
            print(f"items -> {args.out}")
        if args.report:
            doc = report.json_report(summary, items, semantics=args.semantics, budget=args.budget, jobs=args.jobs,
                                     data=args.data, responses="gold" if args.gold else args.responses or args.lm_eval,
                                     seconds=wall, gold_check=gold)
            if lm_eval is not None:
                doc["lm_eval"] = lm_eval
            with open(args.report, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1, default=str)
            print(f"report -> {args.report}")
        if args.plots:
            written = report.write_plots(summary, items, args.plots)
            print(f"plots -> {', '.join(written)}")
    except OSError as e:
        return _fail(AcpError(f"cannot write: {e.strerror or e}", str(e.filename or "output")))
    return status


def _print_lm_eval(args, items: list[dict]) -> dict | None:
    """--lm-eval: say which text was graded, and lm-eval's own metric beside ours per task."""
    if args.lm_eval is None:
        return None
    from .scoring import lm_eval_samples as les
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
    other = [it for it in items if not it["score"] == 1 and
             not (it["score"] == 0 and it["verdict"] not in ("unparsed", "hallucinated"))]
    if semantics != "exact":  # the reference reads the stored answer as the truth: nothing can refute it
        other, refuted = other + refuted, []
    n = len(items)
    print(f"\ngold check: {len(ok)}/{n} stored answers score 1 ({100 * len(ok) / n:.1f}%)")
    if refuted:
        print(f"{len(refuted)} stored answer(s) are refuted by proof (data errors in the records, not scorer "
              f"failures); {len(ok)}/{n - len(refuted)} = 100% of the rest score 1" if not other else
              f"{len(refuted)} stored answer(s) are refuted by proof (data errors):")
        for it in refuted:
            print(f"  data error: {it['task']}/{it['id']} ({it['domain']}): stored {json.dumps(it['parsed'])[:80]}"
                  f" -> {it['verdict']}: {it['reason'][:160]}")
    for it in other:
        print(f"  NOT OK: {it['task']}/{it['id']} ({it['domain']}): {it['verdict']}: {it['reason'][:200]}")
    return {"n": n, "correct": len(ok), "data_errors": [
        {"task": it["task"], "id": it["id"], "domain": it["domain"], "verdict": it["verdict"], "reason": it["reason"]}
        for it in refuted], "unexplained": len(other)}


def cmd_rollout(args) -> int:
    try:
        _check_outputs(args)
    except AcpError as e:
        return _fail(e)
    _open_cache(args)
    return rollout_cli.main(args)


def cmd_demo(args) -> int:
    from . import demo
    try:
        return int(demo.run(args.example, args.budget) or 0)
    except AcpError as e:
        return _fail(e)


def cmd_generate(args) -> int:
    try:
        return generate_cli.run(args)
    except AcpError as e:
        return _fail(e)


def cmd_examples(args) -> int:
    for name in examples.names():
        print(name)
    return EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return EXIT_INPUT
    try:
        commands = {"score": cmd_score, "cache": cmd_cache, "rollout": cmd_rollout, "generate": cmd_generate,
                    "demo": cmd_demo, "examples": cmd_examples}
        return commands[args.command](args)
    except KeyboardInterrupt:
        sys.stderr.write("acptools: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `acptools demo | head`: the reader left, nothing more to say
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
