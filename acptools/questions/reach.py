"""reach and areach: which atoms can never hold and which actions can never become applicable."""

from __future__ import annotations

import itertools
import random
import time
from collections import deque
from collections.abc import Callable

from ..budget import Budget
from ..engine.h2 import pair_reachable
from ..engine.reachability import H2_SHARE, Engine, Shown
from ..errors import BudgetExceeded
from ..ground.grounded import GroundedTask, bits
from ..ground.grounding import Operator
from ..planners import fd
from ..util.lru import CacheMiss
from ..verdict import Proof, Verdict
from .results import Item, ItemList
from .rounds import decide_in_rounds

# A breadth-first sweep and a novelty search, then around the end of each batch's plan a novelty
# search or a walk (wide regions or deep ones): most reachable items show up at once. They are
# measured in states, so that a busy machine sees what a quiet one sees; the CPU seconds only stop
# them early on tasks whose successors are slow to generate. A long walk runs before the complete
# search, for dead ends it cannot see.
SWEEP_STATES, SWEEP_SECONDS = 4000, 0.5
EXPLORE_STATES, EXPLORE_SECONDS = 10000, 0.5
WALK_LENGTH = 200
BATCH_SECONDS = 1.0
PLAN_EXPLORE_STATES, PLAN_EXPLORE_SECONDS = 10000, 0.5
PLAN_WALK_STEPS, PLAN_WALK_SECONDS = 3000, 0.2
LONG_WALK_STEPS, LONG_WALK_SECONDS = 30_000, 2.0
RETURN_TRIES, RETURN_SECONDS = 3, 0.5  # earlier lists' states a plan may lead back to, and its budget


def is_reachable(engine: Engine, atoms: int, state: int, budget: Budget) -> Verdict:
    """Can all atoms of the mask `atoms` hold together in some reachable state?"""
    return engine.reach(state, [(atoms, 0)], budget)


def action_goal(engine: Engine, action: int) -> list[tuple[int, int]]:
    """The action's precondition as a goal DNF (one disjunct per operator)."""
    return [(op.pre, op.neg) for op in engine.task.ops_of_action[action]]


def is_action_reachable(engine: Engine, action: int, state: int, budget: Budget) -> Verdict:
    """Can the action become applicable from the state? A Verdict with its proof or witness."""
    goal = action_goal(engine, action)
    if not goal:
        return Verdict(False, Proof.STATIC, detail="its static preconditions are false in this problem")
    if any(neg & state for _, neg in goal):  # a negative precondition holds now: can it ever stop?
        try:
            relaxed, _ = engine.relax.reachable(state, budget)
            if all(cheaply_never(pre, neg, relaxed, persistent_atoms(engine, state, relaxed)) for pre, neg in goal):
                return Verdict(
                    False,
                    Proof.PERSISTENT,
                    detail="an atom it needs false holds, and nothing that can ever apply deletes it",
                )
        except BudgetExceeded as e:
            return Verdict(None, Proof.UNKNOWN, detail=str(e))
    return engine.reach(state, goal, budget)


def persistent_atoms(engine: Engine, state: int, relaxed: int) -> int:
    """Atoms of the state that hold forever: no operator whose preconditions are relaxed-reachable
    (`relaxed`) deletes them, so no operator that can ever apply does. Derived atoms never count:
    axioms, not deletes, make them false."""
    deletable = engine.task.derived
    for op in engine.operators:
        if op.pre & relaxed != op.pre:
            continue
        deletable |= op.dele
        for cp, _, _, cd in op.conds:
            if cp & relaxed == cp:
                deletable |= cd
    return state & ~deletable


def cheaply_never(pre: int, neg: int, relaxed: int, persistent: int) -> bool:
    """An operator with these preconditions never applies: an atom it needs is not relaxed-reachable,
    or an atom it needs false holds forever."""
    return pre & relaxed != pre or bool(neg & persistent)


