"""What every subcommand shares: exit codes, the parser class, error output and the shared flags."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..errors import AcpError, RunStopped

EXIT_OK, EXIT_CHECK, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


class Parser(argparse.ArgumentParser):
    """argparse's usage errors exit 2 with one clear line, as ours do."""

    def error(self, message):
        """Print the usage and the error on stderr, then exit 2."""
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog.split()[0]}: error: {message}\n")
        raise SystemExit(EXIT_INPUT)


def fail(e: AcpError, args=None) -> int:
    """Print an input error (what, where, what to do) and return the input-error exit code. A run
    that stopped part way (RunStopped) names the command that resumes it, given the run's `args`."""
    if isinstance(e, RunStopped) and args is not None:
        from ..util.runfile import resume_command

        hint = (
            f"what finished is in {args.out}: resume with {resume_command(args)}"
            if getattr(args, "out", None)
            else "nothing was kept: pass --out FILE to keep what finishes and resume it"
        )
        e = RunStopped(e.what, e.where, hint)
    sys.stderr.write(f"acptools: error: {e}\n")
    return EXIT_INPUT


def backend_flags(p: argparse.ArgumentParser) -> None:
    """--backend local|ray and --address: where batch work runs (acptools.backends)."""
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local worker processes (default) or Ray tasks (pip install 'acptools[ray]')",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        help="--backend ray: a running Ray cluster (default: start one here with --jobs CPUs)",
    )


def cache_flags(p: argparse.ArgumentParser) -> None:
    """--cache PATH / --no-cache: where proven truths are kept and reused between runs."""
    g = p.add_mutually_exclusive_group()
    g.add_argument(
        "--cache",
        metavar="PATH",
        default="default",
        help="the proof store (default: <user cache dir>/acptools/proofs.sqlite, or $ACPTOOLS_CACHE)",
    )
    g.add_argument("--no-cache", dest="cache", action="store_const", const=None, help="prove everything afresh")


def html_flag(p: argparse.ArgumentParser, required: bool = False) -> None:
    """--html FILE: one self-contained page of the run's results (acptools.htmlreport)."""
    p.add_argument(
        "--html",
        metavar="report.html",
        required=required,
        help="one self-contained HTML page (no network): tables, histograms, filterable items",
    )


def write_html(args, items=None, rows=None, report=None, source: str = "") -> None:
    """--html: the page of this run, from its items (score, eval) or trace rows (rollout)."""
    if not getattr(args, "html", None):
        return
    from ..htmlreport import Outputs
    from ..htmlreport import write_html as write

    out = Outputs()
    if items is not None:
        out.add_items(items, source)
    if rows is not None:
        out.add_run(rows, source)
    print(f"html -> {write(args.html, out)}")


def open_cache(args) -> None:
    """Use the store --cache names for this process (a damaged one is named and bypassed)."""
    from ..proofs import store

    found = store.use(args.cache)
    if found is not None and found.broken:
        sys.stderr.write(f"acptools: warning: proof store not used: {found.broken}\n")


def check_outputs(args) -> None:
    """--out, --report, --plots, --jobs and --budget are usable before any work starts; an existing
    --out, --report or --html is overwritten only with --force (or continued with --resume)."""
    from ..util.runfile import check_fresh

    for flag in ("out", "report", "html"):
        path = getattr(args, flag, None)
        if path:
            parent = Path(path).resolve().parent
            if not parent.is_dir():
                raise AcpError(f"folder {parent} does not exist", f"--{flag} {path}", "create it first")
            if Path(path).is_dir():
                raise AcpError("is a folder", f"--{flag} {path}", "give a file name")
            check_fresh(path, getattr(args, "resume", False), getattr(args, "force", False), f"--{flag}")
    if getattr(args, "plots", None):
        from ..scoring.score_report import have_matplotlib

        if not have_matplotlib():
            raise AcpError(
                "matplotlib is not installed",
                "--plots",
                "pip install matplotlib (or pip install 'acptools[plots]'), or drop --plots",
            )
        if Path(args.plots).exists() and not Path(args.plots).is_dir():
            raise AcpError("exists and is not a folder", f"--plots {args.plots}")
    if getattr(args, "jobs", 1) < 1:
        raise AcpError(f"--jobs must be at least 1, got {args.jobs}", "--jobs")
    if getattr(args, "budget", None) is not None and not args.budget > 0:
        raise AcpError(f"--budget must be a positive number of seconds, got {args.budget}", "--budget")


def check_sample(args) -> None:
    """--limit and --per-domain (the sample of a run) and --max-errors make sense."""
    if args.limit is not None and args.limit < 1:
        raise AcpError(f"--limit must be at least 1, got {args.limit}", "--limit")
    if args.per_domain and args.limit is None:
        raise AcpError("--per-domain says how --limit splits its sample", "--per-domain", "add --limit N")
    if args.max_errors < 0:
        raise AcpError(f"--max-errors must be 0 (never stop) or more, got {args.max_errors}", "--max-errors")


def interrupted(args, table: str, done: int, total: int, what: str, kept: str, t0: float) -> int:
    """Ctrl-C: the table of what was finished (`table`, '' for none), how far the run got ('3 of 8
    episodes finished'), and the exact command that goes on from there (when --out keeps the rows)."""
    from ..util.runfile import resume_command

    sys.stderr.write("\n")
    if table:
        print(table)
    print(f"\ninterrupted after {time.perf_counter() - t0:.1f} s: {done} of {total} {what}")
    if args.out:
        print(f"{kept} so far -> {args.out}\nresume with: {resume_command(args)}")
    else:
        print(f"nothing was kept: pass --out FILE to keep the {kept} of a run and resume it")
    sys.stdout.flush()
    return EXIT_INTERRUPTED


def check_resume(args, command: str) -> None:
    """--resume and --force together are a contradiction (one continues --out, the other starts it over)."""
    if getattr(args, "resume", False) and getattr(args, "force", False):
        raise AcpError(
            "--resume and --force contradict each other",
            f"acptools {command}",
            "--resume continues --out, --force starts it over",
        )
