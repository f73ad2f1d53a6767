#!/usr/bin/env python3
"""Scorer benchmark: acptools' scorer (exact and reference semantics) against the published
reference scorer (lm-eval's acp_utils, run from the reference venv: $ACP_REFVENV, default .refvenv in the
repository, see docs/reference-scorer.md section 6), side by side on the same responses.

    python benchmarks/score_bench.py                       # test split, gold + wrong/quirk responses
    python benchmarks/score_bench.py --data acptools/data/acpbench_hard/dev --fuzz 3000

Each scorer runs as its own process, end to end (start-up, reading the data, scoring, writing
items), one after the other, and is timed from the outside:

  reference   .refvenv/bin/python benchmarks/reference_scorer.py --jobs R       (lm-eval's scorer)
  exact       python -m acptools.cli score --jobs 1 / --jobs 2                    (exact semantics)
  ref-mode    python -m acptools.cli score --semantics reference --jobs 1         (our reimplementation)

Then it prints wall times and ratios, per-task item seconds, the agreement of our reference mode
with the reference per task (and every kind of disagreement), and where exact semantics differ
from the reference (per task and response variant, with an example reason). --fuzz N also
compares our reimplementation of the reference's grammar extraction with the real one on N
randomly mutated responses. Results go to WORKDIR/bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REF_PY = Path(os.environ.get("ACP_REFVENV", ROOT / ".refvenv")) / "bin" / "python"
TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
SHORT = {
    "applicable_actions_gen": "app",
    "progression_gen": "prog",
    "reachable_atom_gen": "reach",
    "reachable_action_gen": "areach",
    "validation_gen": "val",
    "action_justification_gen": "just",
    "landmarks_gen": "land",
    "goal_closer_gen": "nexta",
}
START = {
    "app": "action_list",
    "prog": "progression_list",
    "reach": "act",
    "areach": "act",
    "val": "index",
    "just": "action_list",
    "land": "act",
    "nexta": "action_name",
}


def run(cmd, log: Path) -> float:
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{log.read_text()[-2000:]}")
    return wall


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def task_of(row: dict) -> str:
    return row.get("task") or SHORT.get(row.get("group"), row.get("group"))


def per_task_seconds(items: list[dict]) -> dict:
    out = defaultdict(float)
    for it in items:
        out[task_of(it)] += it.get("seconds") or 0.0
    return {t: round(out[t], 2) for t in TASKS if t in out}


def agreement(ours: list[dict], ref: list[dict]) -> tuple[dict, list]:
    per = defaultdict(lambda: [0, 0])
    kinds: Counter = Counter()
    examples: dict = {}
    for o, r in zip(ours, ref):
        assert str(o["id"]) == str(r["id"]) and o.get("model") == r.get("model"), (o["id"], r["id"])
        t = task_of(o)
        rs = None if r.get("score") is None else int(r["score"])
        per[t][1] += 1
        if o["score"] == rs:
            per[t][0] += 1
        else:
            k = (t, o.get("model"), o["score"], rs)
            kinds[k] += 1
            examples.setdefault(k, (o["id"], o["reason"][:160], (r.get("error") or r.get("log") or "")[:120]))
    table = {t: {"agree": a, "n": n, "pct": round(100 * a / n, 2)} for t, (a, n) in per.items()}
    return table, [(k, v, examples[k]) for k, v in kinds.most_common()]


def exact_vs_reference(exact: list[dict], ref: list[dict]) -> list:
    kinds: Counter = Counter()
    ex: dict = {}
    for o, r in zip(exact, ref):
        rs = None if r.get("score") is None else int(r["score"])
        if o["score"] != rs:
            k = (task_of(o), o.get("model"), o["score"], rs, o["verdict"])
            kinds[k] += 1
            ex.setdefault(k, o["reason"][:170])
    return [(k, v, ex[k]) for k, v in sorted(kinds.items())]


def mutate(rng: random.Random, s: str) -> str:
    """A response with 1-4 random edits: inserted punctuation/words, deletions, truncation, case, prose."""
    alphabet = list("()[],. :\n\t*-_?!0123456789abcXYZ") + [
        "None",
        "none",
        " (",
        ") ",
        "\n\n",
        "Q:",
        "[]",
        "((",
        "))",
        "é",
        "  ",
        "**Question**:",
    ]
    for _ in range(rng.randint(1, 4)):
        op, i = rng.random(), rng.randint(0, len(s))
        if op < 0.45:
            s = s[:i] + rng.choice(alphabet) + s[i:]
        elif op < 0.7 and s:
            s = s[:i] + s[i + 1 :]
        elif op < 0.8:
            s = s[:i]
        elif op < 0.9:
            s = s.upper() if rng.random() < 0.5 else s.lower()
        else:
            s = rng.choice(["The answer is ", "Answer: ", "Let me think (step by step): ", "**Final Answer**: "]) + s
    return s


def fuzz(responses: list[dict], n: int, work: Path, seed: int = 0) -> dict:
    """Our reimplementation of the reference's extraction vs the real one on mutated responses."""
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        row = rng.choice(responses)
        s = mutate(rng, row["response"])
        cases.append({"task": SHORT[row["group"]], "start": START[SHORT[row["group"]]], "text": s})
    (work / "fuzz_cases.json").write_text(json.dumps(cases))
    script = (
        "import json, io, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    from lm_eval.tasks.acpbench.gen_2shot import acp_utils as A\n"
        "    from lm_eval.models.utils import postprocess_generated_text as cut\n"
        f"cases = json.load(open({str(work / 'fuzz_cases.json')!r}))\n"
        "UNTIL = ['\\n\\n\\n\\n', '\\n\\n', '**Question**:', '**Question:**', 'Q:']\n"
        "G = {'app': 'applicable_actions_gen', 'prog': 'progression_gen', 'reach': 'reachable_atom_gen',"
        " 'areach': 'reachable_action_gen', 'val': 'validation_gen', 'just': 'action_justification_gen',"
        " 'land': 'landmarks_gen', 'nexta': 'goal_closer_gen'}\n"
        "P = {}\n"
        "out = []\n"
        "for c in cases:\n"
        "    p = P.get(c['start']) or P.setdefault(c['start'], A.ACPGrammarParser(c['start']))\n"
        "    out.append(p.parse(A.clean_answer(cut(c['text'], UNTIL, None), G[c['task']])))\n"
        f"json.dump(out, open({str(work / 'fuzz_ref.json')!r}, 'w'))\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run([str(REF_PY), "-c", script], check=True, cwd=work, env=env)
    ref = json.loads((work / "fuzz_ref.json").read_text())
    sys.path.insert(0, str(ROOT))
    from acptools.answers.lm_eval_extract import extract

    bad = []
    per = defaultdict(lambda: [0, 0])
    for c, r in zip(cases, ref):
        o = extract(c["task"], c["text"])
        per[c["task"]][1] += 1
        if o == r:
            per[c["task"]][0] += 1
        else:
            bad.append({"task": c["task"], "text": c["text"][:120], "ours": o, "reference": r})
    return {"n": n, "agree": n - len(bad), "per_task": {t: v for t, v in sorted(per.items())}, "examples": bad[:10]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--data",
        default=str(ROOT / "acptools" / "data" / "acpbench_hard" / "test"),
        help="a folder or file of records (default: the bundled test split)",
    )
    ap.add_argument("--responses", help="responses JSONL (default: make_reference_responses.py output)")
    ap.add_argument("--workdir", help="where outputs go (default: a fresh temporary folder)")
    ap.add_argument("--ref-jobs", type=int, default=1, help="--jobs for the reference scorer (default 1)")
    ap.add_argument("--skip-reference", action="store_true", help="reuse WORKDIR/ref_items.jsonl and ref_wall")
    ap.add_argument("--fuzz", type=int, default=0, metavar="N", help="grammar differential test on N strings")
    ap.add_argument(
        "--fuzz-score",
        type=int,
        default=0,
        metavar="N",
        help="also score N mutated responses with both scorers (reference mode vs reference)",
    )
    a = ap.parse_args()

    work = Path(a.workdir or tempfile.mkdtemp(prefix="acptools-score-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    if not REF_PY.exists():
        sys.exit(f"the reference venv is missing: {REF_PY} (see docs/reference-scorer.md section 6)")
    resp = Path(a.responses) if a.responses else work / "responses.jsonl"
    if not a.responses:
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "make_reference_responses.py"),
                "--data",
                a.data,
                "--out",
                str(resp),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    rows = read(resp)
    print(f"{len(rows)} responses ({Counter(r['model'].split(':')[0] for r in rows)}) on {a.data}; outputs in {work}")
    us = [sys.executable, "-m", "acptools.cli", "score", "--data", a.data, "--responses", str(resp), "--quiet"]
    store = ["--cache", str(work / "proofs.sqlite")]
    walls = {}
    if a.skip_reference and (work / "ref_items.jsonl").exists():
        walls["reference"] = json.loads((work / "bench.json").read_text())["wall"]["reference"]
    else:
        walls["reference"] = run(
            [
                str(REF_PY),
                str(ROOT / "benchmarks" / "reference_scorer.py"),
                "--data",
                a.data,
                "--responses",
                str(resp),
                "--out",
                str(work / "ref_items.jsonl"),
                "--jobs",
                str(a.ref_jobs),
                "--quiet",
            ],
            work / "ref.log",
        )
    print(f"reference scorer (lm-eval, --jobs {a.ref_jobs}): {walls['reference']:.1f} s")
    (work / "proofs.sqlite").unlink(missing_ok=True)
    # cold runs prove everything afresh; then a run fills a fresh proof store and one more reads it (warm:
    # a second model's responses to the same records)
    for name, extra in (
        ("exact-j1", ["--jobs", "1", "--no-cache"]),
        ("exact-j2", ["--jobs", "2", "--no-cache"]),
        ("refmode-j1", ["--semantics", "reference", "--jobs", "1", "--no-cache"]),
        ("fill-j2", ["--jobs", "2"] + store),
        ("warm-j2", ["--jobs", "2"] + store),
    ):
        walls[name] = run(us + extra + ["--out", str(work / f"{name}.jsonl")], work / f"{name}.log")
        print(f"acptools {name}: {walls[name]:.1f} s")

    ref = read(work / "ref_items.jsonl")
    exact = read(work / "exact-j1.jsonl")
    exact2 = read(work / "exact-j2.jsonl")
    refmode = read(work / "refmode-j1.jsonl")
    same_j2 = sum(1 for x, y in zip(exact, exact2) if x["score"] == y["score"])
    unknown = sum(1 for it in exact if it["verdict"] == "unknown")
    errors = sum(1 for it in exact + refmode if it["verdict"] == "error")
    ref_null = sum(1 for it in ref if it.get("score") is None)

    print("\n== wall time, end to end (each scorer is one process: start-up, data, scoring, output) ==")
    print(f"{'scorer':34} {'seconds':>8} {'speed-up vs reference':>22}")
    for name, label in (
        ("reference", "reference (lm-eval acp_utils)"),
        ("exact-j1", "acptools exact, --jobs 1"),
        ("exact-j2", "acptools exact, --jobs 2"),
        ("refmode-j1", "acptools reference mode, --jobs 1"),
        ("fill-j2", "acptools exact, --jobs 2, store fills"),
        ("warm-j2", "acptools exact, --jobs 2, warm store"),
    ):
        print(f"{label:34} {walls[name]:8.1f} {walls['reference'] / walls[name]:21.1f}x")
    warm = read(work / "warm-j2.jsonl")
    same_warm = sum(1 for x, y in zip(exact, warm) if (x["score"], x["verdict"]) == (y["score"], y["verdict"]))
    print(f"\nwarm store: the same (score, verdict) as the cold run on {same_warm}/{len(exact)} items")
    print(
        f"exact: unknown {unknown}, errors {errors}; --jobs 2 gives the same score on {same_j2}/{len(exact)} items;"
        f" reference scorer nulls (crash/timeout): {ref_null}"
    )

    print("\n== item seconds per task (sum over items; excludes start-up and loading) ==")
    st_ref, st_ex, st_rm = per_task_seconds(ref), per_task_seconds(exact), per_task_seconds(refmode)
    print(f"{'task':7} {'reference':>10} {'exact':>8} {'ref-mode':>9}")
    for t in TASKS:
        if t in st_ref:
            print(f"{t:7} {st_ref[t]:10.2f} {st_ex.get(t, 0):8.2f} {st_rm.get(t, 0):9.2f}")
    nexta_ex = sum(it["seconds"] for it in exact if task_of(it) == "nexta")
    print(f"exact, all but nexta: {sum(st_ex.values()) - nexta_ex:.2f} s of item time; nexta: {nexta_ex:.2f} s")

    agree, kinds = agreement(refmode, ref)
    tot_a = sum(v["agree"] for v in agree.values())
    tot_n = sum(v["n"] for v in agree.values())
    print(
        f"\n== agreement of acptools --semantics reference with the reference scorer: {tot_a}/{tot_n} items "
        f"({100 * tot_a / tot_n:.2f}%) =="
    )
    for t in TASKS:
        if t in agree:
            v = agree[t]
            print(f"{t:7} {v['agree']:5d}/{v['n']:<5d} {v['pct']:6.2f}%")
    for (t, model, ours, theirs), n, (rid, why, log) in kinds:
        print(
            f"  disagreement: {t} {model}: ours {ours} vs reference {theirs} on {n} item(s), e.g. id {rid}: "
            f"{why} | reference: {log}"
        )

    diffs = exact_vs_reference(exact, ref)
    print("\n== where exact semantics differ from the reference (task, variant, exact, reference, verdict: n) ==")
    for (t, model, o, r, verdict), n, why in diffs:
        print(f"  {t:6} {model:28} exact {o} ref {r} {verdict:14} {n:4d}  e.g. {why}")

    result = {
        "data": a.data,
        "responses": str(resp),
        "n": len(rows),
        "wall": walls,
        "ratio": {k: round(walls["reference"] / v, 2) for k, v in walls.items() if k != "reference"},
        "exact_unknown": unknown,
        "errors": errors,
        "jobs2_same": same_j2,
        "item_seconds": {"reference": st_ref, "exact": st_ex, "refmode": st_rm},
        "agreement": agree,
        "agreement_total": {"agree": tot_a, "n": tot_n, "pct": round(100 * tot_a / tot_n, 3)},
        "disagreements": [
            {"task": k[0], "model": k[1], "ours": k[2], "reference": k[3], "n": n, "example": list(e)}
            for k, n, e in kinds
        ],
        "exact_vs_reference": [
            {"task": k[0], "model": k[1], "exact": k[2], "reference": k[3], "verdict": k[4], "n": n, "example": w}
            for k, n, w in diffs
        ],
    }
    if a.fuzz:
        fz = fuzz(rows, a.fuzz, work)
        result["fuzz"] = fz
        print(f"\n== grammar extraction on {fz['n']} mutated responses: {fz['agree']}/{fz['n']} identical ==")
        for t, (ag, n) in fz["per_task"].items():
            print(f"  {t:7} {ag}/{n}")
        for ex in fz["examples"]:
            print(f"  differs: {ex}")
    if a.fuzz_score:
        rng = random.Random(1)
        frows = [
            dict(r, model="fuzz:" + r["model"], response=mutate(rng, r["response"]))
            for r in (rng.choice(rows) for _ in range(a.fuzz_score))
        ]
        fresp = work / "fuzz_responses.jsonl"
        fresp.write_text("".join(json.dumps(r) + "\n" for r in frows))
        fw_ref = run(
            [
                str(REF_PY),
                str(ROOT / "benchmarks" / "reference_scorer.py"),
                "--data",
                a.data,
                "--responses",
                str(fresp),
                "--out",
                str(work / "fuzz_ref_items.jsonl"),
                "--jobs",
                str(a.ref_jobs),
                "--quiet",
            ],
            work / "fuzz_ref.log",
        )
        fw_us = run(
            [
                sys.executable,
                "-m",
                "acptools.cli",
                "score",
                "--data",
                a.data,
                "--responses",
                str(fresp),
                "--quiet",
                "--semantics",
                "reference",
                "--out",
                str(work / "fuzz_refmode.jsonl"),
            ],
            work / "fuzz_refmode.log",
        )
        fagree, fkinds = agreement(read(work / "fuzz_refmode.jsonl"), read(work / "fuzz_ref_items.jsonl"))
        fa, fn = sum(v["agree"] for v in fagree.values()), sum(v["n"] for v in fagree.values())
        result["fuzz_score"] = {
            "n": fn,
            "agree": fa,
            "per_task": fagree,
            "wall": {"reference": fw_ref, "refmode": fw_us},
            "disagreements": [
                {"task": k[0], "model": k[1], "ours": k[2], "reference": k[3], "n": n, "example": list(e)}
                for k, n, e in fkinds
            ],
        }
        print(
            f"\n== scores on {fn} mutated responses: reference mode agrees on {fa}/{fn} ({100 * fa / fn:.2f}%);"
            f" wall {fw_ref:.1f} s reference, {fw_us:.1f} s ours =="
        )
        for t in TASKS:
            if t in fagree:
                print(f"  {t:7} {fagree[t]['agree']}/{fagree[t]['n']}")
        for (t, model, ours, theirs), n, (rid, why, log) in fkinds:
            print(
                f"  disagreement: {t} {model}: ours {ours} vs reference {theirs} on {n}, e.g. id {rid}: {why} | {log}"
            )
    (work / "bench.json").write_text(json.dumps(result, indent=1, default=str))
    print(f"\nresults -> {work / 'bench.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