def _sweep(
    engine: Engine, state: int, want_atoms: int, want_actions: set[int], budget: Budget
) -> tuple[int, set[int], bool]:
    """Cover wanted atoms/actions cheaply: a breadth-first sweep.

    Every state visited is reachable, so whatever shows up is proven reachable (applicable). Returns
    (atoms seen, actions seen, exhausted) where exhausted means the whole state space was visited.
    """
    seen_atoms = state
    seen_actions: set[int] = set()
    seen = {state}
    layer = [state]
    gen, apply = engine.gen, engine.task.apply_op

    def covered() -> bool:
        return want_atoms & ~seen_atoms == 0 and want_actions <= seen_actions

    sweep = budget.child(SWEEP_SECONDS, SWEEP_STATES)
    try:
        while layer and not covered():
            nxt = []
            for s in layer:
                if not _within(sweep, 1):
                    break
                for op in gen.applicable(s):
                    seen_actions.add(op.action)
                    t = apply(op, s)
                    if t not in seen:
                        seen.add(t)
                        seen_atoms |= t
                        nxt.append(t)
            else:
                layer = nxt
                continue
            break
    except BudgetExceeded:  # what the sweep saw stands
        return seen_atoms, seen_actions, False
    return seen_atoms, seen_actions, not layer


def _within(budget: Budget, states: int) -> bool:
    """Count `states` more against `budget` (a slice): False once it is spent; a spent or
    cancelled parent raises instead."""
    try:
        budget.spend(states)
        return True
    except BudgetExceeded:
        assert budget.parent is not None, "a slice of a budget"
        budget.parent.check()
        return False


def _walk(
    engine: Engine, start: int, atoms: int, actions: set[int], budget: Budget, seed: int = 0
) -> tuple[int, set[int]]:
    """Seeded random walks from `start` (a reachable state) until the `budget` slice is spent:
    returns the wanted atoms and actions they did not show (also when the whole budget ran out:
    what they showed stands)."""
    gen, apply = engine.gen, engine.task.apply_op
    rng = random.Random(seed)
    cur, steps = start, 0
    actions = set(actions)  # the caller's set stays as it is
    try:
        while (atoms or actions) and _within(budget, 64):
            for _ in range(64):
                ops = gen.applicable(cur)
                if not ops or steps >= WALK_LENGTH:
                    cur, steps = start, 0
                    continue
                if actions:
                    actions.difference_update(op.action for op in ops)
                cur = apply(rng.choice(ops), cur)
                atoms &= ~cur
                steps += 1
    except BudgetExceeded:
        pass
    return atoms, actions


def _explore(engine: Engine, start: int, atoms: int, actions: set[int], budget: Budget) -> tuple[int, set[int]]:
    """A breadth-first search from `start` (a reachable state) that keeps only the states making an
    atom true or an action applicable that no kept state did (width-1 novelty, as in IW(1)), until
    the `budget` slice is spent: from a plan's end it shows the region the plan opened, where a
    sweep stays near the start and walks go round in circles. Returns the wanted atoms and actions
    it did not show (also when the whole budget ran out: what it showed stands)."""
    gen, apply = engine.gen, engine.task.apply_op
    if not _within(budget, 1):
        return atoms, actions
    needs_true, needs_false = (dict(index) for index in gen.enablers())  # lists of unseen operators, pruned as we go
    ops = gen.applicable(start)
    seen_atoms, seen_actions = start, {op.action for op in ops}
    atoms &= ~start
    actions = actions - seen_actions
    visited = {start}
    queue = deque([(start, ops)])
    try:
        while queue and (atoms or actions):
            state, ops = queue.popleft()
            if not _within(budget, len(ops)):
                break
            for op in ops:
                t = apply(op, state)
                if t in visited:
                    continue
                visited.add(t)
                if (
                    t & ~seen_atoms
                    or _enables_new(needs_true, t & ~state, t, seen_actions)
                    or _enables_new(needs_false, state & ~t, t, seen_actions)
                ):
                    t_ops = gen.applicable(t)
                    shown = {o.action for o in t_ops}
                    seen_atoms |= t
                    seen_actions |= shown
                    atoms &= ~t
                    actions -= shown  # a copy of the caller's set (made above)
                    queue.append((t, t_ops))
    except BudgetExceeded:
        pass
    return atoms, actions


