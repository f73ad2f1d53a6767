"""Run lm-evaluation-harness's own `lm-eval run ... --log_samples` with a scripted model, offline.

Runs inside a virtualenv that has `lm-eval` (and its acpbench extras: tarski, pddl, kstar-planner);
acptools is not needed there. Called by scripts/make_lm_eval_samples.py, which prepares PLAN:

    <venv>/bin/python scripts/lm_eval_scripted_run.py PLAN.json -- <lm-eval run arguments>

PLAN.json: {"records": {"<task>": [record, ...]}, "responses": {"<task>/<id>": "text"}}. The
Hugging Face dataset `ibm-research/acp_bench` is served from `records` (no network: same rows,
typed by `datasets` as the Hub's copy is), and the model `acp-scripted` answers each request with
the text PLAN holds for its doc, cut at the request's stop strings as lm-eval's local models do.
Everything else (prompts, filters, acp_utils scoring, the samples and results files) is lm-eval's.
"""

from __future__ import annotations

import json
import sys

import datasets
from lm_eval.__main__ import cli_evaluate
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.models.utils import postprocess_generated_text

HUB = "ibm-research/acp_bench"
PLAN: dict = {}


def _serve_hub_offline() -> None:
    """`datasets.load_dataset(HUB, "acp_<task>_gen")` returns PLAN's records as the test split."""
    real = datasets.load_dataset

    def load_dataset(path=None, name=None, *args, **kwargs):
        if path != HUB:
            return real(path, name, *args, **kwargs)
        task = name[len("acp_") : -len("_gen")]
        return datasets.DatasetDict({"test": datasets.Dataset.from_list(PLAN["records"][task])})

    datasets.load_dataset = load_dataset


@register_model("acp-scripted")
class ScriptedLM(LM):
    """Answers from PLAN by (task, record id); a doc without a planned answer is an error."""

    def __init__(self, **kwargs) -> None:
        super().__init__()

    @classmethod
    def create_from_arg_string(cls, arg_string, additional_config=None):
        return cls()

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for req in requests:
            key = f"{req.doc['group']}/{req.doc['id']}"
            _context, gen_kwargs = req.args
            out.append(postprocess_generated_text(PLAN["responses"][key], gen_kwargs.get("until"), None))
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("generation tasks only")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("generation tasks only")

    @property
    def tokenizer_name(self) -> str:
        return "acp-scripted-chat"

    def chat_template(self, chat_template=False) -> str:
        return "<|{role}|>{content}<|end|>"

    def apply_chat_template(self, chat_history, add_generation_prompt=True) -> str:
        text = "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in chat_history)
        return text + ("<|assistant|>" if add_generation_prompt else "")


def main() -> None:
    plan_path, sep, *lm_eval_args = sys.argv[1:]
    if sep != "--":
        sys.exit(__doc__)
    with open(plan_path, encoding="utf-8") as fh:
        PLAN.update(json.load(fh))
    _serve_hub_offline()
    sys.argv = ["lm-eval", "run", *lm_eval_args]
    cli_evaluate()


if __name__ == "__main__":
    main()
