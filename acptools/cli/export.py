"""`acptools export`: task configs for other harnesses, for any record file.

    acptools export lm-eval DIR --data SOURCE... [--pddl] [--prefix NAME] [--budget SECONDS]

lm-eval: one task per record kind (NAME_<kind>.yaml + its data), a group NAME.yaml of them all and a
utils.py whose prompt and grade come from acptools; run with
`lm-eval run --include_path DIR --tasks NAME ...` (docs/harnesses.md).
"""

from __future__ import annotations

import re

from ..errors import AcpError
from .common import EXIT_OK, fail


def add_parser(sub):
    """Register `acptools export`."""
    p = sub.add_parser(
        "export",
        help="task configs for other harnesses (lm-eval) from any record file",
        description="Write harness task configs that ask the questions of any record file "
        "(ACPBench Hard, or acptools generate in every form) and grade with acptools.",
    )
    p.add_argument("harness", choices=("lm-eval",), help="the harness to write configs for")
    p.add_argument("folder", metavar="DIR", help="where to write them (created if missing)")
    p.add_argument(
        "--data",
        nargs="+",
        action="extend",
        required=True,
        metavar="SOURCE",
        help="record files or folders, or acpbench-hard[:dev|test][:TASK]",
    )
    p.add_argument("--pddl", action="store_true", help="put the PDDL domain and problem in front of each prompt")
    p.add_argument(
        "--prefix", default="acptools", help="the task names' prefix and the group's name (default %(default)s)"
    )
    p.add_argument(
        "--budget",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="CPU seconds to grade one answer (default %(default)g); beyond it the answer is unknown",
    )
    return p


def run(args) -> int:
    """The export command: write lm-eval task files for the records to the folder and print how to run them."""
    from ..export import export_lm_eval

    try:
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", args.prefix):
            raise AcpError(
                f"--prefix must be letters, digits and _, starting with a letter, got {args.prefix!r}", "--prefix"
            )
        if not args.budget > 0:
            raise AcpError(f"--budget must be a positive number of seconds, got {args.budget}", "--budget")
        names = export_lm_eval(args.folder, args.data, prefix=args.prefix, pddl=args.pddl, budget=args.budget)
    except AcpError as e:
        return fail(e)
    except OSError as e:
        return fail(AcpError(f"cannot write: {e.strerror or e}", str(e.filename or args.folder)))
    print(f"{len(names)} lm-eval task(s) -> {args.folder}: {', '.join(names)}")
    print(f"run: lm-eval run --include_path {args.folder} --tasks {args.prefix} --model ... --apply_chat_template")
    return EXIT_OK
