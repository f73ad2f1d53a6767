"""The item table of the page: for each graded answer what was asked, what the model replied, what was
read from it, the grade and why, the witness plan, and what the reply cost (tokens, seconds, cost),
worst first and filterable. Items of `acptools score` carry no question or reply unless their rows did."""

from __future__ import annotations

import json
from html import escape

from ..scoring.score_report import item_iou

ITEM_ROWS = 5000  # the table keeps the worst this many (the page stays quick to open)
RESPONSE_CHARS = 6000  # a longer reply is cut here on the page (the items file has all of it)


def _badness(it: dict) -> tuple:
    """Worst first: wrong, then unknown or error, then right; lower IoU first within each."""
    score = it.get("score")
    rank = 0 if score == 0 else 1 if score is None else 2
    iou = item_iou(it)
    return rank, 1.0 if iou is None else iou


def select_box(name: str, values) -> str:
    """An HTML select filtering on `name`, offering each distinct value and "all"."""
    opts = "".join(
        f'<option value="{escape(str(v), quote=True)}">{escape(str(v))}</option>' for v in sorted(set(values), key=str)
    )
    return f'<label>{name} <select name="{name}"><option value="">all</option>{opts}</select></label>'


def _asked(it: dict) -> str:
    """The question, with the context (the state, the goal: long) folded under it."""
    question, context = it.get("question"), it.get("context")
    if not question and not context:
        return '<span class="small">(not in the items)</span>'
    pddl = ' <span class="small">(asked with the PDDL)</span>' if it.get("with_pddl") else ""
    folded = f"<details><summary>context</summary><pre>{escape(str(context))}</pre></details>" if context else ""
    return f'<div class="question">{escape(str(question or ""))}{pddl}</div>{folded}'


def _response(it: dict) -> str:
    """The model's raw reply (cut at RESPONSE_CHARS, saying so), or why there is none."""
    if it.get("reply_error"):
        return f'<span class="bad">no reply: {escape(str(it["reply_error"]))}</span>'
    text = it.get("response")
    if text is None:
        return '<span class="small">(not in the items)</span>'
    text = str(text)
    more = (
        f'<div class="small">… {len(text) - RESPONSE_CHARS} more characters in the items file</div>'
        if len(text) > RESPONSE_CHARS
        else ""
    )
    return f'<pre class="response">{escape(text[:RESPONSE_CHARS])}</pre>{more}'


def _why(it: dict) -> str:
    """The grade's reason, what was read from the reply, and the witness plan backing the reason as
    wrapped text (several actions a line) with its length."""
    parsed = escape(json.dumps(it.get("parsed") or {}, default=str)[:300])
    plan = [str(a) for a in it.get("witness") or []]
    witness = (
        f'<div class="plan"><b>witness plan</b> ({len(plan)} step{"s" * (len(plan) != 1)}): '
        f"{escape(' '.join(plan))}</div>"
        if plan
        else ""
    )
    return f'{escape(str(it.get("reason") or ""))}<div class="small">read: {parsed}</div>{witness}'


def _usage(it: dict) -> str:
    """Tokens in/out, seconds the reply took and its cost, as far as they are known."""
    parts = []
    if it.get("input_tokens") is not None or it.get("output_tokens") is not None:
        parts.append(f"{it.get('input_tokens', '–')} in / {it.get('output_tokens', '–')} out tokens")
    if isinstance(it.get("reply_seconds"), (int, float)):
        parts.append(f"{it['reply_seconds']:.2f} s")
    if isinstance(it.get("cost"), (int, float)):
        source = " (--price)" if it.get("cost_from") == "--price" else ""
        parts.append(f"cost {it['cost']:.6g}{source}")
    return "<br>".join(parts)


def _row(it: dict) -> str:
    model, task, verdict = str(it.get("model")), str(it.get("task")), str(it.get("verdict"))
    score = "–" if it.get("score") is None else str(it.get("score"))
    iou = item_iou(it)
    cls = "good" if it.get("score") == 1 else "bad" if it.get("score") == 0 else "unk"
    return (
        f'<tr data-row data-model="{escape(model, quote=True)}" data-task="{escape(task, quote=True)}" '
        f'data-verdict="{escape(verdict, quote=True)}"><td class="model">{escape(model)}</td>'
        f'<td>{escape(task)}<div class="small">{escape(str(it.get("domain")))}<br>{escape(str(it.get("id")))}'
        f'</div></td><td class="{cls}">{escape(verdict)}<div class="small">score {score}'
        f"{'' if iou is None else f'<br>IoU {iou:.2f}'}</div></td>"
        f'<td class="asked">{_asked(it)}</td><td class="reply">{_response(it)}</td>'
        f'<td class="reason">{_why(it)}</td><td class="usage small">{_usage(it)}</td></tr>'
    )


def item_table(items: list[dict]) -> str:
    """The worst items first, each with its question, the reply, what was read, the grade and why, the
    witness plan and the reply's cost; filterable by any text, model, task and verdict."""
    shown = sorted(items, key=_badness)[:ITEM_ROWS]
    more = (
        f'<p class="small">The {ITEM_ROWS} worst of {len(items)} items are listed.</p>'
        if len(items) > ITEM_ROWS
        else ""
    )
    filters = (
        f'<div class="filters" data-filter="qa-items"><input type="search" id="qa-filter" '
        f'placeholder="filter: any text in a row (id, domain, question, reply, reason, action...)">'
        f"{select_box('model', (str(i.get('model')) for i in shown))}"
        f"{select_box('task', (str(i.get('task')) for i in shown))}"
        f'{select_box("verdict", (str(i.get("verdict")) for i in shown))}<span class="count"></span></div>'
    )
    return (
        f'{filters}{more}<table id="qa-items"><thead><tr><th>model</th><th>task · domain · id</th>'
        "<th>grade</th><th>question</th><th>response</th><th>why: the reason, what was read, the witness</th>"
        f"<th>tokens · seconds · cost</th></tr></thead><tbody>{''.join(_row(it) for it in shown)}</tbody></table>"
    )
