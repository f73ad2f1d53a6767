#!/usr/bin/env python3
"""Score model responses with the *published* ACPBench Hard scorer (lm-eval's acp_utils).

Run it with the separate reference virtualenv, never with the project's Python:

    .refvenv/bin/python benchmarks/reference_scorer.py \
        --data acptools/data/acpbench_hard/test \
        --responses responses.jsonl --out items.jsonl

Inputs
  --data       JSON array files, JSONL files (also gzip'd), or folders holding them (*.json / *.jsonl /
               *.jsonl.gz, not recursive, e.g. the bundled acptools/data/acpbench_hard/test);
               repeatable. Records need id, group, question, answer, PDDL_domain, PDDL_problem.
  --responses  JSONL rows {"id": ..., "group": optional, "response": str, "model": optional}.
               `group` may be the lm-eval group (applicable_actions_gen) or the short name (app).
               Without `group` the id must be unique over all loaded records.
Output (--out, JSONL, one row per response, input order)
  id, group, task, model, score (float, or null when the reference scorer crashed / timed out / no record),
  seconds (time spent in the reference filter + process_results call), parsed (what the reference grammar
  filter extracted, i.e. what the evaluator saw), error (null or text), log (what acp_utils printed).

Nothing of the scorer is copied here. The pipeline is the lm-eval harness's own, per item:
  1. the task yaml of lm_eval/tasks/acpbench/<variant>/ is loaded with lm-eval's own yaml loader
     (which imports acp_utils and resolves `process_results: !function acp_utils.process_acp_results`);
  2. unless --no-until, the response is cut at the yaml's generation_kwargs.until stop strings with
     lm_eval.models.utils.postprocess_generated_text (what an HF/local-model run does to generated text);
  3. the yaml's filter_list (ACP_grammar_filter with the yaml's grammar_task/clean, then take_first) is
     instantiated from lm-eval's filter registry and applied in sequence exactly as FilterEnsemble.apply
     does (each filter object is built once per task, so parser construction is not timed per item);
  4. score = process_results(doc, [filtered])["score"].
With --mode get_score, steps 2-4 are replaced by acp_utils.get_score([json.dumps(doc)], [response])
(the unitxt-style entry point of the same file: it JSON-decodes {"answer": ...} predictions).

Each item runs in a worker process (--jobs of them); an exception in the scorer gives score null and the
error text; a worker that dies or exceeds --timeout seconds is killed, the item gets score null, and a new
worker takes over.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
import traceback
from collections import defaultdict

# task short name -> (lm-eval group, yaml file in lm_eval/tasks/acpbench/<variant>/)
TASKS = {
    "app": ("applicable_actions_gen", "app.yaml"),
    "prog": ("progression_gen", "prog.yaml"),
    "reach": ("reachable_atom_gen", "reach.yaml"),
    "areach": ("reachable_action_gen", "act_reach.yaml"),
    "val": ("validation_gen", "val.yaml"),
    "just": ("action_justification_gen", "just.yaml"),
    "land": ("landmarks_gen", "land.yaml"),
    "nexta": ("goal_closer_gen", "next_act.yaml"),
}
GROUP_TO_TASK = {g: t for t, (g, _) in TASKS.items()}


def norm_group(g):
    if g is None:
        return None
    g = str(g)
    if g in GROUP_TO_TASK:
        return g
    if g in TASKS:
        return TASKS[g][0]
    if g.startswith("acp_") and g.endswith("_gen") and g[4:-4] in TASKS:  # acp_app_gen
        return TASKS[g[4:-4]][0]
    return g


# ----------------------------------------------------------------------------------------------- data


def load_records(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(
                glob.glob(os.path.join(p, "*.json"))
                + glob.glob(os.path.join(p, "*.jsonl"))
                + glob.glob(os.path.join(p, "*.jsonl.gz"))
            )
        else:
            files.append(p)
    recs = []
    for f in files:
        with gzip.open(f, "rt", encoding="utf8") if f.endswith(".gz") else open(f, encoding="utf8") as fh:
            if f.endswith((".jsonl", ".jsonl.gz")):
                recs += [json.loads(line) for line in fh if line.strip()]
            else:
                d = json.load(fh)
                recs += d if isinstance(d, list) else [d]
    return recs, files


def read_jsonl(path):
    with open(path, encoding="utf8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# --------------------------------------------------------------------------------------------- worker

_W = {}


def _worker_init(variant):
    import contextlib
    import io

    import lm_eval
    from lm_eval.api.registry import get_filter
    from lm_eval.models.utils import postprocess_generated_text
    from lm_eval.tasks._yaml_loader import load_yaml

    base = os.path.join(os.path.dirname(lm_eval.__file__), "tasks", "acpbench", variant)
    cfgs = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for task, (group, yml) in TASKS.items():
            cfg = load_yaml(os.path.join(base, yml), resolve_func=True)
            assert cfg["dataset_name"] == f"acp_{task}_gen", (yml, cfg["dataset_name"])
            cfgs[group] = cfg
    proc = cfgs["applicable_actions_gen"]["process_results"]
    _W.update(
        cfgs=cfgs, get_filter=get_filter, postprocess=postprocess_generated_text, acp_utils=sys.modules[proc.__module__]
    )
    _W["filters"] = {g: _build_filters(c) for g, c in cfgs.items()}


def _build_filters(cfg):
    """The yaml's filter_list as lm-eval's FilterEnsemble would run it, but with each filter object built
    once (FilterEnsemble.apply re-instantiates its filters, i.e. rebuilds the Lark parser, on every call)."""
    pipes = []
    for fc in cfg.get("filter_list") or [{"name": "none", "filter": [{"function": "take_first"}]}]:
        objs = [
            _W["get_filter"](f["function"])(**{k: v for k, v in f.items() if k != "function"}) for f in fc["filter"]
        ]
        pipes.append((fc["name"], objs))
    return pipes


def _score_one(doc, response, mode, until):
    """Returns (score, parsed, seconds, log). Exceptions propagate."""
    import contextlib
    import io

    group = doc["group"]
    cfg = _W["cfgs"][group]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        t0 = time.perf_counter()
        if mode == "get_score":
            out = _W["acp_utils"].get_score([json.dumps(doc)], [response])
            score, parsed = out["get_score"], None
        else:
            text = response
            if until:
                text = _W["postprocess"](text, list(cfg["generation_kwargs"]["until"]), None)
            # FilterEnsemble.apply, unrolled: resps/docs are per-instance lists, filters applied in sequence
            name, filters = _W["filters"][group][0]  # acp yamls define one pipeline: acp_grammar_parse
            resps, docs = [[text]], [doc]
            for f in filters:
                resps = f.apply(resps, docs)
            parsed = list(resps)[0]  # take_first returns a map; FilterEnsemble zips it with the instances
            score = cfg["process_results"](doc, [parsed])["score"]
        secs = time.perf_counter() - t0
    return score, parsed, secs, buf.getvalue()


def _worker_main(conn, scratch, variant, mode, until):
    # The K* planner driver writes output.sas and found_plans/ into the *current directory*: every
    # worker gets its own scratch cwd so parallel workers cannot read each other's planner files.
    # Own process group, so that a timed-out worker is killed together with its planner subprocesses.
    import shutil

    os.setsid()
    os.chdir(scratch)
    try:
        _worker_init(variant)
        conn.send(("ready", None))
    except BaseException:
        conn.send(("init_error", traceback.format_exc()))
        return
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            shutil.rmtree(scratch, True)
            return
        idx, doc, response = msg
        t0 = time.perf_counter()
        try:
            score, parsed, secs, log = _score_one(doc, response, mode, until)
            score = None if score is None else float(score)
            try:
                json.dumps(parsed)
            except TypeError:
                parsed = repr(parsed)
            conn.send((idx, {"score": score, "parsed": parsed, "seconds": secs, "error": None, "log": log}))
        except BaseException as e:  # the reference scorer raised: record it, keep serving
            conn.send(
                (
                    idx,
                    {
                        "score": None,
                        "parsed": None,
                        "seconds": time.perf_counter() - t0,
                        "error": f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=6)}",
                        "log": "",
                    },
                )
            )


class Worker:
    def __init__(self, ctx, variant, mode, until):
        self.args = (variant, mode, until)
        self.ctx = ctx
        self.start()

    def start(self):
        import tempfile

        self.scratch = tempfile.mkdtemp(prefix="acp_refscorer_")
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker_main, args=(child, self.scratch, *self.args), daemon=True)
        self.proc.start()
        child.close()
        kind, info = self.conn.recv()
        if kind != "ready":
            raise SystemExit(f"reference scorer failed to load:\n{info}")
        self.busy = None  # (idx, t_start)

    def kill(self):
        import shutil
        import signal

        if self.proc.is_alive():  # its pid is still its own process group id: no reuse possible
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # the worker and its planner subprocesses
            except Exception:
                pass
        try:
            self.proc.kill()
            self.proc.join(5)
        except Exception:
            pass
        shutil.rmtree(self.scratch, True)

    def restart(self):
        self.kill()
        self.start()


# ----------------------------------------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", action="extend", required=True)
    ap.add_argument("--responses", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument(
        "--variant",
        default="gen_2shot",
        choices=["gen_2shot", "gen_2shot_with_pddl"],
        help="which lm-eval task folder to take yaml/acp_utils from (scorers are identical)",
    )
    ap.add_argument("--mode", default="harness", choices=["harness", "get_score"])
    ap.add_argument(
        "--no-until",
        action="store_true",
        help="do not cut responses at the yaml's stop strings (e.g. an API run that already stopped)",
    )
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0, help="per-item wall limit in seconds")
    ap.add_argument(
        "--hashseed",
        default="0",
        help="PYTHONHASHSEED for the workers ('random' to leave it random); default 0 for reproducibility",
    )
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)

    if a.hashseed != "random":
        os.environ["PYTHONHASHSEED"] = str(a.hashseed)

    recs, files = load_records(a.data)
    by_key, by_id = {}, defaultdict(list)
    for r in recs:
        g = norm_group(r.get("group"))
        by_key[(g, str(r["id"]))] = r
        by_id[str(r["id"])].append(r)
    rows = read_jsonl(a.responses)
    print(
        f"[reference_scorer] {len(recs)} records from {len(files)} files; {len(rows)} responses; "
        f"variant={a.variant} mode={a.mode} until={'off' if a.no_until else 'on'} jobs={a.jobs}",
        file=sys.stderr,
    )

    results = [None] * len(rows)
    todo = []
    for i, row in enumerate(rows):
        rid, g = str(row.get("id")), norm_group(row.get("group"))
        base = {"id": row.get("id"), "group": g, "task": GROUP_TO_TASK.get(g), "model": row.get("model")}
        doc = None
        if g is not None:
            doc = by_key.get((g, rid))
            err = f"no record with group={g} id={rid}"
        else:
            cands = by_id.get(rid, [])
            doc = cands[0] if len(cands) == 1 else None
            err = f"id {rid} matches {len(cands)} records; give a group"
        if doc is not None and norm_group(doc.get("group")) not in GROUP_TO_TASK:
            doc, err = None, f"unknown group {doc.get('group')!r}"
        if doc is None:
            results[i] = {**base, "score": None, "seconds": None, "parsed": None, "error": err, "log": ""}
            continue
        doc = dict(doc)
        doc["group"] = norm_group(doc["group"])
        base["group"], base["task"] = doc["group"], GROUP_TO_TASK[doc["group"]]
        resp = row.get("response")
        resp = "" if resp is None else str(resp)
        results[i] = base
        todo.append((i, doc, resp))

    t_all = time.perf_counter()
    ctx = mp.get_context("spawn")
    workers = [Worker(ctx, a.variant, a.mode, not a.no_until) for _ in range(max(1, min(a.jobs, len(todo) or 1)))]
    queue = list(reversed(todo))
    pending = {}
    done_n = 0
    try:
        while queue or any(w.busy for w in workers):
            for w in workers:
                if w.busy is None and queue:
                    i, doc, resp = queue.pop()
                    w.conn.send((i, doc, resp))
                    w.busy = (i, time.perf_counter())
            from multiprocessing.connection import wait

            now = time.perf_counter()
            nearest = min([w.busy[1] + a.timeout - now for w in workers if w.busy] + [1.0])
            ready = wait([w.conn for w in workers if w.busy], timeout=max(0.01, nearest))
            for w in workers:
                if w.busy is None:
                    continue
                i, t0 = w.busy
                if w.conn in ready:
                    try:
                        idx, res = w.conn.recv()
                    except (EOFError, OSError):
                        res = {
                            "score": None,
                            "parsed": None,
                            "seconds": time.perf_counter() - t0,
                            "error": f"worker died (exit code {w.proc.exitcode})",
                            "log": "",
                        }
                        idx = i
                        w.restart()
                    results[idx] = {**results[idx], **res}
                    w.busy = None
                    done_n += 1
                elif not w.proc.is_alive() or time.perf_counter() - t0 > a.timeout:
                    why = (
                        f"timeout after {a.timeout:g}s"
                        if w.proc.is_alive()
                        else f"worker died (exit code {w.proc.exitcode})"
                    )
                    results[i] = {
                        **results[i],
                        "score": None,
                        "parsed": None,
                        "seconds": time.perf_counter() - t0,
                        "error": why,
                        "log": "",
                    }
                    w.busy = None
                    done_n += 1
                    w.restart()
                if not a.quiet and done_n and done_n % 100 == 0 and w.busy is None:
                    print(f"[reference_scorer] {done_n}/{len(todo)}", file=sys.stderr)
    finally:
        for w in workers:
            try:
                w.conn.send(None)
            except Exception:
                pass
            w.proc.join(5)
            w.kill()
    wall = time.perf_counter() - t_all

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf8") as fh:
        for r in results:
            fh.write(json.dumps(r) + "\n")

    # summary on stderr
    agg = defaultdict(list)
    for r in results:
        agg[(r.get("task"), r.get("model"))].append(r)
    print(f"[reference_scorer] wall {wall:.1f}s for {len(todo)} scored items -> {a.out}", file=sys.stderr)
    print(
        f"{'task':7} {'model':28} {'n':>4} {'score1':>6} {'null':>4} {'mean':>6} {'p50 ms':>8} {'max ms':>9} {'sum s':>7}",
        file=sys.stderr,
    )
    for (task, model), rs in sorted(agg.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        sc = [r["score"] for r in rs if r.get("score") is not None]
        secs = [r["seconds"] for r in rs if r.get("seconds") is not None]
        print(
            f"{str(task):7} {str(model)[:28]:28} {len(rs):4d} {sum(1 for s in sc if s == 1):6d} "
            f"{len(rs) - len(sc):4d} {statistics.mean(sc) if sc else float('nan'):6.3f} "
            f"{1000 * statistics.median(secs) if secs else float('nan'):8.2f} "
            f"{1000 * max(secs) if secs else float('nan'):9.1f} "
            f"{sum(secs):7.1f}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
