"""Claims and queries about a state of a task, decided with their proofs: what the generated yes/no,
multiple-choice and ActionReasoningBench questions ask, and what their graders decide again.

Both are JSON objects, so a record carries them and a grader re-decides them from the record's PDDL
alone. Names are PDDL atoms and ground actions ('(at c0 l1)', '(sail l0 l1)'); steps are 0-based.

Claims (`decide` -> a Verdict: True or False with how it is known, or None when the budget ran out):

    {"claim": "applicable", "action": a}
    {"claim": "holds", "atoms": [...], "negated": [...]}     every listed literal holds (static atoms too)
    {"claim": "reachable", "atoms": [...]}                   the atoms can hold together, some time
    {"claim": "action_reachable", "action": a}               a can become applicable
    {"claim": "plan", "plan": [...]}                         the sequence is a plan
    {"claim": "plan_status", "plan": [...], "status": "plan" | "applicable" | "inapplicable", "step": i}
                                                             ("inapplicable": step i is the first that fails)
    {"claim": "removable", "plan": [...], "steps": [i] | [i, i+1]}   removing them leaves a plan
    {"claim": "landmark", "atom": p}                         every plan makes p true at some point
    {"claim": "executable", "plan": [...]}                   every action applies in turn
    {"claim": "executable_at", "plan": [...], "step": k}     the steps before k apply, and then step k
    {"claim": "count", "of": COUNTED, "value": n}
    {"claim": "defined", "name": x, "what": "object" | "atom" | "action"}   x is part of the task

Queries (`evaluate` -> the value; every query is answered by simulation, so none needs a budget):

    {"query": "atoms", "sign": "true" | "false", "object": o (optional), "among": [...] (optional),
     "predicates": [...] (optional)}                         sorted atom names (naming o, of those listed,
                                                             of those predicates)
    {"query": "applicable"}                                  sorted applicable actions
    {"query": "effects", "action": a, "predicates": [...] (optional)}   {"pos": [...], "neg": [...]}
    {"query": "count", "of": COUNTED}                        an int
    {"query": "value", "fluent": "(f o)"}                    a numeric fluent's exact value as text ('3',
                                                             '2.5', '1/3'; see ground.numeric.number_text),
                                                             None when it has no value
    {"query": "first_failure", "plan": [...]}                the 1-based step of the first action that
                                                             cannot be applied, or None
    {"query": "steps_before_failure", "plan": [...]}         how many actions apply before the first that fails
    {"query": "undefined", "names": [...], "what": ...}      the first name not in the task, or None

COUNTED is one of `true_atoms`, `false_atoms`, `executable_actions`, `inexecutable_actions`; on a
task with numeric fluents the atoms counted are its facts (the comparison atoms its values decide
are not counted).
Any claim or query may say which state it is about, relative to the question's state: `"after":
[actions]` (all must apply) or `"before_failure": [actions]` (replayed up to the first that fails).
"""

from __future__ import annotations

from .budget import Budget
from .engine.h2 import pair_reachable
from .errors import AcpError, BudgetExceeded, UnknownNameError
from .ground.grounded import bits
from .ground.names import render, split_name
from .ground.numeric import number_text
from .task import Task
from .truth import truth_for
from .verdict import Proof, Verdict

COUNTED = ("true_atoms", "false_atoms", "executable_actions", "inexecutable_actions")
H2_SECONDS = 2.0  # CPU seconds for h^2 of a state (cached per state by the engine)


# ---- states -------------------------------------------------------------------------------------


def actions_of(task: Task, names, where: str) -> list[int]:
    """Action ids of the names in a claim; AcpError (saying where) for a name the task does not define."""
    try:
        return task.parse_plan(list(names), where)
    except UnknownNameError as e:
        raise AcpError(f"names an action the task does not define: {e}", where) from None


