#!/usr/bin/env python3
"""Rescoring a full lm-eval ACPBench Hard run: `acptools score --lm-eval` against `acptools score
--responses` on the same responses, each timed end to end as its own process.

    python benchmarks/lm_eval_rescore_bench.py --venv /tmp/lmeval-venv     # lm-eval writes the run first
    python benchmarks/lm_eval_rescore_bench.py --samples DIR               # an existing run's folder

With --venv, lm-eval itself (scripts/lm_eval_scripted_run.py, a scripted model) runs the eight
`acp_<task>_gen` tasks on the 640 bundled test records and writes the samples files; the model
answers with the stored answer on even positions and a wrong one (the stored answer of the next
record) on odd ones. The raw generations of the samples files are then also written as a
`--responses` JSONL (id, group, model, response), so both commands grade identical text.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acptools.dataset import TASKS, acpbench_hard  # noqa: E402
from acptools.scoring import gold_response  # noqa: E402


def run_lm_eval(venv: Path, work: Path) -> Path:
    records = {t: acpbench_hard("test", t) for t in TASKS}
    responses = {}
    for recs in records.values():
        for i, r in enumerate(recs):
            responses[f"{r['group']}/{r['id']}"] = gold_response(recs[i + 1 if i % 2 and i + 1 < len(recs) else i])
    plan = work / "plan.json"
    plan.write_text(json.dumps({"records": records, "responses": responses}))
    out = work / "lm_eval_out"
    cmd = [
        str(venv / "bin" / "python"),
        str(ROOT / "scripts" / "lm_eval_scripted_run.py"),
        str(plan),
        "--",
        "--model",
        "acp-scripted",
        "--model_args",
        "model=bench/model",
        "--log_samples",
        "--output_path",
        str(out),
        "--tasks",
        ",".join(f"acp_{t}_gen" for t in TASKS),
    ]
    t0 = time.perf_counter()
    with open(work / "lm_eval.log", "w") as log:
        subprocess.run(
            cmd,
            check=True,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": str(work)},
        )
    print(
        f"lm-eval run (generation by the scripted model + lm-eval's own acp_utils scoring): "
        f"{time.perf_counter() - t0:.1f} s"
    )
    return out


def responses_file(samples_dir: Path, path: Path) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for f in sorted(samples_dir.rglob("samples_acp_*_gen_*.jsonl")):
            for line in f.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                out.write(
                    json.dumps(
                        {
                            "id": row["doc"]["id"],
                            "group": row["doc"]["group"],
                            "model": "bench/model",
                            "response": row["resps"][0][0],
                        }
                    )
                    + "\n"
                )
                n += 1
    return n


def front_end(samples: Path, responses: Path, repeat: int = 5) -> tuple[float, float]:
    """Seconds (best of `repeat`) to turn each input into (record, response) pairs, in process: what
    --lm-eval adds or saves before the (identical) grading."""
    from acptools.dataset import load_records
    from acptools.scoring import batch, lm_eval_samples

    def lm_eval() -> int:
        return len([(row.pop("_record"), row) for row in lm_eval_samples.read_samples([samples])])

    def plain() -> int:
        return len(batch.match(load_records("acpbench-hard:test"), batch.read_responses(responses)))

    best = []
    for fn in (lm_eval, plain):
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        best.append(min(times))
    return best[0], best[1]


def timed(cmd: list[str], log: Path) -> float:
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.run(
            cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT))
        )
    if proc.returncode not in (0, 1):
        sys.exit(f"failed: {' '.join(cmd)}\n{log.read_text()[-2000:]}")
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--venv", type=Path, help="a virtualenv with lm-eval 0.4.x and its acpbench extras")
    src.add_argument("--samples", type=Path, help="a folder holding an lm-eval run's samples files")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="end-to-end runs of each command (alternating; 0: none)")
    ap.add_argument("--keep", type=Path, help="copy the samples files written with --venv to this folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        samples = run_lm_eval(args.venv, work) if args.venv else args.samples
        if args.keep:
            shutil.copytree(samples, args.keep, dirs_exist_ok=True)
        n = responses_file(samples, work / "responses.jsonl")
        lm_front, plain_front = front_end(samples, work / "responses.jsonl")
        print(
            f"{n} responses; reading them into (record, response) pairs, best of 5: --lm-eval {lm_front:.3f} s, "
            f"--data acpbench-hard:test --responses {plain_front:.3f} s"
        )
        if not args.repeat:
            return 0
        base = [sys.executable, "-m", "acptools.cli", "score", "--quiet", "--no-cache", "--jobs", str(args.jobs)]
        commands = {
            "score --lm-eval": base + ["--lm-eval", str(samples), "--out", str(work / "a.jsonl")],
            "score --responses": base
            + [
                "--data",
                "acpbench-hard:test",
                "--responses",
                str(work / "responses.jsonl"),
                "--out",
                str(work / "b.jsonl"),
            ],
        }
        times: dict[str, list[float]] = {k: [] for k in commands}
        for r in range(args.repeat):
            for name, cmd in commands.items():
                times[name].append(timed(cmd, work / f"{name.split()[-1][2:]}.{r}.log"))
        a = [json.loads(x) for x in (work / "a.jsonl").read_text().splitlines()]
        b = [json.loads(x) for x in (work / "b.jsonl").read_text().splitlines()]
        key = lambda it: (it["task"], str(it["id"]))  # noqa: E731
        sa, sb = ({key(x): (x["score"], x["verdict"]) for x in items} for items in (a, b))
        same = sa == sb
        for k in sorted(k for k in sa.keys() | sb.keys() if sa.get(k) != sb.get(k))[:10]:
            print(f"  differs: {k}: --lm-eval {sa.get(k)} vs --responses {sb.get(k)}")
        print(f"{n} responses (8 acp_*_gen tasks x 80 test records), --jobs {args.jobs}; scores identical: {same}")
        for name, ts in times.items():
            print(f"  acptools {name:18} {min(ts):7.2f} s  (runs: {', '.join(f'{t:.2f}' for t in ts)})")
        ratio = min(times["score --lm-eval"]) / min(times["score --responses"])
        print(f"  ratio --lm-eval / --responses: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
