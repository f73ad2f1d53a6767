"""An agent whose every step is checked before it counts: a model proposes the next action, the
acptools MCP server's `progress` tool applies it to the current state, and an action that does not
apply goes back to the model with the reason, to be repaired.

    pip install 'acptools[openai]'
    OPENAI_API_KEY=... python examples/agent_as_validator.py --example ferry --model gpt-4o-mini
    python examples/agent_as_validator.py --model qwen2.5:7b --base-url http://localhost:11434/v1

The model is any OpenAI-compatible chat model; its free-text reply is read with acptools' lenient
answer parser. The plan so far is checked with `validate_plan` after every step, which says when
the goal is reached.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys

import openai
from mcp import Client, StdioServerParameters

from acptools import examples
from acptools.answers import parse_answer

PROMPT = """{domain}

{problem}

Current state (every other fluent atom is false):
{state}

Plan so far: {plan}
{feedback}
Reply with the next action only, like (action-name object1 object2)."""


async def call(mcp: Client, tool: str, **arguments) -> dict:
    result = await mcp.call_tool(tool, arguments)
    if result.is_error:  # e.g. a name the task does not have: the message says which
        return {"error": " ".join(getattr(block, "text", "") for block in result.content).strip()}
    return result.structured_content


async def run(args, domain: str, problem: str) -> int:
    command = shlex.split(args.server)
    model = openai.AsyncOpenAI(base_url=args.base_url)  # the key comes from OPENAI_API_KEY
    async with Client(StdioServerParameters(command=command[0], args=command[1:])) as mcp:
        task = await call(mcp, "load_task", domain=domain, problem=problem)
        state, plan, repairs, feedback = task["init"], [], 0, ""
        while len(plan) < args.max_steps and repairs <= args.max_repairs:
            prompt = PROMPT.format(
                domain=domain,
                problem=problem,
                state="\n".join(state),
                plan=" ".join(plan) or "(empty)",
                feedback=feedback,
            )
            reply = await model.chat.completions.create(
                model=args.model, messages=[{"role": "user", "content": prompt}]
            )
            parsed = parse_answer("nexta", reply.choices[0].message.content or "")
            if not parsed.ok:
                feedback, repairs = f"\nYour reply held no action ({parsed.error}). Try again.\n", repairs + 1
                continue
            action = parsed.items[0].text
            step = await call(mcp, "progress", task_id=task["task_id"], action=action, state=state)
            if not step.get("applicable"):  # repair: the model hears why and proposes again
                why = step.get("error") or "unsatisfied preconditions: " + ", ".join(step["unsatisfied_preconditions"])
                print(f"  rejected {action}: {why}", file=sys.stderr)
                feedback, repairs = f"\n{action} cannot be applied here ({why}). Choose another action.\n", repairs + 1
                continue
            state, plan, feedback = step["state"], plan + [step["action"]], ""
            check = await call(mcp, "validate_plan", task_id=task["task_id"], plan=plan)
            if check["goal_reached"]:
                print(f"goal reached with {len(plan)} actions, {repairs} rejected proposals: " + json.dumps(plan))
                return 0
    print(f"goal not reached: {len(plan)} actions, {repairs} rejected proposals")
    return 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--example", default="ferry", help=f"a bundled task: {', '.join(examples.names())}")
    p.add_argument("--model", required=True)
    p.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OpenAI's)")
    p.add_argument(
        "--server",
        default="acptools-server --profile policy",
        help="the command that starts the MCP server (the policy profile hides answer-giving tools)",
    )
    p.add_argument("--max-steps", type=int, default=50)
    p.add_argument("--max-repairs", type=int, default=10, help="rejected proposals allowed in the whole run")
    args = p.parse_args(argv)
    return asyncio.run(run(args, *examples.texts(args.example)))


if __name__ == "__main__":
    sys.exit(main())
