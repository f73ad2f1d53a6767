"""An MCP client for the tool tests: calls that must succeed or fail cleanly, every witness replayed."""

from __future__ import annotations

import json
from typing import Any

from mcp import Client

from acptools import load_task

CALL_TIMEOUT = 120
EXPECTED_TOOLS = {
    "server_info", "list_examples", "load_task", "list_applicable", "progress", "validate_plan", "simplify_plan",
    "is_reachable", "unreachable_atoms", "is_action_reachable", "unreachable_actions", "is_landmark", "landmarks",
    "optimal_next_action", "plan", "score_answer", "start_episode", "step_episode", "episode_summary",
}


class Tools:
    """Thin helpers over an SDK client: ok() demands success, err() demands a clean error.

    ok() also re-validates every witness a tool returns, independently of the server: it fetches the task's
    PDDL through the task resources, loads it with the library and replays the witness with
    ``task.questions.validate`` / ``progress``.  ``witnesses_checked`` counts them.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tasks: dict[str, Any] = {}
        self.witnesses_checked = 0

    async def ok(self, name: str, **args: Any) -> dict[str, Any]:
        result = await self.client.call_tool(name, args)
        assert not result.is_error, f"{name}({args}) failed: {result.content[0].text}"
        assert result.structured_content is not None
        assert json.loads(result.content[0].text) == result.structured_content
        await self.check_witness(name, args, result.structured_content)
        return result.structured_content

    async def library_task(self, task_id: str):
        if task_id not in self.tasks:
            texts = [(await self.client.read_resource(f"acptools://tasks/{task_id}/{part}.pddl")).contents[0].text
                     for part in ("domain", "problem")]
            self.tasks[task_id] = load_task(*texts)
            assert self.tasks[task_id].id == task_id
        return self.tasks[task_id]

    async def check_witness(self, name: str, args: dict[str, Any], out: dict[str, Any]) -> None:
        state = args.get("state")
        if name in ("is_reachable", "is_action_reachable", "is_landmark") and out["witness"] is not None:
            q = (await self.library_task(args["task_id"])).questions
            v = q.validate(out["witness"], state)
            assert v.first_inapplicable is None, (name, out)
            if name == "is_reachable":
                assert out["answer"] is True and out["query"] in v.final_state
            elif name == "is_action_reachable":
                assert out["answer"] is True and q.progress(out["query"], v.final_state).applicable
            else:  # a refuted landmark: a plan to the goal on which the atom is never true
                assert out["answer"] is False and v.goal_reached
                s = q.state(state)
                for action in out["witness"]:
                    assert out["query"] not in q.task.names(s)
                    s = q.task.parse_state(q.progress(action, s).state)
                assert out["query"] not in q.task.names(s)
        elif name in ("optimal_next_action", "plan") and out["plan"] is not None:
            q = (await self.library_task(args["task_id"])).questions
            v = q.validate(out["plan"], state)
            assert v.first_inapplicable is None and v.goal_reached, (name, out)
            if name == "optimal_next_action" or out["optimal"]:
                assert len(out["plan"]) == out["h_star"]
        elif name == "simplify_plan":
            task = await self.library_task(args["task_id"])
            actions = task.action_list(task.parse_plan(args["plan"]))
            for removal in out["removable"]:  # the plan without the removed indices must still be a plan
                shortened = [a for i, a in enumerate(actions) if i not in removal["indices"]]
                assert removal["plan"] in (None, shortened), removal
                assert task.questions.validate(shortened, state).goal_reached, removal
        elif name == "episode_summary":
            q = (await self.library_task(out["task_id"])).questions
            v = q.validate(out["plan"], out["start_state"])
            assert v.first_inapplicable is None and v.final_state == out["state"]
            assert v.goal_reached == out["solved"]
        else:
            return
        self.witnesses_checked += 1

    async def err(self, name: str, **args: Any) -> str:
        result = await self.client.call_tool(name, args)
        text = result.content[0].text
        assert result.is_error, f"{name}({args}) should have failed, got {result.structured_content}"
        assert "Traceback" not in text and 'File "' not in text and "internal error" not in text, text
        return text

    async def load_example(self, name: str) -> str:
        return (await self.ok("load_task", example=name))["task_id"]

    async def load_record(self, record: dict) -> str:
        return (await self.ok("load_task", domain=record["PDDL_domain"], problem=record["PDDL_problem"]))["task_id"]

    # ---- witness replays ------------------------------------------------------------------------
    async def replay(self, task_id: str, plan: list[str], state: list[str] | None = None) -> dict[str, Any]:
        """validate_plan on a witness: every action must apply."""
        args: dict[str, Any] = {"task_id": task_id, "plan": plan}
        if state is not None:
            args["state"] = state
        v = await self.ok("validate_plan", **args)
        assert v["first_inapplicable"] is None, f"witness {plan} breaks at {v['first_inapplicable']}: {v}"
        assert v["steps"] == len(plan)
        return v

    async def replay_to_goal(self, task_id: str, plan: list[str], state: list[str] | None = None) -> dict[str, Any]:
        v = await self.replay(task_id, plan, state)
        assert v["goal_reached"] and v["valid"], f"witness {plan} does not reach the goal: {v['unmet_goals']}"
        return v
