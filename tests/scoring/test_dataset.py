"""acptools.dataset: the bundled ACPBench Hard copy, named sources, files, and the optional Hub loader
(tested offline with a stand-in `datasets` module: no test needs the network)."""

from __future__ import annotations

import gzip
import json
import sys
import types

import pytest

from acptools import AcpError
from acptools import dataset as D
from acptools.cli import main

SIZES = {"dev": 40, "test": 80}


def test_bundled_copy_is_complete_and_exact():
    for split, n in SIZES.items():
        for task in D.TASKS:
            recs = D.acpbench_hard(split, task)
            assert len(recs) == n, (split, task)
            assert {D.task_of(r) for r in recs} == {task}
            assert all(list(r) == list(D.FIELDS) for r in recs)
            assert all(type(r["id"]) is int for r in recs)
    assert len(D.acpbench_hard("test")) == 640 and len(D.acpbench_hard("dev")) == 320
    assert len(D.acpbench_hard()) == 960 and len({r["id"] for r in D.acpbench_hard()}) > 900
    assert len(D.acpbench_hard(task="nexta")) == 120


def test_bundle_ships_license_and_notice():
    license_text = (D.BUNDLED / "LICENSE-CDLA-Permissive-2.0.txt").read_text(encoding="utf-8")
    assert license_text.startswith("Community Data License Agreement – Permissive – Version 2.0")
    assert "makes available the text of this agreement with the shared Data" in license_text
    notice = (D.BUNDLED / "README.md").read_text(encoding="utf-8")
    for must in ("IBM/ACPBench", "CDLA-Permissive-2.0", "Kokel", "ibm-research/acp_bench"):
        assert must in notice


def test_bundled_files_are_canonical_deterministic_gzip():
    """Each file is exactly what encode_jsonl_gz writes for its records (mtime 0, no name), so
    scripts/bundle_acpbench_hard.py re-creates the same bytes."""
    for split in D.SPLITS:
        for task in D.TASKS:
            raw = D.bundled_file(split, task).read_bytes()
            assert raw[4:8] == b"\0\0\0\0" and not raw[3] & 0x08  # mtime 0, no FNAME field
            again = D.encode_jsonl_gz(D.acpbench_hard(split, task))
            assert gzip.decompress(again) == gzip.decompress(raw)
            assert again[:10] == raw[:10]


def test_64_bit_ids_are_exact(tmp_path):
    recs = D.acpbench_hard("test", "val")
    big = [r for r in recs if abs(r["id"]) > 2**53]
    assert big, "the test split has ids beyond a float's exact range"
    assert any(int(float(r["id"])) != r["id"] for r in big)  # a float would have changed these
    # round trips: bundled -> JSON array file -> JSONL -> gzip'd JSONL, each read back exactly
    (tmp_path / "a.json").write_text(json.dumps(big))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in big))
    (tmp_path / "c.jsonl.gz").write_bytes(D.encode_jsonl_gz(big))
    for name in ("a.json", "b.jsonl", "c.jsonl.gz"):
        assert [r["id"] for r in D.load_records(tmp_path / name)] == [r["id"] for r in big]
    assert D.load_records(str(tmp_path)) == big * 3


@pytest.mark.parametrize(
    "source, n, tasks, splits",
    [
        ("acpbench-hard", 960, set(D.TASKS), 2),
        ("acpbench-hard:test", 640, set(D.TASKS), 1),
        ("acpbench-hard:dev", 320, set(D.TASKS), 1),
        ("acpbench-hard:test:nexta", 80, {"nexta"}, 1),
        ("acpbench-hard:nexta:test", 80, {"nexta"}, 1),
        ("acpbench-hard:land", 120, {"land"}, 2),
        ("acpbench-hard:dev:goal_closer_gen", 40, {"nexta"}, 1),
    ],
)
def test_named_sources(source, n, tasks, splits):
    recs = D.load_records(source)
    assert len(recs) == n and {D.task_of(r) for r in recs} == tasks


def test_named_source_order_and_mix(tmp_path):
    dev_then_test = D.load_records("acpbench-hard:nexta")
    assert dev_then_test == D.acpbench_hard("dev", "nexta") + D.acpbench_hard("test", "nexta")
    (tmp_path / "x.json").write_text(json.dumps(D.acpbench_hard("dev", "app")[:2]))
    mixed = D.load_records("acpbench-hard:dev:val", tmp_path / "x.json")
    assert len(mixed) == 42 and D.task_of(mixed[-1]) == "app"


@pytest.mark.parametrize(
    "source, says",
    [
        ("acpbench-hard:tset", "'tset' is not a split or task of acpbench-hard"),
        ("acpbench-hard:test:nexta:app", "'app' is not a split or task"),
        ("acpbench-hard:dev:test", "'test' is not a split or task"),
        ("acpbench:test", "unknown data source 'acpbench:test'"),
        ("hf:acpbench", "unknown Hugging Face source 'hf:acpbench'"),
        ("no/such/folder", "no such file or folder"),
    ],
)
def test_unknown_sources_are_clear_errors(source, says):
    with pytest.raises(AcpError) as e:
        D.load_records(source)
    text = str(e.value)
    assert says in text, text
    assert "acpbench-hard[:dev|test][:TASK]" in text  # says what would work


