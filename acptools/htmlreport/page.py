"""The page itself: a head with the inline style, the sources, the question-answering and rollout
sections, and the inline filter script."""

from __future__ import annotations

import datetime
from html import escape
from pathlib import Path

from .. import __version__
from . import episodes, qa
from .assets import CSS, JS
from .readers import Outputs


def render_page(outputs: Outputs, title: str = "acptools report") -> str:
    """The whole page as one string of HTML (no external resource)."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sources = "".join(f"<li>{escape(s)}</li>" for s in outputs.sources if s)
    body = qa.section(outputs.items, outputs.score_reports) + episodes.section(outputs.runs, outputs.rollout_reports)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width"><title>{escape(title)}</title>'
        f"<style>{CSS}</style></head><body><h1>{escape(title)}</h1>"
        f'<p class="small">acptools {escape(__version__)}, {when}. From:</p><ul class="small">{sources}</ul>'
        f"{body}<script>{JS}</script></body></html>\n"
    )


def write_html(path, outputs: Outputs, title: str = "acptools report") -> str:
    """Write the page to `path`; returns the path."""
    Path(path).write_text(render_page(outputs, title), encoding="utf-8")
    return str(path)