def _enables_new(needs: dict[int, list[Operator]], changed: int, after: int, seen: set[int]) -> bool:
    """Does an operator that needs an atom of `changed` (true, or false: `needs` says which) apply in
    `after` for an action not in `seen`? Only such operators can be newly applicable after a step:
    every action applicable before it is in `seen` (its state was kept). The lists in `needs` lose
    the operators of seen actions as it goes."""
    for p in bits(changed):
        ops = needs.get(p)
        if not ops:
            continue
        ops = needs[p] = [op for op in ops if op.action not in seen]
        for op in ops:
            if after & op.pre == op.pre and not after & op.neg:
                return True
    return False


def _leads(engine: Engine, start: int, end: int, budget: Budget) -> bool:
    """Does a plan lead from `start` to the state `end`? Fast Downward's fast greedy search within
    RETURN_SECONDS, its plan replayed here (not taken on trust)."""
    task = engine.task
    basic = ((1 << len(task.atoms)) - 1) & ~task.derived  # derived atoms follow from the others
    if not (start ^ end) & basic:
        return True
    res = fd.solve(
        len(task.atoms),
        engine.operators,
        start,
        [(end & basic, basic & ~end)],
        budget.child(RETURN_SECONDS),
        optimal=False,
        greedy=fd.FAST_SATISFICING,
        axioms=task.axioms,
        cache=fd.sas_cache(task),
    )
    s = start
    for i in res.plan or ():
        op = engine.operators[i]
        if s & op.pre != op.pre or s & op.neg:
            return False
        s = task.apply_op(op, s)
    return res.plan is not None and not (s ^ end) & basic


def _remembered(engine: Engine) -> list[tuple[int, Shown]]:
    """The states earlier lists were asked about, most recent first, with what they showed."""
    found = []
    for t in reversed(engine.shown.keys()):
        try:
            found.append((t, engine.shown.get(t)))
        except CacheMiss:  # evicted meanwhile by another thread
            continue
    return found


def _inherit(engine: Engine, state: int, atoms: int, actions: set[int], budget: Budget) -> tuple[int, set[int]]:
    """What an earlier list showed reachable from a state t holds from `state` too once a plan leads
    from `state` to t (t's visited states extend it): one plan to a whole state instead of the walks
    and batched plans that showed t's items. Tries the RETURN_TRIES earlier states that showed most
    of the wanted items; returns the wanted atoms and actions still not shown."""
    known = []
    for t, shown in _remembered(engine):
        gain = bin(atoms & shown.atoms).count("1") + sum(shown.actions >> a & 1 for a in actions)
        if gain:
            known.append((gain, t, shown))
    known.sort(key=lambda k: -k[0])
    for _, t, shown in known[:RETURN_TRIES]:
        if _leads(engine, state, t, budget):
            atoms &= ~shown.atoms
            actions = {a for a in actions if not shown.actions >> a & 1}
            if not atoms and not actions:
                break
    return atoms, actions


def _mutual(engine: Engine, state: int, whole: str, budget: Budget) -> Shown | None:
    """What a state t showed whose `whole` list ("atoms" or "actions") is complete, when `state`
    and t reach each other (two replayed plans): then the same atoms and actions are reachable from
    both, and t's list is `state`'s. Only for lists that needed more than a sweep (the others are
    cheaper to decide again than two planner calls); None when no such t is found."""
    tries = 0
    for t, shown in _remembered(engine):
        if not getattr(shown, "whole_" + whole) or shown.swept:
            continue
        try:
            if _leads(engine, state, t, budget) and _leads(engine, t, state, budget):
                return shown
        except BudgetExceeded:
            return None
        tries += 1
        if tries >= RETURN_TRIES:
            break
    return None


