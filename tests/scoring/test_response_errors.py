"""A responses file with several kinds of bad rows: one error names every kind (with its lines), and
rows that match no record are named in the same message."""

from __future__ import annotations

import json

from acptools.cli import main
from acptools.dataset import acpbench_hard


def test_every_kind_of_bad_row_is_named_at_once(tmp_path, capsys):
    records = acpbench_hard("dev", "app")[:2]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    lines = [
        "{not json",
        json.dumps({"id": records[0]["id"]}),
        json.dumps({"id": 5, "response": 7}),
        "[1]",
        json.dumps({"response": "x"}),
        json.dumps({"id": 12345, "response": "[]"}),
        json.dumps({"id": records[1]["id"], "response": "[]"}),
        "{also not json",
    ]
    (tmp_path / "resp.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["score", "--data", str(tmp_path / "r.jsonl"), "--responses", str(tmp_path / "resp.jsonl")]) == 2
    err = capsys.readouterr().err
    for needle in (
        "7 bad row(s)",
        "line 1: invalid JSON",
        "line 8: invalid JSON",
        "line 2: no 'response' field",
        "line 3: 'response' must be a string",
        "line 4: expected a JSON object",
        "line 5: no 'id' field",
        "line 6: no record with id 12345",
    ):
        assert needle in err, needle
    assert "Traceback" not in err and err.count("\n") == 1