def state_of(task: Task, state: int, spec: dict) -> int:
    """The state a claim or query is about: the question's, or after its `after` / `before_failure` actions."""
    if spec.get("after"):
        bad, last = task.run(actions_of(task, spec["after"], "after"), state)
        if bad is not None:
            raise AcpError(f"action {bad} of 'after' ({spec['after'][bad]}) cannot be applied", "claim")
        return last
    if spec.get("before_failure"):
        return task.run(actions_of(task, spec["before_failure"], "before_failure"), state)[1]
    return state


def without_actions(spec) -> dict | None:
    """A claim or query about the state after (or before the failure of) some actions, asked about
    the question's own state instead; None when it names no such actions."""
    if not isinstance(spec, dict) or not (spec.get("after") or spec.get("before_failure")):
        return None
    return {k: v for k, v in spec.items() if k not in ("after", "before_failure")}


def atom_ids(task: Task, names, where: str = "atoms") -> list[int]:
    """Atom ids of the names in a claim; AcpError (saying where) for a name the task does not define."""
    try:
        return [task.parse_atom(a, where=f"{where}[{k}]") for k, a in enumerate(names)]
    except UnknownNameError as e:
        raise AcpError(f"names an atom the task does not define: {e}", where) from None


def literal_holds(task: Task, state: int, name: str, positive: bool = True) -> bool:
    """Does the atom `name` hold in `state`? A static atom holds when the problem says so."""
    where = "atoms" if positive else "negated"
    try:
        i = task.parse_atom(name, allow_static=True, where=where)
    except UnknownNameError as e:
        raise AcpError(f"names an atom the task does not define: {e}", where) from None
    if i is None:
        return split_name(name) in task.static_true
    return bool(state >> i & 1)


def exclusive(task: Task, mask: int, budget=None) -> bool:
    """Is it proven (h^2 from the initial state) that no two atoms of `mask` ever hold together?
    False when h^2 cannot show it; BudgetExceeded when its budget runs out."""
    pairs = task.questions.engine.h2(task.init, budget)
    return all(pairs[p] & mask & ~(1 << p) == 0 for p in bits(mask))


def _of_predicates(names: list[str], query: dict) -> list[str]:
    """The names whose predicate is one of the query's `predicates` (all when it names none)."""
    wanted = query.get("predicates")
    return names if wanted is None else [n for n in names if split_name(n)[0] in set(wanted)]


def count(task: Task, state: int, of: str) -> int:
    """A counting query in `state`: true atoms, false atoms, or (in)executable actions. The atoms are
    the facts: a numeric task's comparison atoms and the values packed above them are not counted."""
    shown = task.grounded.shown_mask
    if of == "true_atoms":
        return bin(state & shown).count("1")
    if of == "false_atoms":
        return bin(((1 << len(task.atoms)) - 1) & shown & ~state).count("1")
    applicable = len(task.applicable(state))
    if of == "executable_actions":
        return applicable
    if of == "inexecutable_actions":
        return task.num_actions - applicable
    raise AcpError(f"unknown count {of!r}", "claim", f"counts: {', '.join(COUNTED)}")


def fluent_index(task: Task, fluent: str) -> int:
    """The numeric variable a fluent names ('(fuel t1)'); AcpError when the task has no such variable."""
    numeric = task.grounded.numeric
    name = render(*split_name(fluent, "fluent", "fluent"))
    if numeric is None or name not in numeric.var_names:
        raise AcpError(
            f"{fluent!r} is no numeric fluent of the task that can change",
            "fluent",
            "name a ground fluent such as (fuel t1) whose value the actions change",
        )
    return numeric.var_names.index(name)


def value_text(task: Task, state: int, fluent: str) -> str | None:
    """A numeric fluent's exact value in `state` as text ('3', '2.5', '1/3'), None when it has none."""
    v = task.grounded.values(state)[fluent_index(task, fluent)]
    return None if v is None else number_text(v)


def atoms_of(task: Task, state: int, sign: str, obj: str | None = None) -> list[str]:
    """Names of the atoms that hold (sign 'true') or do not (sign 'false'), those naming `obj` only."""
    mask = state if sign == "true" else ((1 << len(task.atoms)) - 1) & ~state
    return [
        task.atom_names[i]
        for i in sorted(bits(mask), key=task.atom_names.__getitem__)
        if obj is None or obj in task.atoms[i][1]
    ]


