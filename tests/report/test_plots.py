"""--plots: PNGs written and not blank, one bar per (model, task) with a value, 0% drawn and labelled."""

from __future__ import annotations

import json

import pytest

from acptools.cli import main
from acptools.dataset import acpbench_hard, domain_name
from acptools.scoring import gold_response

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is in the test extra: pip install -e '.[test]'")
matplotlib.use("Agg")


def _non_blank(path) -> bool:
    from PIL import Image

    img = Image.open(path).convert("L")
    lo, hi = img.getextrema()
    return hi - lo > 100 and sum(1 for c in img.histogram() if c) > 10


def test_accuracy_bars_label_every_bar_and_show_zero():
    import matplotlib.pyplot as plt

    from acptools.scoring.score_report import _accuracy_bars

    models, tasks = ["m1", "m2"], ["app", "reach", "val"]
    grid = [[50.0, 0.0, None], [100.0, 25.0, 0.0]]  # None: the model has no item of that task
    ns = [[4, 3, 0], [4, 3, 2]]
    fig = _accuracy_bars(plt, models, tasks, grid, ns)
    ax = fig.axes[0]
    bars = [c for c in ax.containers if not c.get_label().startswith("_zero")]
    assert sum(len(c.patches) for c in bars) == 5  # one per value given, the zeros included
    markers = [c for c in ax.containers if c.get_label().startswith("_zero")]
    assert len(markers) == 2 and all(p.get_height() > 0 for c in markers for p in c.patches)
    labels = sorted(t.get_text() for t in ax.texts)
    assert labels == sorted(["50%\nn=4", "0%\nn=3", "100%\nn=4", "25%\nn=3", "0%\nn=2"])
    plt.close(fig)


def test_score_plots_are_written_and_not_blank(tmp_path):
    records = [r for r in acpbench_hard("dev", "app") if domain_name(r) == "ferry"][:3]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    rows = [{"id": r["id"], "model": "right", "response": gold_response(r)} for r in records]
    rows += [{"id": r["id"], "model": "wrong", "response": "[]"} for r in records]
    (tmp_path / "resp.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
    assert (
        main(
            [
                "score",
                "--data",
                str(tmp_path / "r.jsonl"),
                "--responses",
                str(tmp_path / "resp.jsonl"),
                "--plots",
                str(tmp_path / "plots"),
                "--quiet",
            ]
        )
        == 0
    )
    for name in ("accuracy.png", "iou_app.png"):
        assert _non_blank(tmp_path / "plots" / name)


def test_rollout_plots_are_written_and_not_blank(tmp_path):
    assert main(["rollout", "--tasks", "ferry", "--policy", "optimal", "--plots", str(tmp_path / "p"), "--quiet"]) == 0
    for name in ("rates.png", "verdicts.png", "regret.png"):
        assert _non_blank(tmp_path / "p" / name)
