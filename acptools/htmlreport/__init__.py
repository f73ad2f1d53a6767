"""One self-contained HTML page from the outputs of `acptools score`, `rollout` and `eval`.

    from acptools.htmlreport import load_outputs, write_html
    write_html("report.html", load_outputs(["items.jsonl", "report.json", "traces.jsonl"]))

The page needs no network (styles and scripts are inline), so it can be mailed or archived.
"""

from .page import render_page, write_html
from .readers import Outputs, load_outputs

__all__ = ["Outputs", "load_outputs", "render_page", "write_html"]
