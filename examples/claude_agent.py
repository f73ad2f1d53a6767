"""Claude plans a PDDL task with the acptools MCP server as its checker, then submits a plan that is
validated.

    pip install 'acptools[anthropic]'
    export ANTHROPIC_API_KEY=...
    python examples/claude_agent.py --example ferry
    python examples/claude_agent.py --domain domain.pddl --problem p01.pddl --model claude-sonnet-4-5

The script starts `acptools-server` as a stdio subprocess (the official `mcp` client), loads the
task, and runs the Anthropic Messages tool-use loop. The model gets three of the server's tools
(list_applicable, progress, validate_plan: none of them gives the answer away) and a local
submit_plan tool. Each tool call goes to the server and its result back to the model; a submitted
plan is checked with validate_plan: a valid plan ends the run, an invalid one goes back to the model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from pathlib import Path

import anthropic
from mcp import Client, StdioServerParameters

from acptools import examples

TOOLS = ("list_applicable", "progress", "validate_plan")
SUBMIT = {
    "name": "submit_plan",
    "description": "Submit your final plan: the ground actions in order.",
    "input_schema": {
        "type": "object",
        "required": ["plan"],
        "properties": {"plan": {"type": "array", "items": {"type": "string"}}},
    },
}
PROMPT = """Find a plan for this PDDL task. Its task_id on the acptools tools is {task_id}.

{domain}

{problem}

Use list_applicable, progress and validate_plan to explore and check your ideas (omit `state` to
mean the initial state). When you are sure, call submit_plan with the whole plan."""


def text_of(result) -> str:
    """A tool result as text for the model: the structured result when there is one."""
    if result.structured_content is not None:
        return json.dumps(result.structured_content)
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def solve(args, domain: str, problem: str) -> int:
    command = shlex.split(args.server)
    async with Client(StdioServerParameters(command=command[0], args=command[1:])) as mcp:
        loaded = await mcp.call_tool("load_task", {"domain": domain, "problem": problem})
        task_id = loaded.structured_content["task_id"]
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in (await mcp.list_tools()).tools
            if t.name in TOOLS
        ] + [SUBMIT]
        claude = anthropic.AsyncAnthropic(base_url=args.base_url)  # the key comes from ANTHROPIC_API_KEY
        messages = [{"role": "user", "content": PROMPT.format(task_id=task_id, domain=domain, problem=problem)}]
        for _ in range(args.max_turns):
            reply = await claude.messages.create(model=args.model, max_tokens=4096, tools=tools, messages=messages)
            messages.append({"role": "assistant", "content": reply.content})
            calls = [block for block in reply.content if block.type == "tool_use"]
            if not calls:
                messages.append({"role": "user", "content": "Go on with the tools, then call submit_plan."})
                continue
            results = []
            for call in calls:
                if call.name == "submit_plan":
                    check = await mcp.call_tool("validate_plan", {"task_id": task_id, "plan": call.input["plan"]})
                    if not check.is_error and check.structured_content["valid"]:
                        print(f"valid plan of {len(call.input['plan'])} actions:")
                        print("\n".join(call.input["plan"]))
                        return 0
                    result = check
                else:
                    print(f"  {call.name}({json.dumps(call.input)[:100]})", file=sys.stderr)
                    result = await mcp.call_tool(call.name, call.input)
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": call.id,
                        "content": text_of(result),
                        "is_error": bool(result.is_error),
                    }
                )
            messages.append({"role": "user", "content": results})
    print(f"no valid plan within {args.max_turns} turns")
    return 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--example", default="ferry", help=f"a bundled task: {', '.join(examples.names())}")
    p.add_argument("--domain", type=Path, help="a PDDL domain file (with --problem, instead of --example)")
    p.add_argument("--problem", type=Path, help="a PDDL problem file")
    p.add_argument("--model", default="claude-sonnet-4-5")
    p.add_argument("--base-url", help="another Messages API endpoint (default: Anthropic's)")
    p.add_argument(
        "--server",
        default="acptools-server --profile policy",
        help="the command that starts the MCP server (the policy profile hides answer-giving tools)",
    )
    p.add_argument("--max-turns", type=int, default=30)
    args = p.parse_args(argv)
    if args.domain and args.problem:
        domain, problem = args.domain.read_text(), args.problem.read_text()
    else:
        domain, problem = examples.texts(args.example)
    return asyncio.run(solve(args, domain, problem))


if __name__ == "__main__":
    sys.exit(main())
