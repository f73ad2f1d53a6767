"""acptools.prompts builds, byte for byte, the prompts lm-eval 0.4.13 itself sent (logged in tests/data/lm_eval/):
2-shot, 2-shot with the PDDL, and chat turns (--apply_chat_template --fewshot_as_multiturn)."""

from __future__ import annotations

import json

import pytest

from acptools import AcpError
from acptools.prompts import lm_eval_task, max_tokens, prompt_messages, prompt_text, stop_strings
from tests.support.data import ROOT

DATA = ROOT / "tests" / "data" / "lm_eval"


def _chat(messages) -> str:
    return "".join(f"<|{m['role']}|>{m['content']}<|end|>" for m in messages) + "<|assistant|>"


def _samples():
    for f in sorted(DATA.rglob("samples_*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            yield pytest.param(
                f,
                row["doc"],
                row["arguments"]["gen_args_0"],
                id=f"{f.parts[-3]}-{f.name.split('_20')[0]}-{row['doc_id']}",
            )


@pytest.mark.parametrize("path,doc,args", list(_samples()))
def test_prompts_are_lm_evals(path, doc, args):
    pddl = "with_pddl" in path.name
    mine = _chat(prompt_messages(doc, pddl)) if path.parts[-3] == "chat" else prompt_text(doc, pddl)
    assert mine == args["arg_0"]
    task = path.name.split("_")[2]
    assert stop_strings(task, pddl) == args["arg_1"]["until"] and max_tokens(task, pddl) == 1000


def test_names_and_errors():
    assert lm_eval_task("goal_closer_gen", pddl=True) == "acp_nexta_gen_with_pddl"
    with pytest.raises(AcpError, match="unknown task"):
        lm_eval_task("plan")
    with pytest.raises(AcpError, match="no 'PDDL_domain' field"):
        prompt_text({"group": "goal_closer_gen", "context": "c", "question": "q"}, pddl=True)