def test_function_arguments_are_checked():
    with pytest.raises(AcpError, match="unknown split 'train'"):
        D.acpbench_hard("train")
    with pytest.raises(AcpError, match="unknown task 'nextaction'.*nexta"):
        D.acpbench_hard("test", "nextaction")


def test_cli_scores_a_named_source(tmp_path, capsys):
    one = D.acpbench_hard("dev", "val")[0]
    rows = tmp_path / "r.jsonl"
    rows.write_text(json.dumps({"id": one["id"], "response": str(one["answer"])}) + "\n")
    code = main(
        [
            "score",
            "--data",
            "acpbench-hard:dev:val",
            "--responses",
            str(rows),
            "--quiet",
            "--out",
            str(tmp_path / "items.jsonl"),
        ]
    )
    assert code == 0, capsys.readouterr()
    item = json.loads((tmp_path / "items.jsonl").read_text())
    assert item["id"] == one["id"] and item["verdict"] == "correct"  # the 64-bit id matched exactly
    assert main(["score", "--data", "acpbench-hard:dev:vla", "--gold"]) == 2
    err = capsys.readouterr().err
    assert "'vla' is not a split or task" in err and "Traceback" not in err


# ------------------------------------------------------------------------------- Hugging Face loader


def _hub_rows(task: str, split: str) -> list[dict]:
    """What `datasets` yields for a config: our records, with the Hub's typing quirks a loader must undo."""
    ours = D.acpbench_hard({"validation": "dev", "test": "test"}[split], task)
    rows = []
    for r in ours:
        row = dict(r, extra_column="ignored")
        if task == "nexta":
            row["answer"] = dict(r["answer"], opt=int(r["answer"]["opt"]))  # int64 in parquet
        if task == "val":
            row["answer"] = str(r["answer"])
        if task == "land":
            row["answer"] = json.dumps(r["answer"])  # a JSON string column
        rows.append(row)
    return rows


@pytest.fixture
def fake_datasets(monkeypatch):
    calls = []
    mod = types.ModuleType("datasets")

    def load_dataset(repo, name, split, revision=None):
        calls.append((repo, name, split, revision))
        assert name.startswith("acp_") and name.endswith("_gen")
        return _hub_rows(name[4:-4], split)

    mod.load_dataset = load_dataset
    monkeypatch.setitem(sys.modules, "datasets", mod)
    return calls


def test_hub_rows_map_to_our_records(fake_datasets):
    got = D.load_hub("dev")
    assert got == D.acpbench_hard("dev")
    assert [c[:3] for c in fake_datasets][:2] == [
        ("ibm-research/acp_bench", "acp_app_gen", "validation"),
        ("ibm-research/acp_bench", "acp_prog_gen", "validation"),
    ]
    assert len(fake_datasets) == 8
    assert D.load_records("hf:acpbench-hard:test:nexta") == D.acpbench_hard("test", "nexta")
    assert fake_datasets[-1][1:3] == ("acp_nexta_gen", "test")


def test_hub_row_mapping_details():
    rec = D.acpbench_hard("test", "nexta")[0]
    row = dict(rec, id=str(rec["id"]), answer=dict(rec["answer"], maybe=None, opt=int(rec["answer"]["opt"])))
    row.pop("group")
    out = D.hub_record(row, "nexta")
    assert out["id"] == rec["id"] and out["group"] == "goal_closer_gen"
    assert out["answer"]["maybe"] == [] and out["answer"]["opt"] == rec["answer"]["opt"]
    with pytest.raises(AcpError, match="not an integer"):
        D.hub_record(dict(rec, id=float(rec["id"])), "nexta")
    with pytest.raises(AcpError, match="lacks PDDL_domain"):
        D.hub_record({k: v for k, v in rec.items() if k != "PDDL_domain"}, "nexta")
    with pytest.raises(AcpError, match="is not task app"):
        D.hub_record(rec, "app")


def test_hub_without_the_extra_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    for call in (lambda: D.load_hub("test"), lambda: D.load_records("hf:acpbench-hard:test")):
        with pytest.raises(AcpError) as e:
            call()
        text = str(e.value)
        assert "'datasets' package" in text and "pip install 'acptools[hf]'" in text and "acpbench-hard:test" in text


def test_hub_without_network_is_a_clear_error(monkeypatch, capsys):
    mod = types.ModuleType("datasets")

    def load_dataset(*a, **k):
        raise ConnectionError("Couldn't reach 'ibm-research/acp_bench' on the Hub (LocalEntryNotFoundError)")

    mod.load_dataset = load_dataset
    monkeypatch.setitem(sys.modules, "datasets", mod)
    with pytest.raises(AcpError) as e:
        D.load_hub("test", "land")
    text = str(e.value)
    assert "acp_land_gen" in text and "ConnectionError" in text and "network" in text
    assert "acpbench-hard:test:land" in text  # the offline alternative
    assert main(["score", "--data", "hf:acpbench-hard:test:land", "--gold"]) == 2
    err = capsys.readouterr().err
    assert "network" in err and "Traceback" not in err