def _compatible_batch(engine: Engine, pairs: list[int], atoms: int, actions: set[int]) -> tuple[int, int]:
    """A conjunction of many wanted items that h^2 does not rule out holding together: one plan for
    it usually covers them all at once."""
    pos = neg = 0
    for a in bits(atoms):
        if pairs[a] & pos == pos and not neg >> a & 1:
            pos |= 1 << a
    for act in sorted(actions):
        for op in engine.task.ops_of_action[act]:
            p2, n2 = pos | op.pre, neg | op.neg
            if not p2 & n2 and all(pairs[x] & p2 == p2 for x in bits(op.pre)):
                pos, neg = p2, n2
                break
    return pos, neg


def _cover(
    engine: Engine, state: int, atoms: int, actions: set[int], budget: Budget, pairs: list[int] | None
) -> tuple[int, set[int], bool]:
    """Ask Fast Downward for plans that show the wanted atoms/actions, marking everything a plan's
    trajectory shows: first for a large compatible conjunction of them, then for whichever one is
    nearest. Its greedy search is complete, so 'no plan' for the disjunction of all wanted items
    proves them all unreachable. Returns (atoms still missing, actions still missing, exhausted)."""
    task, gen, operators = engine.task, engine.gen, engine.operators
    conjunctive = pairs is not None
    walked = False
    tally = {"explore": [0, 0.0], "walk": [0, 0.0]}  # items shown and CPU seconds around plan ends
    while atoms or actions:
        if not conjunctive and not walked:  # before the complete search: a long walk shows what
            walked = True  # heuristic searches miss (dead ends they cannot see)
            atoms, actions = _walk(
                engine, state, atoms, actions, budget.child(LONG_WALK_SECONDS, LONG_WALK_STEPS), seed=1
            )
            continue
        if conjunctive and pairs is not None:  # a batch: a witness for many at once (never a proof)
            goal = [_compatible_batch(engine, pairs, atoms, actions)]
        else:
            goal = [(1 << a, 0) for a in bits(atoms)]
            for a in actions:
                goal.extend((op.pre, op.neg) for op in task.ops_of_action[a])
        # a batch only needs a witness: the fast search first, then the complete one; the
        # disjunction of all needs the complete search (its exhaustion is the proof)
        res = fd.solve(
            len(task.atoms),
            operators,
            state,
            goal,
            budget.child(BATCH_SECONDS) if conjunctive else budget,
            optimal=False,
            greedy=fd.FAST_SATISFICING if conjunctive else fd.SATISFICING,
            axioms=task.axioms,
            cache=fd.sas_cache(task),
        )
        if conjunctive and res.plan is None:
            res = fd.solve(
                len(task.atoms),
                operators,
                state,
                goal,
                budget.child(BATCH_SECONDS),
                optimal=False,
                axioms=task.axioms,
                cache=fd.sas_cache(task),
            )
        if res.plan is None:
            if not conjunctive and res.proven_none:
                return atoms, actions, True
            if not conjunctive:
                return atoms, actions, False
            conjunctive = False
            continue
        before = (atoms, len(actions))
        s = state
        for i in res.plan + [None]:
            atoms &= ~s
            for op in gen.applicable(s):
                actions.discard(op.action)
            if i is not None:
                s = task.apply_op(operators[i], s)
        # the plan's end is a new reachable region: a short search there shows its neighbours too
        atoms, actions = _around(engine, s, atoms, actions, budget, tally, seed=len(res.plan))
        conjunctive = before != (atoms, len(actions)) and conjunctive
    return atoms, actions, False


def _around(
    engine: Engine, end: int, atoms: int, actions: set[int], budget: Budget, tally: dict, seed: int
) -> tuple[int, set[int]]:
    """Show the wanted items around a plan's `end` with a short novelty search or a short walk,
    whichever has shown more per CPU second around the earlier plans of this list (`tally`; each is
    tried once first): the novelty search wins where regions are wide (household), walks where
    they are deep (labyrinth)."""
    untried = [m for m, (_, cpu) in tally.items() if not cpu]
    how = untried[0] if untried else max(tally, key=lambda m: tally[m][0] / tally[m][1])
    left = atoms.bit_count() + len(actions)
    started = time.thread_time()
    if how == "explore":
        atoms, actions = _explore(engine, end, atoms, actions, budget.child(PLAN_EXPLORE_SECONDS, PLAN_EXPLORE_STATES))
    else:
        atoms, actions = _walk(engine, end, atoms, actions, budget.child(PLAN_WALK_SECONDS, PLAN_WALK_STEPS), seed)
    tally[how][0] += left - atoms.bit_count() - len(actions)
    tally[how][1] += max(time.thread_time() - started, 1e-6)
    return atoms, actions


