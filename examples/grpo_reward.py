"""GRPO with the exact grader as the reward: ACPBench Hard prompts in, proven rewards out.

    python examples/grpo_reward.py                        # dry run: score scripted completions as TRL would
    python examples/grpo_reward.py --train Qwen/Qwen2.5-0.5B-Instruct --task nexta   # needs trl, torch, datasets

The dataset has a conversational `prompt` column (lm-eval's 2-shot prompt as chat turns,
acptools.prompts) and a `record` column: the ACPBench Hard record as JSON text, so the reward function
can grade any completion against the PDDL (and 64-bit ids stay exact through Arrow). TRL hands every
column but the prompt to the reward function, repeated once per generation.
"""

from __future__ import annotations

import argparse
import json

from acptools.dataset import acpbench_hard
from acptools.prompts import prompt_messages
from acptools.rewards import AcpReward
from acptools.scoring import gold_response


def rows(task: str, split: str = "dev") -> list[dict]:
    return [{"prompt": prompt_messages(r), "record": json.dumps(r)} for r in acpbench_hard(split, task)]


def dry_run(task: str, reward: AcpReward, generations: int = 4) -> None:
    """What GRPOTrainer does with a batch of 2 prompts x `generations` completions, with made-up completions."""
    batch = rows(task)[:2]
    inputs = [row for row in batch for _ in range(generations)]
    completions = []
    for row in batch:
        record = json.loads(row["record"])
        stored = gold_response(record)
        texts = [stored, f"I would go with {stored}.", "(noop)", "no idea"]
        completions += [[{"role": "assistant", "content": t}] for t in texts[:generations]]
    columns = {k: [x[k] for x in inputs] for k in inputs[0] if k not in ("prompt", "completion")}
    rewards = reward(prompts=[x["prompt"] for x in inputs], completions=completions, **columns)
    for c, r in zip(completions, rewards):
        print(f"{r!s:>6}  {c[0]['content']}")
    print(f"stats: {dict(reward.stats)}")


def train(model: str, task: str, reward: AcpReward) -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    config = GRPOConfig(
        output_dir=f"grpo-acp-{task}",
        num_generations=8,
        max_completion_length=64,
        per_device_train_batch_size=8,
        logging_steps=1,
    )
    trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=config, train_dataset=Dataset.from_list(rows(task)))
    trainer.train()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="nexta", help="app prog reach areach val just land nexta (default nexta)")
    ap.add_argument("--credit", default="partial", choices=("exact", "partial"))
    ap.add_argument("--train", metavar="MODEL", help="train this model with TRL's GRPOTrainer")
    args = ap.parse_args()
    reward = AcpReward(credit=args.credit)  # unknown verdicts: None, which TRL leaves out of the advantage
    if args.train:
        train(args.train, args.task, reward)
    else:
        dry_run(args.task, reward)


if __name__ == "__main__":
    main()
