"""reach and areach on tasks with numeric state (see engine/numeric_search.py).

An action is applicable when its atoms hold and its numeric part can be evaluated (values defined,
no division by zero), which no DNF over atoms says: the searches test `op_for` itself. Proofs come
from the projection's delete relaxation and from a search that visits every reachable state; the
candidates are the task's atoms without its comparison atoms (states do not show those: the values
decide them). Numeric reachability is undecidable in general, so what neither settles is `unknown`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..budget import Budget
from ..engine.numeric_proofs import INTERVAL_RELAXED, PROJECTED_RELAXED
from ..engine.numeric_search import REAL_EXHAUSTIVE, NumericEngine
from ..errors import BudgetExceeded
from ..ground.grounded import bits
from ..verdict import Proof, Verdict
from .reach import STATIC_LISTED, _statically_impossible
from .results import Item, ItemList
from .rounds import decide_in_rounds

SWEEP_SHARE = 0.3  # of the budget, for the breadth-first sweep of a list


def is_action_reachable(engine: NumericEngine, action: int, state: int, budget: Budget) -> Verdict:
    """Can the action become applicable from the state? A witness, a proof, or unknown."""
    task = engine.task
    ops = task.ops_of_action[action]
    if not ops:
        return Verdict(False, Proof.STATIC, detail="its static preconditions are false in this problem")
    goal = [(op.pre, op.neg) for op in ops]
    return engine.reach(state, goal, budget, test=lambda s: task.op_for(action, s) is not None)


def _decide_rest(
    todo: list, ask: Callable[[int, Budget], Verdict], budget: Budget
) -> tuple[list[Item], list[str], list[str]]:
    """Each (name, key) of `todo` by `ask(key, budget)`, in rounds: (proven, shown, undecided names)."""
    proven: list[Item] = []
    shown: list[str] = []

    def decide(item: tuple[str, int], share: Budget) -> bool:
        v = ask(item[1], share)
        if v.answer is False:
            proven.append(Item(item[0], v.how))
        elif v.answer:
            shown.append(item[0])
        return v.answer is not None

    unknown = [item[0] for item in decide_in_rounds(todo, decide, budget)]
    return proven, shown, unknown


def unreachable_atoms(engine: NumericEngine, state: int, budget: Budget, limit: int | None = None) -> ItemList:
    """The atoms that can never hold from the state, each with its proof; partial (complete False)
    when some stay undecided."""
    task = engine.task
    every = task.shown_mask & ((1 << len(task.atoms)) - 1)
    held = [Item(n, Proof.HOLDS) for n in task.names(state & every)]
    candidates = every & ~state
    try:
        relaxed, _ = engine.relax.reachable(state, budget)
        plain, _ = engine.relax.reachable(state, budget, intervals=False)
        seen, _, exhausted = engine.sweep(state, budget.share(SWEEP_SHARE))
    except BudgetExceeded as e:
        return ItemList([], False, 0, task.names(candidates), str(e), held)
    found = [Item(n, PROJECTED_RELAXED) for n in task.names(candidates & ~plain)]
    found += [Item(n, INTERVAL_RELAXED) for n in task.names(candidates & plain & ~relaxed)]
    todo = candidates & relaxed & ~seen
    shown = task.names(candidates & relaxed & seen)
    if exhausted:
        found += [Item(n, REAL_EXHAUSTIVE) for n in task.names(todo)]
        todo, unknown = 0, list[str]()
    else:
        items = [(task.atom_names[i], 1 << i) for i in bits(todo)]
        proven, more, unknown = _decide_rest(items, lambda m, b: engine.reach(state, [(m, 0)], b), budget)
        found += proven
        shown += more
    found.sort(key=lambda it: it.name)
    refuted = sorted(held + [Item(n, Proof.SHOWN) for n in shown], key=lambda it: it.name)
    return ItemList(found[:limit] if limit else found, not unknown, len(found), unknown, "", refuted)


def unreachable_actions(engine: NumericEngine, state: int, budget: Budget, limit: int | None = None) -> ItemList:
    """The ground actions that can never become applicable from the state, with proofs; those ruled
    out by static facts first. Partial (complete False) when some stay undecided."""
    task = engine.task
    try:
        possible = task.possible_actions(budget)
    except BudgetExceeded as e:
        return ItemList([], False, 0, [], str(e))
    try:
        static = _statically_impossible(task, task.possible_set(), budget, limit)
        relaxed, _ = engine.relax.reachable(state, budget)
        plain, _ = engine.relax.reachable(state, budget, intervals=False)
        _, applicable, exhausted = engine.sweep(state, budget.share(SWEEP_SHARE))
    except BudgetExceeded as e:
        return ItemList([], False, 0, sorted(possible)[:STATIC_LISTED], str(e))
    static_count = task.num_actions - len(possible)
    proven: list[Item] = []
    shown: list[str] = []
    todo: list[tuple[str, int]] = []
    for name in possible:
        a = task.action_index.get(name)
        ops = task.ops_of_action[a] if a is not None else ()
        if a is None or not any(op.pre & plain == op.pre for op in ops):
            proven.append(Item(name, PROJECTED_RELAXED))
        elif not any(op.pre & relaxed == op.pre for op in ops):
            proven.append(Item(name, INTERVAL_RELAXED))
        elif a in applicable:
            shown.append(name)
        elif exhausted:
            proven.append(Item(name, REAL_EXHAUSTIVE))
        else:
            todo.append((name, a))
    more_proven, more_shown, unknown = _decide_rest(todo, lambda a, b: is_action_reachable(engine, a, state, b), budget)
    proven += more_proven
    shown += more_shown
    items = sorted(static + proven, key=lambda it: it.name)
    detail = (
        f"{static_count} actions are ruled out by static facts; the first {len(static)} are listed"
        if static_count > len(static)
        else ""
    )
    refuted = sorted((Item(n, Proof.SHOWN) for n in shown), key=lambda it: it.name)
    return ItemList(
        items[:limit] if limit else items, not unknown, static_count + len(proven), unknown, detail, refuted
    )
