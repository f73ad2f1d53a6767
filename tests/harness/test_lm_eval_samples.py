"""`acptools score --lm-eval`: samples files written by lm-eval 0.4.13 itself (tests/data/lm_eval/, made
by scripts/make_lm_eval_samples.py with a scripted model), graded end to end through the command line."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from acptools.answers import canonical_task
from acptools.cli import main
from acptools.dataset import TASKS
from tests.support.data import ROOT

DATA = ROOT / "tests" / "data" / "lm_eval"
FILES = sorted(DATA.rglob("samples_*.jsonl"))
# the scripted model's answer by doc position (scripts/make_lm_eval_samples.py)
GOLD, WRONG, UNPARSABLE, WORDY = range(4)


def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _score(tmp_path, capsys, *args):
    out, rep = tmp_path / "items.jsonl", tmp_path / "report.json"
    code = main(["score", "--quiet", "--out", str(out), "--report", str(rep), *args])
    text = capsys.readouterr()
    items = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
    report = json.loads(rep.read_text()) if rep.exists() else None
    return code, text.out, text.err, items, report


def test_the_data_is_lm_evals_format():
    """The committed files are lm-eval's: every ACPBench Hard task, both prompt variants, a chat run."""
    names = {re.match(r"samples_(.+)_\d{4}-", f.name).group(1) for f in FILES}
    assert names == {f"acp_{t}_gen" for t in TASKS} | {f"acp_{t}_gen_with_pddl" for t in TASKS}
    chat = [f for f in FILES if f.parts[-3] == "chat"]
    assert chat and "<|user|>" in _rows(chat[0])[0]["arguments"]["gen_args_0"]["arg_0"]
    for f in FILES:
        for row in _rows(f):
            assert {
                "doc_id",
                "doc",
                "target",
                "arguments",
                "resps",
                "filtered_resps",
                "filter",
                "metrics",
                "doc_hash",
                "prompt_hash",
                "target_hash",
                "score",
            } <= set(row)


@pytest.mark.parametrize("name", [f"acp_{t}_gen{v}" for t in TASKS for v in ("", "_with_pddl")])
def test_lm_eval_task_names_are_tasks(name):
    assert canonical_task(name) == name.split("_")[1]


def test_tags_are_not_tasks():
    with pytest.raises(ValueError, match="acp_<task>_gen_with_pddl"):
        canonical_task("acp_gen_2shot")


def test_score_lm_eval_samples(tmp_path, capsys):
    code, out, err, items, report = _score(tmp_path, capsys, "--lm-eval", str(DATA))
    assert code == 0, out + err
    assert "graded the raw generation (resps)" in out
    rows = {(str(f), row["doc_id"]): row for f in FILES for row in _rows(f)}
    texts = {str(f): f.read_text(encoding="utf-8") for f in FILES}
    assert len(items) == len(rows) == 4 * len(FILES)
    for it in items:
        row = rows[(it["file"], it["doc_id"])]
        assert it["model"] == "acme/planner-7b"
        assert type(it["id"]) is int and it["id"] == row["doc"]["id"]
        assert f'"id": {it["id"]},' in texts[it["file"]]  # the same digits as lm-eval wrote
        assert it["graded"] == "resps" and it["lm_eval_metrics"] == {"score": row["score"]}
        kind = row["doc_id"] % 4
        if kind in (GOLD, WORDY):
            assert it["score"] == 1, it
        elif kind == WRONG:
            assert it["score"] == 0 and it["verdict"] not in ("unparsed", "correct"), it
        else:
            assert it["score"] == 0 and it["verdict"] == "unparsed", it
    side = report["lm_eval"]["side_by_side"]
    assert report["lm_eval"]["graded"] == "resps" and len(side) == len(FILES)
    for r in side:
        assert r["n"] == 4 and r["lm_eval_metric"] == "score" and r["exact_accuracy"] == 0.5
        # lm-eval compares val indices as strings: '09' for 9 is wrong there, right here
        flips = 1 if r["lm_eval_task"].startswith("acp_val_") else 0
        assert (r["compared"], r["agree"], r["lm_eval_0_exact_1"], r["lm_eval_1_exact_0"]) == (4, 4 - flips, flips, 0)
    assert "acp_nexta_gen_with_pddl" in out and "lm-eval" in out


def test_reference_semantics_reproduces_lm_evals_own_scores(tmp_path, capsys):
    code, out, err, items, _ = _score(tmp_path, capsys, "--lm-eval", str(DATA), "--semantics", "reference")
    assert code == 0, out + err
    assert len(items) == 4 * len(FILES)
    assert all(it["score"] == it["lm_eval_metrics"]["score"] for it in items)


def test_filtered_grades_what_lm_eval_extracted(tmp_path, capsys):
    code, out, err, items, report = _score(
        tmp_path, capsys, "--lm-eval", *map(str, FILES), "--filtered", "--model", "someone/else"
    )
    assert code == 0, out + err
    assert "graded lm-eval's filtered response (filtered_resps" in out
    assert report["lm_eval"]["graded"] == "filtered_resps"
    rows = {(str(f), row["doc_id"]): row for f in FILES for row in _rows(f)}
    for it in items:
        row = rows[(it["file"], it["doc_id"])]
        assert it["model"] == "someone/else" and it["graded"] == "filtered_resps"
        if row["doc_id"] % 4 == GOLD:
            assert it["score"] == 1, it
        if row["doc_id"] % 4 == UNPARSABLE:  # lm-eval's grammar read 'None' or [] out of the prose
            assert not it["parsed"].get("items"), it


