"""Checks of a proof-store row against its task, made before the row is served and by `cache verify`.

A stored row is authenticated by the store's key (acptools.proofs.store); on top of that, whatever a row
carries that can be checked without a search is checked: a witness plan is replayed from the state
and must show what the verdict claims, an optimal plan must reach the goal in exactly the stored
number of steps, stored action names must name actions of the task. Each check returns '' when the
row holds, else what is wrong with it (the row is then treated as absent).
"""

from __future__ import annotations

from ..task import Task

REACH_KINDS = ("reach-atom", "reach-action")


def verdict_problem(task: Task, state: int, kind: str, target: int, row: dict) -> str:
    """A stored reach / areach / landmark verdict about atom or action `target` in `state`."""
    answer, witness = row.get("answer"), row.get("witness")
    if not isinstance(answer, bool) or not isinstance(row.get("how"), str):
        return "no yes/no answer with its proof"
    if not isinstance(row.get("detail", ""), str) or not isinstance(row.get("extra") or {}, dict):
        return "a malformed detail"
    if witness is None:
        return ""  # a proof that cannot be checked without a search: the row's key vouches for it
    plan, why = _plan_ids(task, witness)
    if why:
        return why
    if kind in REACH_KINDS:
        if not answer:
            return "a witness for a 'no' answer"
        bad, last = task.run(plan, state)
        if bad is not None:
            return f"the witness fails at step {bad}"
        reached = last >> target & 1 if kind == "reach-atom" else task.op_for(target, last) is not None
        return "" if reached else "the witness does not reach what it should"
    if answer:
        return "a witness for a landmark"
    return _avoiding_plan_problem(task, state, plan, target)


def _avoiding_plan_problem(task: Task, state: int, plan: list[int], atom: int) -> str:
    """A plan to the goal on which `atom` never holds (how a fact is shown not to be a landmark)."""
    for k, a in enumerate(plan):
        if state >> atom & 1:
            return "the witness makes the atom true"
        op = task.op_for(a, state)
        if op is None:
            return f"the witness fails at step {k}"
        state = task.apply_op(op, state)
    if state >> atom & 1:
        return "the witness makes the atom true"
    return "" if task.is_goal(state) else "the witness does not reach the goal"


def hstar_problem(task: Task, state: int, row: dict) -> str:
    """A stored h* with its optimal plan and (when known) all optimal first actions."""
    cost, plan, first = row.get("cost"), row.get("plan"), row.get("first")
    if (
        "cost" not in row
        or "plan" not in row
        or not isinstance(row.get("how"), str)
        or (cost is not None and (type(cost) is not int or cost < 0))
    ):
        return "no h* with its proof"
    if plan is None:
        return "" if cost is None else "an h* without its plan"
    if cost is None:
        return "a plan for a goal it says cannot be reached"
    ids, why = _plan_ids(task, plan)
    if why:
        return why
    if task.questions.metric == "cost":
        measured = task.questions.plan_cost(ids, state)
        if measured is None:
            return "the optimal plan does not reach the goal"
        if measured != cost:
            return f"a plan of cost {measured} for h* {cost}"
    elif len(ids) != cost:
        return f"a plan of {len(ids)} steps for h* {cost}"
    elif not task.is_plan(ids, state):
        return "the optimal plan does not reach the goal"
    if first is not None:
        firsts, why = _plan_ids(task, first)
        if why or not all(task.op_for(a, state) is not None for a in firsts):
            return "optimal first actions that are not applicable"
        if ids and ids[0] not in firsts:
            return "the plan's first action is not among the optimal first actions"
    return ""


def floor_problem(row: dict) -> str:
    """A stored lower bound on h* (a search that proved no shorter plan exists)."""
    lower = row.get("lower")
    if type(lower) is not int or lower < 0 or not isinstance(row.get("how"), str):
        return "no lower bound on h* with its proof"
    return ""


def list_problem(row: dict) -> str:
    """A stored complete list: (name, proof) pairs and a total."""
    items, total = row.get("items"), row.get("total")
    if not isinstance(items, list) or type(total) is not int or not isinstance(row.get("detail", ""), str):
        return "not a complete list"
    if not all(isinstance(i, list) and len(i) == 2 and all(isinstance(x, str) for x in i) for i in items):
        return "a malformed list item"
    return ""


def _plan_ids(task: Task, plan: object) -> tuple[list[int], str]:
    """Action ids of stored action names, or what is wrong with them."""
    if not isinstance(plan, list) or not all(isinstance(a, str) for a in plan):
        return [], "a witness that is not a list of actions"
    try:
        return [task.parse_action(a) for a in plan], ""
    except ValueError as e:  # AcpError: a name that is no action of the task
        return [], f"a witness naming no action of the task ({e})"
