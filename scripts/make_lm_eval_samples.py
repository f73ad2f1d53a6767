"""Re-create tests/data/lm_eval/: lm-eval `--log_samples` files written by lm-eval itself.

    python -m venv /tmp/lmeval-venv
    /tmp/lmeval-venv/bin/pip install lm-eval==0.4.13 "tarski[clingo]==0.8.2" pddl==0.4.2 kstar-planner==1.4.2 lark==1.1.9
    python scripts/make_lm_eval_samples.py --venv /tmp/lmeval-venv

Picks the records with the smallest PDDL from the bundled test split (PER_TASK per task, stored
answers that exact semantics confirms), gives each a scripted response (by position: the stored
answer written as text, a wrong answer, text with no answer in it, the stored answer in a wordier
form: val's index with a leading zero, which lm-eval's string comparison scores 0), and runs
`lm-eval run` three times through scripts/lm_eval_scripted_run.py: the eight
`acp_<task>_gen` tasks, the eight `acp_<task>_gen_with_pddl` tasks, and `acp_nexta_gen` with
lm-eval's chat template and multi-turn few-shot. lm-eval writes the samples and results files;
they are copied as written (date stamps and all) under tests/data/lm_eval/<run>/.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools.dataset import TASKS, acpbench_hard  # noqa: E402
from acptools.scoring import gold_response, score_response  # noqa: E402
from acptools.truth import task_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "lm_eval"
PER_TASK = 4
MODEL = "acme/planner-7b"
VARIANTS = ("gold", "wrong", "unparsable", "wordy")

# a wrong answer of each task's shape (reach and areach: something that holds or applies at the start)
WRONG = {"app": "[]", "prog": "[] []", "val": "99", "just": "[]", "land": "None", "nexta": "(noop)"}

RUNS = {  # folder -> lm-eval run arguments
    "plain": ["--tasks", ",".join(f"acp_{t}_gen" for t in TASKS)],
    "with_pddl": ["--tasks", ",".join(f"acp_{t}_gen_with_pddl" for t in TASKS)],
    "chat": ["--tasks", "acp_nexta_gen", "--apply_chat_template", "--fewshot_as_multiturn"],
}


def pick(task: str) -> list[dict]:
    """The PER_TASK records of the smallest PDDL whose stored answer exact semantics scores 1."""
    recs = sorted(acpbench_hard("test", task), key=lambda r: len(r["PDDL_domain"]) + len(r["PDDL_problem"]))
    chosen = []
    for r in recs:
        if score_response(r, gold_response(r), budget=30).score == 1:
            chosen.append(r)
            if len(chosen) == PER_TASK:
                return chosen
    raise SystemExit(f"fewer than {PER_TASK} usable {task} records")


def wrong(task: str, record: dict) -> str:
    if task not in ("reach", "areach"):
        return WRONG[task]
    t = task_for(record["PDDL_domain"], record["PDDL_problem"])
    return t.names(t.init)[0] if task == "reach" else t.questions.applicable()[0]


def response(task: str, record: dict, variant: str) -> str:
    gold = gold_response(record)
    return {
        "gold": gold,
        "wrong": wrong(task, record),
        "unparsable": "I am not sure what to answer here.",
        "wordy": f"The answer is {'0' + gold if task == 'val' else gold}",
    }[variant]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", required=True, type=Path, help="a virtualenv with lm-eval 0.4.x and its acpbench extras")
    args = ap.parse_args()
    python = args.venv / "bin" / "python"
    records = {t: pick(t) for t in TASKS}
    responses = {
        f"{r['group']}/{r['id']}": response(t, r, VARIANTS[i % len(VARIANTS)])
        for t, recs in records.items()
        for i, r in enumerate(recs)
    }
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.json"
        plan.write_text(json.dumps({"records": records, "responses": responses}))
        if OUT.exists():
            shutil.rmtree(OUT)
        for folder, run_args in RUNS.items():
            out = Path(tmp) / folder
            cmd = [
                str(python),
                str(ROOT / "scripts" / "lm_eval_scripted_run.py"),
                str(plan),
                "--",
                "--model",
                "acp-scripted",
                "--model_args",
                f"model={MODEL}",
                "--log_samples",
                "--output_path",
                str(out),
                *run_args,
            ]
            subprocess.run(
                cmd,
                check=True,
                env={"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": tmp},
            )
            shutil.copytree(out, OUT / folder)
    for f in sorted(OUT.rglob("*.json*")):
        print(f"{f.relative_to(ROOT)}  {f.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