def test_records_from_data_instead_of_the_docs(tmp_path, capsys):
    code, out, err, items, _ = _score(
        tmp_path, capsys, "--lm-eval", str(DATA / "plain"), "--data", "acpbench-hard:test"
    )
    assert code == 0, out + err
    assert len(items) == 32 and sum(it["score"] for it in items) == 16


def _copy_with(tmp_path, src, change) -> str:
    """A copy of a samples file (same name, beside its results file) with every row changed."""
    folder = tmp_path / "run" / src.parent.name
    folder.mkdir(parents=True)
    for f in src.parent.glob("results_*.json"):
        shutil.copy(f, folder)
    dst = folder / src.name
    dst.write_text("".join(change(line) + "\n" for line in src.read_text(encoding="utf-8").splitlines()))
    return str(dst)


def test_a_float_id_is_refused(tmp_path, capsys):
    src = next(f for f in FILES if "nexta_gen_2" in f.name and "plain" in str(f))
    path = _copy_with(
        tmp_path, src, lambda line: re.sub(r'"id": (-?\d+)', lambda m: f'"id": {float(m.group(1))!r}', line, count=1)
    )
    code, out, err, _items, _ = _score(tmp_path, capsys, "--lm-eval", path)
    assert code == 2 and "is a float" in err and "64-bit ids must not pass through a float" in err and "line 1" in err


def test_a_rounded_id_says_it_looks_rounded(tmp_path, capsys):
    """What `jq` 1.6 does to the ids: the nearest double, printed as an integer."""
    src = next(f for f in FILES if "nexta_gen_2" in f.name and "plain" in str(f))
    row = _rows(src)[0]
    rounded = int(float(row["doc"]["id"]))
    assert rounded != row["doc"]["id"]
    path = _copy_with(tmp_path, src, lambda line: line.replace(f'"id": {row["doc"]["id"]},', f'"id": {rounded},'))
    code, out, err, _items, _ = _score(tmp_path, capsys, "--lm-eval", path, "--data", "acpbench-hard:test:nexta")
    assert code == 2 and f"no nexta record with id {rounded}" in err
    assert f"looks rounded: record id {row['doc']['id']}" in err and "64-bit ids must not pass through a float" in err
    resp = tmp_path / "r.jsonl"
    resp.write_text(json.dumps({"id": rounded, "group": "acp_nexta_gen_with_pddl", "response": "(a)"}) + "\n")
    code, out, err, _items, _ = _score(tmp_path, capsys, "--data", "acpbench-hard:test", "--responses", str(resp))
    assert code == 2 and "looks rounded" in err and "unknown group" not in err


def test_bad_lm_eval_input(tmp_path, capsys):
    other = tmp_path / "samples_hellaswag_2026-01-01T00-00-00.000000.jsonl"
    other.write_text("{}\n")
    code, _out, err, _items, _ = _score(tmp_path, capsys, "--lm-eval", str(other))
    assert code == 2 and "not an lm-eval ACPBench Hard samples file" in err
    code, _out, err, _items, _ = _score(tmp_path, capsys, "--lm-eval", str(tmp_path / "nowhere"))
    assert code == 2 and "no such file or folder" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _out, err, _items, _ = _score(tmp_path, capsys, "--lm-eval", str(empty))
    assert code == 2 and "no ACPBench Hard samples files" in err
    code, _out, err, _items, _ = _score(tmp_path, capsys, "--responses", str(other))
    assert code == 2 and "--data is required" in err
    code, _out, err, _items, _ = _score(tmp_path, capsys, "--data", "acpbench-hard:test", "--gold", "--filtered")
    assert code == 2 and "--filtered only applies to --lm-eval" in err
    src = next(f for f in FILES if "land_gen_2" in f.name and "plain" in str(f))
    path = _copy_with(
        tmp_path, src, lambda line: line.replace('"group": "landmarks_gen"', '"group": "goal_closer_gen"')
    )
    code, _out, err, _items, _ = _score(tmp_path, capsys, "--lm-eval", path)
    assert code == 2 and "is task nexta, but the file is acp_land_gen" in err


def test_a_doc_without_group_takes_the_files_task(tmp_path, capsys):
    src = next(f for f in FILES if "nexta_gen_2" in f.name and "plain" in str(f))
    path = _copy_with(tmp_path, src, lambda line: line.replace('"group": "goal_closer_gen", ', ""))
    assert '"group"' not in open(path).read().split('"doc_hash"')[0]
    code, out, err, items, _ = _score(tmp_path, capsys, "--lm-eval", path)
    assert code == 0, out + err
    assert [it["group"] for it in items] == ["goal_closer_gen"] * 4 and sum(it["score"] for it in items) == 2
