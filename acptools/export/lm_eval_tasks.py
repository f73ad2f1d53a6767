"""lm-evaluation-harness task configs for any record file: one task per record kind (app, nexta,
land_mcq, arb_effects, ...), each a YAML beside its data and a utils.py that builds the prompt and
grades the generation with acptools (exact semantics, so an unproven verdict is unknown and left out
of the accuracy, which lm-eval reports as `score`; `unknown` is the share left out).

    lm-eval run --model local-chat-completions --model_args model=M,base_url=URL/v1/chat/completions \\
        --apply_chat_template --include_path DIR --tasks acptools_<name>

Records are stored one JSON text per row (the `record` column), so their mixed shapes pass through
Arrow and 64-bit ids stay exact.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..dataset import load_records, task_of
from ..errors import AcpError
from .harness_prompts import record_stops

UTILS = '''"""Written by `acptools export lm-eval`: the prompt and the grade of each doc come from acptools."""

import json
import math

from acptools.export import record_prompt
from acptools.scoring import score_response

PDDL = {pddl}
BUDGET = {budget}


def _record(doc):
    return json.loads(doc["record"])


def doc_to_text(doc):
    return record_prompt(_record(doc), PDDL)


def doc_to_target(doc):
    from acptools.scoring import gold_response
    return gold_response(_record(doc))


def process_results(doc, results):
    """score 1/0 (None when unproven within BUDGET CPU seconds), unknown 1/0, the verdict and the IoU."""
    item = score_response(_record(doc), results[0], "exact", BUDGET)
    iou = item.metrics.get("iou") if isinstance(item.metrics, dict) else None
    return {{"score": item.score, "unknown": int(item.score is None),
            "iou": iou if isinstance(iou, (int, float)) else None}}


def mean_known(values):
    """The mean over the values that are known (unknown verdicts and non-set answers are left out)."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else math.nan
'''

YAML = """# Written by `acptools export lm-eval`: {n} {kind} records of {sources}
task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: !function utils.doc_to_text
doc_to_target: !function utils.doc_to_target
process_results: !function utils.process_results
generation_kwargs:
  until: {until}
  max_gen_toks: {max_tokens}
  do_sample: false
  temperature: 0.0
metric_list:
  - metric: score
    aggregation: !function utils.mean_known
    higher_is_better: true
  - metric: unknown
    aggregation: mean
    higher_is_better: false
  - metric: iou
    aggregation: !function utils.mean_known
    higher_is_better: true
metadata:
  version: 1.0
"""


def _name(prefix: str, kind: str, pddl: bool) -> str:
    return re.sub(r"[^a-z0-9_]", "_", f"{prefix}_{kind}" + ("_with_pddl" if pddl else "")).lower()


def export_lm_eval(folder, sources, prefix: str = "acptools", pddl: bool = False, budget: float = 60.0) -> list[str]:
    """Write, for each record kind in `sources` (files, folders, acpbench-hard:...), FOLDER/NAME.yaml
    and FOLDER/NAME.jsonl, plus FOLDER/utils.py and a group FOLDER/PREFIX.yaml of them all; returns
    the task names (lm-eval: --include_path FOLDER --tasks NAME, or --tasks PREFIX for every one)."""
    records = load_records(*sources)
    if not records:
        raise AcpError(
            "no records found",
            "--data " + " ".join(map(str, sources)),
            "pass record files written by acptools generate, or acpbench-hard:test",
        )
    by_kind: dict[str, list[dict]] = {}
    for r in records:
        by_kind.setdefault(task_of(r), []).append(r)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "utils.py").write_text(UTILS.format(pddl=bool(pddl), budget=float(budget)), encoding="utf-8")
    names = []
    for kind, recs in by_kind.items():
        name = _name(prefix, kind, pddl)
        data = folder / f"{name}.jsonl"
        data.write_text("".join(json.dumps({"record": json.dumps(r)}) + "\n" for r in recs), encoding="utf-8")
        until, limit = record_stops(recs[0], pddl)
        (folder / f"{name}.yaml").write_text(
            YAML.format(
                n=len(recs),
                kind=kind,
                sources=", ".join(map(str, sources))[:200],
                name=name,
                data=json.dumps(str(data.resolve())),
                until=json.dumps(until),
                max_tokens=limit or 512,
            ),
            encoding="utf-8",
        )
        names.append(name)
    group = "".join(f"  - {n}\n" for n in names)
    (folder / f"{prefix}.yaml").write_text(
        f"group: {prefix}\ntask:\n{group}metadata:\n  version: 1.0\n", encoding="utf-8"
    )
    return names
