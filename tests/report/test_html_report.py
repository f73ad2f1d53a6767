"""The HTML report (acptools.htmlreport, `--html`, `acptools report`) from real score and rollout outputs,
checked as text and in a real headless browser (Debian's chromium; those tests skip when it is absent)."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path

import pytest

from acptools.cli import main
from acptools.dataset import acpbench_hard, domain_name, task_of
from acptools.scoring import gold_response
from tests.support.browser import Chromium, chromium_path

TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
WRONG = {
    "app": "[]",
    "prog": "[] []",
    "reach": "(nosuch x)",
    "areach": "None",
    "val": "99",
    "just": "[]",
    "land": "None",
    "nexta": "None",
}
needs_chromium = pytest.mark.skipif(
    chromium_path() is None, reason="chromium is not installed (apt-get install chromium; .ci/run does it)"
)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Two models' scored items (one right on every record, one wrong), a score report, and traces of an
    optimal rollout on the bundled ferry task, each written by the real command line."""
    d = tmp_path_factory.mktemp("outputs")
    records = [r for t in TASKS for r in [x for x in acpbench_hard("dev", t) if domain_name(x) == "ferry"][:2]]
    (d / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    for model, answer in (("model-alpha", gold_response), ("model-zeta", lambda r: WRONG[task_of(r)])):
        rows = [{"id": r["id"], "group": r["group"], "model": model, "response": answer(r)} for r in records]
        (d / f"{model}.responses.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
        assert main(
            [
                "score",
                "--data",
                str(d / "records.jsonl"),
                "--responses",
                str(d / f"{model}.responses.jsonl"),
                "--out",
                str(d / f"{model}.items.jsonl"),
                "--report",
                str(d / f"{model}.report.json"),
                "--html",
                str(d / f"{model}.html"),
                "--quiet",
            ]
        ) in (0, 1)
    answerer = d / "gold.py"  # acptools eval with a python: policy that answers every question with its gold text
    answerer.write_text(
        "import json\nfrom acptools.dataset import record_key\nfrom acptools.scoring import gold_response\n"
        f"GOLD = {{record_key(r): gold_response(r) for r in map(json.loads, open({str(d / 'records.jsonl')!r}))}}\n"
        "def answer(q):\n    return {'reply': 'My answer:\\n' + GOLD[record_key(q.record)], "
        "'input_tokens': len(q.prompt) // 4, 'output_tokens': 7}\n"
    )
    assert (
        main(
            [
                "eval",
                "--data",
                str(d / "records.jsonl"),
                "--policy",
                f"python:{answerer}:answer",
                "--out",
                str(d / "eval.items.jsonl"),
                "--html",
                str(d / "eval.html"),
                "--price",
                "1,2",
                "--quiet",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "rollout",
                "--tasks",
                "ferry",
                "--policy",
                "optimal",
                "--out",
                str(d / "traces.jsonl"),
                "--report",
                str(d / "rollout.json"),
                "--html",
                str(d / "rollout.html"),
                "--quiet",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "report",
                "--html",
                str(d / "all.html"),
                str(d / "model-alpha.items.jsonl"),
                str(d / "model-zeta.items.jsonl"),
                str(d / "traces.jsonl"),
                str(d / "model-alpha.report.json"),
            ]
        )
        == 0
    )
    return d


def _items(d: Path, model: str) -> list[dict]:
    return [json.loads(x) for x in (d / f"{model}.items.jsonl").read_text().splitlines()]


def test_the_page_is_self_contained_and_holds_every_item(outputs):
    page = (outputs / "all.html").read_text()
    assert not re.search(r"<(script|img|link|iframe)[^>]*\b(src|href)=", page)  # nothing fetched
    assert "@import" not in page and "url(" not in page
    alpha, zeta = _items(outputs, "model-alpha"), _items(outputs, "model-zeta")
    assert page.count('<tr data-row data-model="model-alpha"') == len(alpha)
    assert page.count('<tr data-row data-model="model-zeta"') == len(zeta)
    steps = [r for r in map(json.loads, (outputs / "traces.jsonl").read_text().splitlines()) if r["kind"] == "step"]
    assert page.count("<details data-row") == 1 and len(steps) > 0


def test_summary_cells_give_accuracy_n_and_unknowns(outputs):
    page = (outputs / "all.html").read_text()
    n = len(_items(outputs, "model-alpha"))
    row = re.search(r"<tr class=\"total\"><td>ALL</td><td>1 domain</td>(.*?)</tr>", page).group(1)  # all ferry
    assert "<td>app</td><td>(all: 1 domain)</td>" in page
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
    assert cells[0] == "100.0%" and cells[2] == str(n) and cells[3] == "0"  # model-alpha: acc, IoU, n, unk
    assert cells[4] == "0.0%" and cells[6] == str(n)  # model-zeta


def test_partial_credit_histograms_put_the_models_side_by_side_on_one_axis(outputs):
    page = (outputs / "all.html").read_text()
    chart = re.search(r"<svg[^>]*><title>app iou</title>(.*?)</svg>", page).group(1)  # one chart, both models
    heights = {}
    for model in ("model-alpha", "model-zeta"):
        app = [it for it in _items(outputs, model) if it["task"] == "app"]
        assert f"{model} (n={len(app)})</text>" in chart and len(app) > 0
        bars = re.findall(
            rf'data-model="{model}" data-count="(\d+)" x="[\d.]+" y="[\d.]+" width="[\d.]+" '
            r'height="([\d.]+)"',
            chart,
        )
        counts = [int(c) for c, _ in bars]
        assert len(counts) == 11 and sum(counts) == len(app)
        assert counts[10 if model == "model-alpha" else 0] == len(app)  # gold: IoU 1; '[]': IoU 0
        heights[model] = max(float(h) for _, h in bars)
    assert heights["model-alpha"] == heights["model-zeta"]  # equal counts, equal bars: the same y axis


def test_eval_items_show_question_response_tokens_seconds_and_cost(outputs):
    page = (outputs / "eval.html").read_text()
    items = [json.loads(x) for x in (outputs / "eval.items.jsonl").read_text().splitlines()]
    assert page.count("<tr data-row") == len(items) > 0
    for it in items:
        assert it["response"].startswith("My answer:\n") and html.escape(it["response"]) in page
        assert html.escape(it["question"]) in page and html.escape(it["context"]) in page
        assert f"{it['input_tokens']} in / 7 out tokens" in page
        assert it["cost"] == (it["input_tokens"] * 1 + 7 * 2) / 1e6 and it["cost_from"] == "--price"
        assert f"cost {it['cost']:.6g} (--price)" in page


def test_report_command_refuses_bad_input_in_one_line(tmp_path, capsys):
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"a": 1}\n')
    assert main(["report", "--html", str(tmp_path / "r.html"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "neither scored items" in err and str(bad) in err and "Traceback" not in err
    assert main(["report", "--html", str(tmp_path / "r.html"), str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


def _non_blank(png: bytes) -> bool:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("L")
    lo, hi = img.getextrema()
    return img.size[0] > 100 and hi - lo > 100 and sum(1 for c in img.histogram() if c) > 10


@needs_chromium
@pytest.mark.parametrize("page", ["all.html", "model-zeta.html", "rollout.html", "eval.html"])
def test_page_loads_in_chromium_without_errors(outputs, page):
    with Chromium() as browser:
        browser.open(outputs / page)
        assert browser.eval("document.querySelectorAll('table').length") >= 1
        png = browser.screenshot()
        assert browser.errors == []
    assert png.startswith(b"\x89PNG") and _non_blank(png)


@needs_chromium
def test_filters_show_only_matching_rows(outputs):
    zeta = _items(outputs, "model-zeta")
    visible = "Array.from(document.querySelectorAll('#qa-items tbody tr')).filter(r => !r.hidden).length"
    with Chromium() as browser:
        browser.open(outputs / "all.html")
        total = 2 * len(zeta)
        assert browser.eval(visible) == total
        browser.type_into("#qa-filter", "model-zeta")
        assert browser.eval(visible) == len(zeta)
        assert browser.eval("document.querySelector('.filters .count').textContent") == f"{len(zeta)} of {total} shown"
        browser.eval(
            "(s => { s.value = 'app'; s.dispatchEvent(new Event('change')); })"
            "(document.querySelector('.filters select[name=task]'))"
        )
        assert browser.eval(visible) == sum(1 for it in zeta if it["task"] == "app")
        browser.type_into("#qa-filter", "no row holds this text")
        assert browser.eval(visible) == 0
        episodes = "Array.from(document.querySelectorAll('#episodes details')).filter(r => !r.hidden).length"
        assert browser.eval(episodes) == 1
        browser.type_into("#episode-filter", "not an episode")
        assert browser.eval(episodes) == 0
        assert browser.errors == []


@needs_chromium
def test_each_item_shows_its_question_and_the_response_in_chromium(outputs, tmp_path):
    """What a reader sees: every row's question and response cells hold the item's own text, visible
    (not folded), and a screenshot of a response cell shows text (saved beside the test's files)."""
    items = {(it["task"], str(it["id"])): it for it in map(json.loads, (outputs / "eval.items.jsonl").open())}
    with Chromium() as browser:
        browser.open(outputs / "eval.html")
        rows = browser.eval(
            "Array.from(document.querySelectorAll('#qa-items tbody tr')).map(r => ["
            "r.cells[1].innerText, r.querySelector('.question').innerText, "
            "r.querySelector('pre.response').innerText, "
            "r.querySelector('pre.response').getBoundingClientRect().height])"
        )
        png = browser.screenshot("#qa-items tbody tr pre.response")
        assert browser.errors == []
    assert len(rows) == len(items)
    for head, question, response, height in rows:
        task, _domain, rid = head.split("\n")
        it = items[(task, rid)]
        assert question.startswith(it["question"].strip()) and response == it["response"] and height > 10
    (tmp_path / "response.png").write_bytes(png)
    assert png.startswith(b"\x89PNG") and _has_text(png)


def _has_text(png: bytes) -> bool:
    """Dark glyphs on a light background: many dark pixels, many light ones."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("L")
    dark = sum(img.histogram()[:100])
    return img.size[0] > 50 and 0.01 < dark / (img.size[0] * img.size[1]) < 0.5


@needs_chromium
def test_an_episode_opens_to_its_steps_with_h_star(outputs):
    steps = [r for r in map(json.loads, (outputs / "traces.jsonl").read_text().splitlines()) if r["kind"] == "step"]
    with Chromium() as browser:
        browser.open(outputs / "rollout.html")
        browser.eval("document.querySelector('#episodes details summary').click()")
        cells = browser.eval(
            "Array.from(document.querySelectorAll('#episodes details tbody tr'))"
            ".map(r => Array.from(r.cells).map(c => c.innerText))"
        )
    assert len(cells) == len(steps)
    for row, s in zip(cells, steps):
        assert row[0] == str(s["step"]) and row[4] == str(s["h_star_before"]) and row[6] == str(s["regret"])
        assert s["regret"] == 0  # the optimal policy