def _settle(
    engine: Engine, state: int, atoms: int, actions: set[int], budget: Budget, pairs: list[int] | None, kind: str
) -> tuple[list[Item], list[str]]:
    """Decide the atoms/actions no cheap proof settled: a sweep and batched plans show most of
    them reachable; the rest are decided one by one. Returns (unreachable Items, undecided names).
    What was shown is remembered for later lists; with nothing undecided, the `kind` ("atoms" or
    "actions") of list is complete."""
    task = engine.task
    if not atoms and not actions:
        engine.remember_shown(state, state, whole=kind)
        return [], []
    exhausted = False
    wanted_atoms, wanted_actions = atoms, set(actions)
    swept = False
    try:
        seen_atoms, seen_actions, exhausted = _sweep(engine, state, atoms, actions, budget)
        atoms &= ~seen_atoms
        actions = actions - seen_actions
        swept = exhausted or not (atoms or actions)
        if (atoms or actions) and not exhausted:
            atoms, actions = _inherit(engine, state, atoms, actions, budget)
        if (atoms or actions) and not exhausted:
            atoms, actions = _explore(engine, state, atoms, actions, budget.child(EXPLORE_SECONDS, EXPLORE_STATES))
        if (atoms or actions) and not exhausted:
            atoms, actions, exhausted = _cover(engine, state, atoms, actions, budget, pairs)
    except BudgetExceeded:
        pass  # whatever is left is undecided (below)
    proven: list[Item] = []
    if exhausted:  # the whole state space was seen: what was not seen is unreachable
        engine.remember_shown(state, state | (wanted_atoms & ~atoms), wanted_actions - actions, swept, kind)
        proven = [Item(task.atom_names[i], Proof.EXHAUSTIVE) for i in bits(atoms)]
        return proven + [Item(task.action_names[a], Proof.EXHAUSTIVE) for a in sorted(actions)], []
    leftovers: list[tuple[str, int, int | None, Callable[..., Verdict]]] = [
        (task.atom_names[i], 1 << i, None, lambda b, i=i: is_reachable(engine, 1 << i, state, b)) for i in bits(atoms)
    ]
    leftovers += [
        (task.action_names[a], 0, a, lambda b, a=a: is_action_reachable(engine, a, state, b)) for a in sorted(actions)
    ]

    def decide(item: tuple[str, int, int | None, Callable[..., Verdict]], share: Budget) -> bool:
        nonlocal atoms
        v = item[3](share)
        if v.answer is False:
            proven.append(Item(item[0], v.how))
        elif v.answer:  # shown reachable: it counts for the lists that inherit from this state
            atoms &= ~item[1]
            actions.discard(item[2])
        return v.answer is not None

    unknown = [item[0] for item in decide_in_rounds(leftovers, decide, budget)]
    engine.remember_shown(
        state, state | (wanted_atoms & ~atoms), wanted_actions - actions, swept, None if unknown else kind
    )
    return proven, unknown


def _cheap_proofs(engine: Engine, state: int, budget: Budget) -> tuple[int, list[int] | None]:
    """The relaxed-reachable atoms and the h^2 pairs of a state (None when h^2 did not finish in
    its share of the budget); raises BudgetExceeded when not even the relaxation finished."""
    engine.check_covers(state)
    relaxed, _ = engine.relax.reachable(state, budget)
    try:  # a share of what is left on each clock: on a busy machine h^2 must not take all the wall time
        pairs = engine.h2(state, budget.share(H2_SHARE))
    except BudgetExceeded:
        budget.check()
        pairs = None
    return relaxed, pairs


