"""An MCP client for the tool tests: calls that must succeed or fail cleanly, every witness replayed."""

from __future__ import annotations

import json
import re
from typing import Any

from mcp import Client

from acptools import load_task
from tests.support import simulator
from tests.support.oracle import Oracle

CALL_TIMEOUT = 120
EXPECTED_TOOLS = {
    "server_info",
    "list_examples",
    "load_task",
    "list_applicable",
    "progress",
    "validate_plan",
    "simplify_plan",
    "is_reachable",
    "unreachable_atoms",
    "is_action_reachable",
    "unreachable_actions",
    "is_landmark",
    "landmarks",
    "optimal_next_action",
    "plan",
    "score_answer",
    "start_episode",
    "step_episode",
    "episode_summary",
}


class Tools:
    """Thin helpers over an SDK client: ok() demands success, err() demands a clean error.

    ok() also re-checks every witness a tool returns, independently of the server and of acptools: it
    fetches the task's PDDL through the task resources and replays the witness with pyperplan (STRIPS
    tasks) or unified-planning's simulator (the others), see Replayer.  ``witnesses_checked`` counts them.
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tasks: dict[str, Any] = {}
        self.witnesses_checked = 0
        self.pddl: dict[str, tuple[str, str]] = {}
        self.replayers: dict[str, Replayer] = {}

    async def ok(self, name: str, **args: Any) -> dict[str, Any]:
        result = await self.client.call_tool(name, args)
        assert not result.is_error, f"{name}({args}) failed: {result.content[0].text}"
        assert result.structured_content is not None
        assert json.loads(result.content[0].text) == result.structured_content
        await self.check_witness(name, args, result.structured_content)
        return result.structured_content

    async def library_task(self, task_id: str):
        """The task as the library loads it from the server's PDDL (for tests that compare with it)."""
        if task_id not in self.tasks:
            self.tasks[task_id] = load_task(*await self.texts(task_id))
            assert self.tasks[task_id].id == task_id
        return self.tasks[task_id]

    async def texts(self, task_id: str) -> tuple[str, str]:
        """The task's domain and problem PDDL, read through the server's task resources."""
        if task_id not in self.pddl:
            self.pddl[task_id] = tuple(
                [
                    (await self.client.read_resource(f"acptools://tasks/{task_id}/{part}.pddl")).contents[0].text
                    for part in ("domain", "problem")
                ]
            )
        return self.pddl[task_id]

    async def replayer(self, task_id: str) -> Replayer:
        """The independent checker of this task's plans (pyperplan or the oracle, see Replayer)."""
        if task_id not in self.replayers:
            self.replayers[task_id] = Replayer(*await self.texts(task_id))
        return self.replayers[task_id]

    async def check_witness(self, name: str, args: dict[str, Any], out: dict[str, Any]) -> None:
        """Replay what a tool returned with a checker that shares no code with acptools."""
        tid, state = args.get("task_id"), args.get("state")
        if name in ("is_reachable", "is_action_reachable", "is_landmark") and out["witness"] is not None:
            r = await self.replayer(tid)
            states, query = r.trajectory(out["witness"], state), _atom(out["query"])
            if name == "is_reachable":
                assert out["answer"] is True and query in states[-1], (name, out)
            elif name == "is_action_reachable":
                assert out["answer"] is True and r.applies(states[-1], query), (name, out)
            else:  # a refuted landmark: a plan to the goal on which the atom is never true
                assert out["answer"] is False and r.is_goal(states[-1]), (name, out)
                assert all(query not in s for s in states), (name, out)
        elif name in ("optimal_next_action", "plan") and out["plan"] is not None:
            r = await self.replayer(tid)
            assert r.is_goal(r.trajectory(out["plan"], state)[-1]), (name, out)
            if name == "optimal_next_action" or out["optimal"]:
                assert len(out["plan"]) == out["h_star"]
        elif name == "simplify_plan":
            r = await self.replayer(tid)
            plan = args["plan"] if isinstance(args["plan"], list) else re.findall(r"\([^()]*\)", args["plan"])
            for removal in out["removable"]:  # the plan without the removed indices must still be a plan
                shortened = [_atom(a) for i, a in enumerate(plan) if i not in removal["indices"]]
                assert removal["plan"] is None or [_atom(a) for a in removal["plan"]] == shortened, removal
                assert r.is_goal(r.trajectory(shortened, state)[-1]), removal
        elif name == "episode_summary":
            r = await self.replayer(out["task_id"])
            final = r.trajectory(out["plan"], out["start_state"])[-1]
            assert final - r.statics == frozenset(map(_atom, out["state"])) - r.statics
            assert r.is_goal(final) == out["solved"]
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


def _atom(name: str) -> str:
    """An atom or action name as the oracle spells it: lower case, single spaces, no commas."""
    return "(" + " ".join(name.replace(",", " ").strip("() ").lower().split()) + ")"


def _atoms(state) -> list[str]:
    return [_atom(a) for a in state]


class Replayer:
    """Plans replayed from a state given by its fluent atoms (as the server names states: static facts
    left out): pyperplan's grounding on STRIPS tasks (fast), unified-planning's simulator (the oracle)
    on the ADL ones. Neither shares code with acptools."""

    def __init__(self, domain: str, problem: str):
        self.domain, self.problem = domain, problem
        try:
            task, ops = simulator.strips_task(domain, problem)
        except Exception:  # pyperplan reads STRIPS with types only
            self.oracle = Oracle(domain, problem)
            static, init = self.oracle.problem.get_static_fluents(), self.oracle.init_atoms()
            self.statics = frozenset(n for n, f in self.oracle.fluents.items() if f.fluent() in static and n in init)
        else:
            self.oracle = None
            changed = {a.lower() for op in ops.values() for a in (*op.add_effects, *op.del_effects)}
            self.statics = frozenset(a.lower() for a in task.initial_state) - changed

    def trajectory(self, plan: list[str], state=None) -> list[frozenset[str]]:
        """The states `plan` visits from `state` (None: the init); fails the test if an action does not apply."""
        plan = [_atom(a) for a in plan]
        start = None if state is None else frozenset(_atoms(state)) | self.statics
        if self.oracle is None:
            states = simulator.trajectory(self.domain, self.problem, plan, start)
            assert states is not None, f"{plan} is not executable"
            return states
        s = self.oracle.state(self.oracle.init_atoms() if start is None else start)
        states = [self.oracle.atoms(s)]
        for action in plan:
            s = self.oracle.apply(s, action)
            assert s is not None, f"{action} is not applicable after {plan[: len(states) - 1]}"
            states.append(self.oracle.atoms(s))
        return states

    def applies(self, atoms: frozenset[str], action: str) -> bool:
        if self.oracle is None:
            return simulator.trajectory(self.domain, self.problem, [action], atoms) is not None
        return self.oracle.apply(self.oracle.state(atoms), action) is not None

    def is_goal(self, atoms: frozenset[str]) -> bool:
        if self.oracle is None:
            return simulator.goal_reached(self.domain, self.problem, atoms)
        return self.oracle.is_goal(atoms)
