"""Re-create acptools/data/acpbench_prompts.json from lm-evaluation-harness's ACPBench Hard task yamls.

    <venv>/bin/python scripts/extract_acpbench_prompts.py     # a venv with lm-eval (see make_lm_eval_samples.py)

Reads `lm_eval/tasks/acpbench/gen_2shot{,_with_pddl}/*.yaml` with lm-eval's own yaml loader (includes
resolved) and keeps what a prompt is made of: the question template (`doc_to_text`), the
description, the two few-shot examples with their answers, the delimiters and the stop strings.
acptools.prompts builds lm-eval's prompts from it (tests compare them with the prompts lm-eval
logged in tests/data/lm_eval/).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import lm_eval
from lm_eval.tasks._yaml_loader import load_yaml

OUT = Path(__file__).resolve().parents[1] / "acptools" / "data" / "acpbench_prompts.json"
VARIANTS = {"2shot": "gen_2shot", "2shot_with_pddl": "gen_2shot_with_pddl"}
FIELD = re.compile(r"{{\s*(\w+)\s*}}")


def main() -> None:
    tasks_dir = Path(lm_eval.__file__).parent / "tasks" / "acpbench"
    out = {
        "source": f"lm-evaluation-harness {lm_eval.__version__}, lm_eval/tasks/acpbench (MIT; the examples are "
        "IBM's ACPBench Hard, CDLA-Permissive-2.0)",
        "variants": {},
    }
    for variant, folder in VARIANTS.items():
        tasks = {}
        for path in sorted((tasks_dir / folder).glob("*.yaml")):
            cfg = load_yaml(path, resolve_func=False)
            name = cfg["task"]
            few = cfg["fewshot_config"]
            assert few["sampler"] == "first_n" and cfg["num_fewshot"] == len(few["samples"]), name
            for text in (cfg["doc_to_text"], cfg["doc_to_target"]):
                assert "{%" not in text and FIELD.sub("", text).count("{{") == 0, f"{name}: not plain fields"
            tasks[name] = {
                "dataset_name": cfg["dataset_name"],
                "doc_to_text": cfg["doc_to_text"],
                "doc_to_target": cfg["doc_to_target"],
                "description": cfg.get("description", ""),
                "target_delimiter": cfg.get("target_delimiter", " "),
                "fewshot_delimiter": cfg.get("fewshot_delimiter", "\n\n"),
                "fewshot": few["samples"],
                "until": cfg["generation_kwargs"]["until"],
                "max_gen_toks": cfg["generation_kwargs"].get("max_gen_toks"),
            }
        out["variants"][variant] = tasks
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{OUT}: {sum(len(t) for t in out['variants'].values())} tasks, {OUT.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