def unreachable_atoms(engine: Engine, state: int, budget: Budget, limit: int | None = None) -> ItemList:
    """The atoms that can never hold from the state, each with its proof (complete when nothing is
    left undecided). When the budget runs out the list is partial: the atoms proven unreachable so
    far, those shown reachable (`refuted`), the rest undecided."""
    task = engine.task
    held = [Item(task.atom_names[i], Proof.HOLDS) for i in bits(state)]
    same = _mutual(engine, state, "atoms", budget)
    if same is not None:
        return _atoms_as(engine, state, same, held, limit, budget)
    try:
        relaxed, pairs = _cheap_proofs(engine, state, budget)
    except BudgetExceeded as e:
        return ItemList([], False, 0, task.names(((1 << len(task.atoms)) - 1) & ~state), str(e), held)
    found: list[Item] = []
    todo = 0
    for i in range(len(task.atoms)):
        if not relaxed >> i & 1:
            found.append(Item(task.atom_names[i], Proof.RELAXED))
        elif pairs is not None and not pairs[i] >> i & 1:
            found.append(Item(task.atom_names[i], Proof.H2))
        elif not state >> i & 1:
            todo |= 1 << i
    proven, unknown = _settle(engine, state, todo, set(), budget, pairs, "atoms")
    found += proven
    found.sort(key=lambda it: it.name)
    decided = {it.name for it in proven} | set(unknown)
    refuted = sorted(
        held + [Item(n, Proof.SHOWN) for n in task.names(todo) if n not in decided], key=lambda it: it.name
    )
    return ItemList(found[:limit] if limit else found, not unknown, len(found), unknown, "", refuted)


def _atoms_as(engine: Engine, state: int, same: Shown, held: list[Item], limit: int | None, budget: Budget) -> ItemList:
    """The atom list of a state that reaches, and is reached from, a state with a complete list
    (`same`: what that list showed): the atoms it showed are reachable, the others are not (the
    delete relaxation from this state proves those it can, the earlier list the rest)."""
    task = engine.task
    try:
        relaxed, _ = engine.relax.reachable(state, budget)
    except BudgetExceeded as e:
        return ItemList([], False, 0, task.names(((1 << len(task.atoms)) - 1) & ~state), str(e), held)
    unreachable = ((1 << len(task.atoms)) - 1) & ~same.atoms & ~state
    found = sorted(
        [Item(task.atom_names[i], Proof.RELAXED if not relaxed >> i & 1 else Proof.MUTUAL) for i in bits(unreachable)],
        key=lambda it: it.name,
    )
    refuted = sorted(held + [Item(n, Proof.SHOWN) for n in task.names(same.atoms & ~state)], key=lambda it: it.name)
    return ItemList(found[:limit] if limit else found, True, len(found), [], "", refuted)


STATIC_LISTED = 10_000  # statically impossible actions are counted in full but listed only this far


def _statically_impossible(
    task: GroundedTask, possible: frozenset[str], budget: Budget, limit: int | None
) -> list[Item]:
    """Type-correct ground actions whose static preconditions are false: at most `limit` (or
    STATIC_LISTED) of them, since a task may have millions; their number is arithmetic."""
    limit = min(limit or STATIC_LISTED, STATIC_LISTED)
    found: list[Item] = []
    if task.num_actions == len(possible):
        return found
    for k, name in enumerate(task.all_ground_actions()):
        if not k & 4095:
            budget.check()
        if name not in possible:
            found.append(Item(name, Proof.STATIC))
            if limit and len(found) >= limit:
                break
    return found


