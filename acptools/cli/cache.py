"""`acptools cache stats|verify|clear`: the proof store (proven truths kept in SQLite, reused by later runs)."""

from __future__ import annotations

import json
import logging
import sys

from ..errors import AcpError
from .common import EXIT_CHECK, EXIT_OK, fail


def add_parser(sub):
    """Register `acptools cache`."""
    c = sub.add_parser(
        "cache",
        help="the proof store: statistics, verification, clearing",
        description="Proven truths are kept in an SQLite file and reused by later runs. Rows are "
        "authenticated with a key kept outside the file (see docs/reproducibility.md).",
    )
    c.add_argument("action", choices=("stats", "verify", "clear"))
    c.add_argument("--cache", metavar="PATH", default="default", help="the store (default: the user cache dir)")
    c.add_argument(
        "--key-file",
        metavar="PATH",
        help="the key that authenticates its rows (default: "
        "$ACPTOOLS_STORE_KEY_FILE, or <user config dir>/acptools/store.key)",
    )
    c.add_argument("--sample", type=int, metavar="N", help="verify: check N random rows (default: every row)")
    c.add_argument("--budget", type=float, default=60.0, metavar="S", help="verify: seconds per proof")
    return c


def run(args) -> int:
    """stats: counts as JSON; clear: remove every fact; verify: check every row (exit 1 on any failure)."""
    from ..proofs import store

    if args.sample is not None and args.sample < 1:
        return fail(AcpError(f"must be at least 1, not {args.sample}", "--sample", "leave it out to check every row"))
    quiet = logging.getLogger("acptools.proofs.store")
    level, quiet.level = quiet.level, logging.ERROR  # this command reports the store's state itself, once
    try:
        found = store.use(args.cache, key_file=args.key_file)
    finally:
        quiet.setLevel(level)
    if found is None:
        return fail(AcpError("the proof store is turned off", "--cache", "pass --cache PATH"))
    try:
        if found.broken:
            raise AcpError(found.broken, "--cache")
        if found.readonly:
            sys.stderr.write(
                f"acptools: note: the proof store {found.path} is read-only here: it is read, not written\n"
            )
        if args.action == "stats":
            print(json.dumps(found.stats(), indent=1))
        elif args.action == "clear":
            facts = found.clear()
            print(f"removed {facts} facts from {found.path}")
            print(f"removed {found.cleared_grades} stored grades")
        else:
            return _verify(found, args)
    except AcpError as e:
        return fail(e)
    finally:
        store.use(None)
    return EXIT_OK


def _verify(found, args) -> int:
    """Every fact proven again, every stored grade graded again and every kept grounded task loaded
    again, from scratch (or --sample N of each)."""
    from ..proofs.verify import verify_facts, verify_grades, verify_kept_tasks
    from ..scoring.batch import regrade

    res = verify_facts(found, args.sample, budget=args.budget)
    failures = res["failures"]
    what = f"{res['checked']} random rows" if args.sample is not None else f"all {res['checked']} rows"
    print(f"checked {what} of {found.path}: {len(failures)} failed")
    for f in failures:
        print(f"  FAILED {f['kind']} {f['key']!r} (task {f['task']}, state {f['state']}): {f['problem']}")
    grades = verify_grades(found, regrade, args.sample)
    _report(grades, args.sample, "graded again", "stored grades", "grade", "never served")
    tasks = verify_kept_tasks(found, args.sample)
    _report(tasks, args.sample, "loaded again", "grounded tasks", "grounded task", "never read")
    return EXIT_CHECK if failures or grades["failures"] or tasks["failures"] else EXIT_OK


def _report(res: dict, sample: int | None, done: str, rows: str, row: str, stale: str) -> None:
    """One kind of kept row checked again: how many, how many failed (each listed), how many stale."""
    what = f"{res['checked']} random {rows}" if sample is not None else f"all {res['checked']} {rows}"
    print(f"{done} {what}: {len(res['failures'])} failed, {res['stale']} of another acptools version ({stale})")
    for f in res["failures"]:
        print(f"  FAILED {row} {f['key'][:16]}: {f['problem']}")
