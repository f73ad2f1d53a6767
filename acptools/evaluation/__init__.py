"""Evaluate a model at question answering: every question of a record set asked with the benchmark's
own prompts, through a policy (`openai:` / `anthropic:` / `cmd:` / `python:`), each reply graded.

    from acptools import dataset, evaluation
    from acptools.rollout import make_policy
    records = dataset.load_records("acpbench-hard:test")
    policy = make_policy("openai:my-model", base_url="http://localhost:8000/v1")
    items = evaluation.evaluate(records, policy, evaluation.EvalConfig(jobs=8), out="items.jsonl")

`questions` builds what is asked (ACPBench Hard's 2-shot prompts, with or without the PDDL; each
generated form's own question); `runner` asks, grades and writes (docs/evaluating.md).
"""

from .chat_prompts import Question, messages_for, question_for
from .run_eval import EvalConfig, evaluate, finished, run_async

__all__ = ["EvalConfig", "Question", "evaluate", "finished", "messages_for", "question_for", "run_async"]