def _refuted_by_literals(engine: Engine, state: int, todo: set[int], budget: Budget) -> list[Item]:
    """The actions of `todo` (removed from it) that h^2 over literals proves never applicable: each
    operator needs an atom false while another holds, and the two never hold together. Nothing when
    the task has no negative preconditions, or h^2 over literals does not finish in its share."""
    task = engine.task
    needs_false = [a for a in todo if any(op.neg for op in task.ops_of_action[a])]
    if not needs_false or engine.literals is None:
        return []
    try:
        pairs = engine.literal_h2(state, budget.share(H2_SHARE))
    except BudgetExceeded:  # its share (or the whole budget) ran out: the searches decide what is left
        return []
    found = []
    for a in needs_false:
        if not any(engine.literals.reachable(pairs, op.pre, op.neg) for op in task.ops_of_action[a]):
            todo.discard(a)
            found.append(Item(task.action_names[a], Proof.H2))
    return found


def unreachable_actions(engine: Engine, state: int, budget: Budget, limit: int | None = None) -> ItemList:
    """Never-applicable ground actions; those ruled out by static facts first, then the rest. An
    action the grounding never reached from `state` (and the states before it) has no operator
    whose preconditions are relaxed-reachable: the relaxation rules it out without grounding it.
    When the budget runs out the list is partial: the actions proven so far, those shown applicable
    in a reachable state (`refuted`), the rest undecided."""
    task = engine.task
    try:
        possible = task.possible_actions(budget)
    except BudgetExceeded as e:  # nothing is decided: every ground action is undecided (listed this far)
        undecided = sorted(itertools.islice(task.all_ground_actions(), STATIC_LISTED))
        listed = "" if task.num_actions <= STATIC_LISTED else f"; the first {STATIC_LISTED} are listed as undecided"
        return ItemList(
            [], False, 0, undecided, f"{e} (before the {task.num_actions} ground actions were sorted out{listed})"
        )
    static_count = task.num_actions - len(possible)
    found: list[Item] = []
    same = _mutual(engine, state, "actions", budget)
    try:
        found = _statically_impossible(task, task.possible_set(), budget, limit)
        if same is None:
            relaxed, pairs = _cheap_proofs(engine, state, budget)
        else:  # the list of a state this one reaches and is reached from decides what no relaxation does
            (relaxed, _), pairs = engine.relax.reachable(state, budget), None
    except BudgetExceeded as e:
        return ItemList(
            found,
            False,
            static_count,
            sorted(possible),
            f"{e}: {static_count} actions are ruled out by static facts; the others are undecided",
        )
    todo: set[int] = set()
    proven: list[Item] = []
    shown: list[Item] = []
    persistent = persistent_atoms(engine, state, relaxed)
    for name in possible:
        a = task.action_index.get(name)
        ops = task.ops_of_action[a] if a is not None else ()
        if a is None or not any(op.pre & relaxed == op.pre for op in ops):
            proven.append(Item(name, Proof.RELAXED))
        elif same is not None:
            (shown if same.actions >> a & 1 else proven).append(
                Item(name, Proof.SHOWN if same.actions >> a & 1 else Proof.MUTUAL)
            )
        elif all(cheaply_never(op.pre, op.neg, relaxed, persistent) for op in ops):
            proven.append(Item(name, Proof.PERSISTENT))
        elif pairs is not None and not any(pair_reachable(pairs, op.pre) for op in ops):
            proven.append(Item(name, Proof.H2))
        else:
            todo.add(a)
    settled: list[Item] = []
    unknown: list[str] = []
    if same is None:
        proven += _refuted_by_literals(engine, state, todo, budget)
        settled, unknown = _settle(engine, state, 0, set(todo), budget, pairs, "actions")
    proven += settled
    proven.sort(key=lambda it: it.name)
    total = static_count + len(proven)
    items = sorted(found + proven, key=lambda it: it.name)
    detail = (
        f"{static_count} actions are ruled out by static facts; the first {len(found)} are listed"
        if static_count > len(found)
        else ""
    )
    decided = {it.name for it in settled} | set(unknown)
    refuted = sorted(
        shown + [Item(task.action_names[a], Proof.SHOWN) for a in todo if task.action_names[a] not in decided],
        key=lambda it: it.name,
    )
    return ItemList(items[:limit] if limit else items, not unknown, total, unknown, detail, refuted)
