"""`acptools audit`: can a record set be answered without reasoning? (acptools.audit)

    acptools audit SOURCE... [--json] [--budget CPU_SECONDS] [--tolerance POINTS] [--quiet]
    (SOURCE: files or folders of records in any form, or acpbench-hard[:dev|test][:TASK])

Prints, per form and task, the chance score and what each trivial answerer scores (copy a goal fact,
copy from the state, always yes / no, the most frequent answer or letter, the longest or shortest
option, the odd one out, None, the answer about the initial state); for a question that any one of a
set of items answers (reach, areach, land, nexta), chance is the share of the items it allows that
are right; `--json` prints the same as JSON.
Exit codes: 0 every answerer within the tolerance of chance; 1 some answerer is not; 2 bad input.
"""

from __future__ import annotations

import json
import sys

from ..errors import AcpError
from ..util.progress import Progress
from .common import EXIT_CHECK, EXIT_OK, fail


def add_parser(sub):
    """Register `acptools audit`."""
    a = sub.add_parser(
        "audit",
        help="score trivial answerers on a record set, beside chance",
        description="Score trivial answerers (copy a goal fact, copy from the state, always yes or "
        "no, the most frequent answer or letter, the longest option, None, ...) per form "
        "and task of a record set, beside chance: can the set be answered without "
        "reasoning?",
    )
    a.add_argument(
        "data",
        nargs="+",
        metavar="SOURCE",
        help="files or folders of records (acptools generate output in any form, ACPBench v1 bool/mcq "
        "files, JSON arrays, JSONL, .gz) or acpbench-hard[:dev|test][:TASK] (the bundled copy)",
    )
    a.add_argument("--json", action="store_true", help="print the audit as JSON instead of a table")
    a.add_argument(
        "--budget",
        type=float,
        default=10.0,
        metavar="CPU_SECONDS",
        help="CPU seconds per proof when an answer is graded from the PDDL (default 10)",
    )
    a.add_argument(
        "--tolerance",
        type=float,
        default=10.0,
        metavar="POINTS",
        help="points above chance an answerer may score before it is flagged (or below it, for yes/no, "
        "option, step and name answers; default 10)",
    )
    a.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return a


def run(args) -> int:
    """Returns 0 when every answerer is within the tolerance of chance, 1 when one is not, 2 on bad input."""
    try:
        if not args.budget > 0:
            raise AcpError(f"--budget must be a positive number of CPU seconds, got {args.budget}", "--budget")
        if not args.tolerance >= 0:
            raise AcpError(f"--tolerance must be a number of points >= 0, got {args.tolerance}", "--tolerance")
        from ..audit import audit
        from ..dataset import load_records

        records = load_records(*args.data)
        if not records:
            raise AcpError("no records found", " ".join(args.data), "give files or folders of records")
        progress = Progress(enabled=not args.quiet, unit="records")
        report = audit(records, args.budget, args.tolerance, progress=progress)
    except AcpError as e:
        return fail(e)
    sys.stdout.write((json.dumps(report.to_json(), indent=1) if args.json else report.table()) + "\n")
    return EXIT_CHECK if report.flagged() else EXIT_OK
