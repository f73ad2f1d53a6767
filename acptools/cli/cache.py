"""`acptools cache stats|verify|clear`: the proof store (proven truths kept in SQLite, reused by later runs)."""

from __future__ import annotations

import json

from ..errors import AcpError
from .common import EXIT_CHECK, EXIT_OK, fail


def add_parser(sub):
    """Register `acptools cache`."""
    c = sub.add_parser("cache", help="the proof store: statistics, verification, clearing",
                       description="Proven truths are kept in an SQLite file and reused by later runs.")
    c.add_argument("action", choices=("stats", "verify", "clear"))
    c.add_argument("--cache", metavar="PATH", default="default", help="the store (default: the user cache dir)")
    c.add_argument("--sample", type=int, default=50, metavar="N", help="verify: how many facts to prove again")
    c.add_argument("--budget", type=float, default=60.0, metavar="S", help="verify: seconds per proof")
    return c


def run(args) -> int:
    """stats: counts as JSON; clear: remove every fact; verify: prove stored facts again (exit 1 on a mismatch)."""
    from .. import store
    from ..truth import verify_store
    found = store.use(args.cache)
    if found is None:
        return fail(AcpError("the proof store is turned off", "--cache", "pass --cache PATH"))
    if found.broken:
        return fail(AcpError(found.broken, "--cache"))
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