def is_defined(task: Task, name: str, what: str) -> bool:
    """Is `name` an object, a proposition (atom) or a ground action of the task?"""
    if what == "object":
        return name.strip().lower() in task.types.objects
    try:
        (task.parse_action if what == "action" else task.parse_atom)(name)
        return True
    except UnknownNameError:
        return False


# ---- claims -------------------------------------------------------------------------------------


def _known(answer: bool, how: str = Proof.SIMULATED, detail: str = "") -> Verdict:
    return Verdict(answer, how, detail=detail)


def _plan_claim(task: Task, state: int, claim: dict) -> Verdict:
    plan = actions_of(task, claim["plan"], "plan")
    kind = claim["claim"]
    bad, last = task.run(plan, state)
    if kind == "executable":
        return _known(bad is None)
    if kind == "plan":
        return _known(bad is None and task.is_goal(last))
    if kind == "executable_at":
        k = int(claim["step"])
        return _known(bad is None or bad > k if k < len(plan) else False)
    if kind == "plan_status":
        status = claim["status"]
        if status == "inapplicable":
            return _known(bad is not None and bad == int(claim["step"]))
        if status == "applicable":
            return _known(bad is None and not task.is_goal(last))
        return _known(bad is None and task.is_goal(last))
    # removable: the plan without those steps is a plan
    gone = {int(i) for i in claim["steps"]}
    rest = [a for i, a in enumerate(plan) if i not in gone]
    return _known(task.is_plan(rest, state))


def _cheap_refutation(task: Task, state: int, goal: list[tuple[int, int]], budget) -> Verdict | None:
    """A proof that no disjunct of `goal` can ever hold: the delete relaxation, then h^2 and h^2
    over literals (cached per state). The engine tries a witness search first; a claim built to be
    false should not pay it."""
    engine = task.questions.engine
    if not any(p & engine.relax.reachable(state)[0] == p for p, _ in goal):
        return Verdict(False, Proof.RELAXED)
    share = Budget(None, cpu=H2_SECONDS, parent=budget if isinstance(budget, Budget) else None)
    try:
        pairs = engine.h2(state, share)
        if not any(pair_reachable(pairs, p) for p, _ in goal) or engine.refuted_by_literals(state, goal, share):
            return Verdict(False, Proof.H2)
    except BudgetExceeded:
        return None
    return None


def _listed(truth, name: str, item: str) -> Verdict | None:
    """The verdict a list computed earlier proves about one item ('atoms' and 'actions': the
    unreachable ones; 'landmarks'): a complete list decides every item both ways, a partial one
    (the budget ran out) the items it proved either way; None when no list at hand decides it."""
    res = truth.list_so_far(name)
    if res is None:
        return None
    member, hit = res.member(item)
    if member is None:
        return None
    landmarks = name == "landmarks"
    if member:
        return Verdict(landmarks, hit.how)
    if hit is not None:
        return Verdict(not landmarks, hit.how, hit.witness)
    return Verdict(not landmarks, Proof.AVOIDED if landmarks else Proof.SHOWN)


def _reachable(task: Task, state: int, claim: dict, budget) -> Verdict:
    ids = atom_ids(task, claim["atoms"])
    truth = truth_for(task, state)
    mask = sum(1 << i for i in set(ids))
    if mask & state == mask:
        return Verdict(True, Proof.HOLDS, [])
    listed = _listed(truth, "atoms", task.atom_names[ids[0]]) if len(ids) == 1 else None
    v = listed or _cheap_refutation(task, state, [(mask, 0)], budget)
    if v is not None:
        return v
    if len(ids) == 1:
        return truth.atom_reach(ids[0], budget)
    return task.questions.is_reachable(ids, state, budget)


