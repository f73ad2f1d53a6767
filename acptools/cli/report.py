"""`acptools report`: one self-contained HTML page from existing outputs of score, eval and rollout.

    acptools report --html report.html FILE... [--title TEXT] [--force]

FILE: items JSONL (`score --out`, `eval --out`), traces JSONL (`rollout --out`), or a report JSON
(`--report`). Several items files of different models are shown side by side.
"""

from __future__ import annotations

from ..errors import AcpError
from .common import EXIT_OK, fail, html_flag


def add_parser(sub):
    """Register `acptools report`."""
    p = sub.add_parser(
        "report",
        help="one HTML page from score, eval and rollout outputs (models side by side)",
        description="Build one self-contained HTML page (no network) from the --out and --report "
        "files of score, eval and rollout: summary per model x task x domain, "
        "partial-credit histograms, a filterable item table, episodes step by step.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="items.jsonl, traces.jsonl or report.json files")
    html_flag(p, required=True)
    p.add_argument("--title", default="acptools report", help="the page's title")
    p.add_argument("--force", action="store_true", help="overwrite an existing --html")
    return p


def run(args) -> int:
    """The report command: one HTML page from the given output files."""
    from ..htmlreport import load_outputs, write_html
    from ..util.runfile import check_fresh

    try:
        check_fresh(args.html, False, args.force, "--html", resumable=False)
        outputs = load_outputs(args.files)
        print(f"html -> {write_html(args.html, outputs, args.title)}")
    except AcpError as e:
        return fail(e)
    except OSError as e:
        return fail(AcpError(f"cannot write: {e.strerror or e}", f"--html {args.html}"))
    return EXIT_OK
