"""Evaluate any OpenAI-compatible chat model as a planning policy with acptools.rollout: every step
of every episode graded against h*.

    pip install 'acptools[openai]'
    OPENAI_API_KEY=... python examples/openai_policy.py --model gpt-4o-mini
    python examples/openai_policy.py --model qwen2.5:7b --base-url http://localhost:11434/v1    # Ollama
    python examples/openai_policy.py --model my-model --base-url http://localhost:8000/v1 \\
        --tasks acpbench-hard:test:nexta --jobs 8 --out traces.jsonl                             # vLLM

The same run from the shell: acptools rollout --tasks ... --policy openai:MODEL --base-url URL.
"""

from __future__ import annotations

import argparse
import sys

from acptools import rollout


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OpenAI's)")
    p.add_argument(
        "--tasks",
        nargs="+",
        default=["acpbench-hard:dev:nexta"],
        help="what to roll out (default: the 40 nexta states of the dev split)",
    )
    p.add_argument("--jobs", type=int, default=4, help="episodes in flight at once")
    p.add_argument("--show-applicable", action="store_true", help="list the applicable actions in each prompt")
    p.add_argument("--out", help="JSONL traces, one row per step")
    args = p.parse_args(argv)

    policy = rollout.make_policy(f"openai:{args.model}", base_url=args.base_url, temperature=0.0)
    config = rollout.RolloutConfig(jobs=args.jobs, show_applicable=args.show_applicable)
    result = rollout.run(args.tasks, policy, config, out=args.out)
    summary = rollout.summarize(result.rows)
    print(rollout.table(summary))

    overall = summary["overall"]
    print(
        f"\n{args.model}: solved {overall['solved']}/{overall['episodes']} episodes; "
        f"{overall['optimal_steps']}/{overall['applied_steps'] - overall['unknown_steps']} applied steps optimal; "
        f"invalid replies: {overall['invalid']}"
    )
    for step in result.steps[:3]:  # what a trace row looks like
        print(
            f"  {step['episode']} step {step['step']}: {step['action'] or step['reply'][:40]!r} -> "
            f"{step['verdict']}, optimal={step['optimal']}, regret={step['regret']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