def _action_reachable(task: Task, state: int, claim: dict, budget) -> Verdict:
    a = actions_of(task, [claim["action"]], "action")[0]
    truth = truth_for(task, state)
    goal = [(op.pre, op.neg) for op in task.ops_of_action[a]]
    if not goal:
        return Verdict(False, Proof.STATIC, detail="its static preconditions are false in this problem")
    v = _listed(truth, "actions", task.action_names[a]) or _cheap_refutation(task, state, goal, budget)
    return v if v is not None else truth.action_reach(a, budget)


def decide(task: Task, state: int, claim: dict, budget=None) -> Verdict:
    """Is the claim true in `state` (an int state of `task`)? Proven either way, or answer None."""
    kind = claim.get("claim")
    if kind == "defined":
        return _known(is_defined(task, claim["name"], claim.get("what", "atom")), Proof.STATIC)
    s = state_of(task, state, claim)
    if kind in ("plan", "plan_status", "removable", "executable", "executable_at"):
        return _plan_claim(task, s, claim)
    if kind == "applicable":
        a = actions_of(task, [claim["action"]], "action")[0]
        return _known(task.op_for(a, s) is not None)
    if kind == "holds":
        return _known(
            all(literal_holds(task, s, a, True) for a in claim.get("atoms", ()))
            and not any(literal_holds(task, s, a, False) for a in claim.get("negated", ())),
            Proof.HOLDS,
        )
    if kind == "count":
        return _known(count(task, s, claim["of"]) == int(claim["value"]))
    if kind == "reachable":
        return _reachable(task, s, claim, budget)
    if kind == "action_reachable":
        return _action_reachable(task, s, claim, budget)
    if kind == "landmark":
        truth = truth_for(task, s)
        atom = atom_ids(task, [claim["atom"]], "atom")[0]
        if (s | task.goal_atoms) >> atom & 1:
            return Verdict(True, Proof.TRIVIAL, detail="it holds in the state or is part of the goal")
        v = _listed(truth, "landmarks", task.atom_names[atom]) or truth.landmark(atom, budget)
        if v.answer is None:
            return Verdict(None, Proof.UNKNOWN, detail=v.detail)
        return v
    raise AcpError(f"unknown claim {kind!r}", "claim", "see acptools.claims for the claims")


# ---- queries ------------------------------------------------------------------------------------


def first_failure(task: Task, state: int, plan) -> int | None:
    """The 1-based step of the first action that cannot be applied, or None when all apply."""
    bad, _ = task.run(actions_of(task, plan, "plan"), state)
    return None if bad is None else bad + 1


def evaluate(task: Task, state: int, query: dict):
    """The answer to a query (see the module docstring)."""
    kind = query.get("query")
    if kind == "undefined":
        return next((n for n in query["names"] if not is_defined(task, n, query.get("what", "action"))), None)
    if kind == "first_failure":
        return first_failure(task, state, query["plan"])
    if kind == "steps_before_failure":
        failed = first_failure(task, state, query["plan"])
        return len(query["plan"]) if failed is None else failed - 1
    s = state_of(task, state, query)
    if kind == "atoms":
        names = _of_predicates(atoms_of(task, s, query.get("sign", "true"), query.get("object")), query)
        if query.get("among") is None:
            return names
        listed = {task.atom_names[i] for i in atom_ids(task, query["among"], "among")}
        return [n for n in names if n in listed]
    if kind == "applicable":
        return task.questions.applicable(s)
    if kind == "effects":
        a = actions_of(task, [query["action"]], "action")[0]
        eff = truth_for(task, s).effects(a)
        if eff is None:
            raise AcpError(f"{query['action']} cannot be applied in the state asked about", "query")
        return {"pos": _of_predicates(sorted(eff[0]), query), "neg": _of_predicates(sorted(eff[1]), query)}
    if kind == "count":
        return count(task, s, query["of"])
    if kind == "value":
        return value_text(task, s, query["fluent"])
    raise AcpError(f"unknown query {kind!r}", "query", "see acptools.claims for the queries")
