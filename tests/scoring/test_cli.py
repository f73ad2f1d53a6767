"""End-to-end tests of the `acptools` command line on a small subset of the real ACPBench Hard records."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from acptools.cli import main
from acptools.dataset import acpbench_hard, domain_name
from acptools.scoring import gold_response

TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
ROOT = Path(__file__).resolve().parents[2]


def _subset(domains=("ferry", "blocksworld-4ops")) -> dict[str, list[dict]]:
    out = {}
    for t in TASKS:
        recs = acpbench_hard("dev", t)
        out[t] = [r for r in recs if domain_name(r) in domains][:2]
    return out


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("data")
    sub = _subset()
    for t, recs in sub.items():
        if t == "app":  # one task as JSONL, one gzipped: every input format
            (d / f"{t}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
        elif t == "prog":
            with gzip.open(d / f"{t}.json.gz", "wt") as fh:
                json.dump(recs, fh)
        else:
            (d / f"{t}.json").write_text(json.dumps(recs))
    return d


@pytest.fixture(scope="module")
def records():
    return [r for recs in _subset().values() for r in recs]


def _responses(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _wrong(rec: dict) -> str:
    g = rec["group"]
    return {
        "applicable_actions_gen": "[]",
        "progression_gen": "[] []",
        "reachable_atom_gen": "(nosuch x)",
        "reachable_action_gen": "None",
        "validation_gen": "99",
        "action_justification_gen": "[]",
        "landmarks_gen": "None",
        "goal_closer_gen": "None",
    }[g]


def _rows(records):
    rows = []
    for r in records:
        rows.append({"id": r["id"], "group": r["group"], "model": "gold", "response": gold_response(r), "run": 7})
        rows.append(
            {"id": r["id"], "model": "wrong", "response": _wrong(r)}
            if r["group"] != "landmarks_gen"
            else {"id": r["id"], "group": "land", "model": "wrong", "response": _wrong(r)}
        )
    return rows


def test_score_end_to_end(tmp_path, data_dir, records, capsys):
    resp = _responses(tmp_path / "r.jsonl", _rows(records))
    out, rep = tmp_path / "items.jsonl", tmp_path / "report.json"
    code = main(
        ["score", "--data", str(data_dir), "--responses", str(resp), "--out", str(out), "--report", str(rep), "--quiet"]
    )
    text = capsys.readouterr().out
    assert code == 0, text
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(items) == 2 * len(records)
    for it in items:
        for key in ("id", "group", "task", "domain", "model", "score", "verdict", "reason", "metrics", "seconds"):
            assert key in it
        assert it["score"] in (0, 1)
    gold = [it for it in items if it["model"] == "gold"]
    assert all(it["score"] == 1 for it in gold) and all(it["run"] == 7 for it in gold)  # pass-through field
    wrong = [it for it in items if it["model"] == "wrong"]
    assert all(it["score"] == 0 for it in wrong)
    assert {it["verdict"] for it in wrong} >= {"incorrect", "hallucinated", "unparsed", "missed"}
    report = json.loads(rep.read_text())
    assert report["items"] == len(items) and report["unknown"] == 0
    assert report["models"]["gold"]["overall"]["accuracy"] == 1.0
    assert report["models"]["wrong"]["overall"]["accuracy"] == 0.0
    assert set(report["models"]["gold"]["tasks"]) == set(TASKS)
    assert "ferry" in report["models"]["gold"]["tasks"]["app"]["domains"]
    assert "gold" in text and "wrong" in text and "nexta" in text and "(all: " in text


def test_unknown_ids_are_an_error_listing_them(tmp_path, data_dir, records, capsys):
    rows = _rows(records[:2]) + [
        {"id": 12345, "response": "x"},
        {"id": records[0]["id"], "group": "nexta", "response": "x"},
    ]
    resp = _responses(tmp_path / "r.jsonl", rows)
    code = main(["score", "--data", str(data_dir), "--responses", str(resp), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "2 response(s) match no record" in err and "no record with id 12345" in err
    assert "line 5" in err and "line 6" in err and "Traceback" not in err


def test_gold_is_100_percent(tmp_path, data_dir, records, capsys):
    code = main(["score", "--data", str(data_dir), "--gold", "--quiet"])
    text = capsys.readouterr().out
    assert code == 0, text
    n = len(records)
    assert n == 16 and f"gold check: {n}/{n} stored answers score 1 (100.0%)" in text


def test_gold_reports_data_errors(tmp_path, capsys):
    recs = [r for r in acpbench_hard("dev", "reach") if str(r["id"]) == "-8682376828094741291"]
    (tmp_path / "reach.json").write_text(json.dumps(recs))
    code = main(["score", "--data", str(tmp_path / "reach.json"), "--gold", "--quiet"])
    text = capsys.readouterr().out
    assert code == 0
    assert "refuted by proof" in text and "data error: reach/-8682376828094741291" in text
    assert "delete-relaxation" in text


def test_reference_semantics_and_jobs(tmp_path, data_dir, records, capsys):
    resp = _responses(tmp_path / "r.jsonl", _rows(records))
    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert (
        main(
            [
                "score",
                "--data",
                str(data_dir),
                "--responses",
                str(resp),
                "--semantics",
                "reference",
                "--out",
                str(out1),
                "--quiet",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "score",
                "--data",
                str(data_dir),
                "--responses",
                str(resp),
                "--semantics",
                "reference",
                "--out",
                str(out2),
                "--quiet",
                "--jobs",
                "2",
            ]
        )
        == 0
    )
    a = [json.loads(line) for line in out1.read_text().splitlines()]
    b = [json.loads(line) for line in out2.read_text().splitlines()]
    assert [(x["id"], x["model"], x["score"]) for x in a] == [(x["id"], x["model"], x["score"]) for x in b]
    assert all(x["semantics"] == "reference" for x in a)
    assert all(x["score"] == 1 for x in a if x["model"] == "gold")
    capsys.readouterr()


@pytest.mark.parametrize(
    "lines,needle",
    [
        (['{"id": 1, "response": "x"}', "{not json"], "line 2: invalid JSON"),
        (['{"id": 1}'], "no 'response' field"),
        (['{"response": "x"}'], "no 'id' field"),
        (['{"id": 1, "response": 5}'], "'response' must be a string"),
        (["[1, 2]"], "expected a JSON object"),
    ],
)
def test_bad_response_files(tmp_path, data_dir, capsys, lines, needle):
    resp = tmp_path / "r.jsonl"
    resp.write_text("\n".join(lines) + "\n")
    code = main(["score", "--data", str(data_dir), "--responses", str(resp)])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err


def test_bad_arguments(tmp_path, data_dir, capsys):
    assert main(["score", "--data", str(tmp_path / "nope"), "--gold"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["score", "--data", str(data_dir), "--gold", "--jobs", "0"]) == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err
    assert main(["score", "--data", str(data_dir), "--gold", "--out", str(tmp_path / "no" / "x.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["score", "--data", str(data_dir)])
    assert e.value.code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('[{"id": 1, "group": "app"')
    assert main(["score", "--data", str(bad), "--gold"]) == 2
    assert "invalid JSON" in capsys.readouterr().err


def _bars(png, rgb=(0x1F, 0x77, 0xB4)) -> int:
    """How many bars of matplotlib's first colour cross the image's middle row (read back with
    matplotlib's own image reader)."""
    import matplotlib.image

    pixels = matplotlib.image.imread(png)
    row = pixels[pixels.shape[0] // 2, :, :3]
    target = [c / 255 for c in rgb]
    hits = [all(abs(float(px[i]) - target[i]) < 0.05 for i in range(3)) for px in row]
    return sum(1 for i, h in enumerate(hits) if h and (i == 0 or not hits[i - 1]))


def test_plots(tmp_path, data_dir, capsys):
    """Gold answers: one full bar per task in accuracy.png, and an IoU histogram per set task."""
    code = main(["score", "--data", str(data_dir), "--gold", "--quiet", "--plots", str(tmp_path / "plots")])
    capsys.readouterr()
    assert code == 0
    png = tmp_path / "plots" / "accuracy.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _bars(png) == len(list(data_dir.iterdir()))  # one bar per task, all of them 100% high
    for task in ("app", "prog"):
        hist = tmp_path / "plots" / f"iou_{task}.png"
        import matplotlib.image

        pixels = matplotlib.image.imread(hist)
        assert pixels[..., :3].std() > 0.05  # not blank


def test_plots_without_matplotlib_say_how_to_get_it(tmp_path, data_dir, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what `import matplotlib` meets when it is absent
    code = main(["score", "--data", str(data_dir), "--gold", "--quiet", "--plots", str(tmp_path / "plots")])
    assert code == 2 and "matplotlib is not installed" in capsys.readouterr().err


def test_examples_and_demo(capsys):
    from acptools import examples

    assert main(["examples"]) == 0
    assert capsys.readouterr().out.split() == examples.names()
    assert main(["demo", "--example", "ferry", "--budget", "20"]) == 0
    assert "nexta" in capsys.readouterr().out
    assert main(["demo", "--example", "nosuch"]) == 2
    assert "no bundled example" in capsys.readouterr().err


def test_installed_entry_point(tmp_path, data_dir):
    """`python -m acptools.cli`: a real process, its exit code, and no traceback on bad input."""
    ok = subprocess.run(
        [sys.executable, "-m", "acptools.cli", "score", "--data", str(data_dir / "val.json"), "--gold"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert ok.returncode == 0 and "100.0%" in ok.stdout and "[" in ok.stderr  # the progress bar
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "score",
            "--data",
            str(data_dir),
            "--responses",
            str(tmp_path / "missing.jsonl"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert bad.returncode == 2 and "no such file" in bad.stderr and "Traceback" not in bad.stderr
