"""Fast Downward as an exact engine for states too large for in-process search.

We hand the search binary (shipped in the `up-fast-downward` wheel) our own grounded task as a
SAS+ file with one binary variable per atom, so its Python translator (~100 ms) never runs and
Fast Downward answers about exactly the task we grounded (negative preconditions, conditional
effects and disjunctive goals included). Each operator costs its `cost` (1 under plan length).
Axioms (derived predicates) go in as SAS+ axiom rules, one layer per stratum; Fast Downward's
relaxation heuristics are not safe with negated derived conditions written this way, so tasks
with axioms are searched with A* and the blind heuristic (exhaustive, hence still proofs).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..budget import Budget
from ..errors import BudgetExceeded
from ..ground.conditional import compile_away
from ..ground.grounded import bits
from ..ground.grounding import Operator
from . import process as planner

OPTIMAL = "astar({}())"
SATISFICING = "eager_greedy([ff()])"  # complete: exhausting it (with safe ff pruning) proves no plan
FAST_SATISFICING = "lazy_greedy([ff()], preferred=[ff()])"  # finds plans far sooner where a witness is all we need
_FOUND, _UNSOLVABLE, _UNSOLVED_INCOMPLETE, _NOT_WITHIN_BOUND = 0, 11, 12, 13
INF = float("inf")


def optimal_heuristic(operators: list[Operator], cache: SasCache | None = None) -> str:
    """The admissible heuristic for A*: LM-cut, or h^max when there are conditional effects that
    cannot be compiled away (LM-cut does not support them)."""
    return "lmcut" if plain_operators(operators, cache) is not None else "hmax"


def plain_operators(
    operators: list[Operator], cache: SasCache | None = None
) -> tuple[list[Operator], list[int]] | None:
    """`operators` without conditional effects, with each one's source index (see
    conditional.py), or None when compiling them away would grow the list too much."""
    if not any(op.conds for op in operators):
        return operators, list(range(len(operators)))
    if cache is None:
        return compile_away(operators)
    return cache.per_list(cache.plain, operators, compile_away)


def package_dir(name: str) -> Path | None:
    """Folder of an installed package, found without importing it: the planner wheels import
    unified_planning (~1 s, far longer while a search thread holds the GIL)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.cache
def downward_binary() -> str | None:
    """Path of the Fast Downward search binary, or None when the wheel is not installed."""
    root = package_dir("up_fast_downward")
    path = root and root / "downward" / "builds" / "release" / "bin" / "downward"
    return str(path) if path and path.exists() else None


class Unsupported(Exception):
    """A task feature our SAS+ encoding does not express; callers fall back to in-process search."""


@dataclass
class FdResult:
    """solved: plan (operator indices); proven_none: no plan (within the bound); neither: budget ran
    out. `floor`: a proven lower bound on the length of any plan (of an optimal search; 0 unknown)."""

    plan: list[int] | None
    proven_none: bool
    timed_out: bool = False
    detail: str = ""
    floor: float = 0
    heuristic: str = ""  # the optimal search's heuristic (lmcut or hmax), for the proof's name


MAX_EFFECT_SPLIT = 256  # a delete meeting conditional adds becomes at most this many effects


class Numbering:
    """The SAS+ variables of a task: one per atom that its operators or goal mention, in atom
    order. The other atoms never change and are never tested, yet Fast Downward would carry them
    in every state and every LM-cut evaluation (on one suite state, a plan in 4.9 s instead of no
    plan in 10 s once 811 variables became 91)."""

    def __init__(self, used: int):
        self.atoms = list(bits(used))
        self.var = {a: i for i, a in enumerate(self.atoms)}

    def mask(self, mask: int) -> list[int]:
        """The variables of the atoms of `mask` (all of them must be numbered)."""
        var = self.var
        return [var[a] for a in bits(mask)]


class SasCache:
    """What writing one task's SAS+ files reuses from call to call: its operators compiled without
    conditional effects, the atoms they mention, the numberings, the variables' text and each
    operator's text. Held by the task (`sas_cache`), so it goes when the task goes; each part is
    bounded (the operators' texts by a few per operator of the task)."""

    LISTS = 4  # operator lists remembered (per generation, or pruned for a state)
    NUMBERINGS = 8
    TEXTS_PER_OPERATOR = 3
    MIN_TEXTS = 20_000
    TEXT_BYTES = 200  # an operator text's entry beside its characters: key, tuple, str header
    NUMBERED_BYTES = 120  # a numbered atom: a list slot and a dict entry
    COMPILED_BYTES = 500  # a compiled operator and its masks

    def __init__(self) -> None:
        self.plain: dict[int, tuple[list[Operator], object]] = {}
        self.mentioned: dict[int, tuple[list[Operator], int]] = {}
        self.numberings: dict[int, Numbering] = {}
        self.variables: dict[tuple[int, bool], str] = {}
        self.texts: dict[tuple, tuple[Operator, Numbering | None, str | None]] = {}
        self.text_room = self.MIN_TEXTS
        self.text_bytes = 0

    @property
    def approx_bytes(self) -> int:
        """Rough memory held: the texts, the numberings and the compiled operator lists."""
        numbered = sum(len(n.atoms) for n in list(self.numberings.values()))
        compiled = sum(len(hit[1][0]) for hit in list(self.plain.values()) if hit[1] is not None)
        return (
            self.text_bytes
            + sum(map(len, list(self.variables.values())))
            + self.NUMBERED_BYTES * numbered
            + self.COMPILED_BYTES * compiled
        )

    def per_list(self, table: dict, operators: list[Operator], compute):
        """``compute(operators)``, remembered for this list object (keyed by its id, checked by identity)."""
        hit = table.get(id(operators))
        if hit is None or hit[0] is not operators:
            if len(table) >= self.LISTS:
                table.pop(next(iter(table)))
            hit = table[id(operators)] = (operators, compute(operators))
            self.text_room = max(self.text_room, self.TEXTS_PER_OPERATOR * len(operators))
        return hit[1]

    def numbering(self, used: int) -> Numbering:
        """The numbering of the atoms of `used`."""
        hit = self.numberings.get(used)
        if hit is None:
            if len(self.numberings) >= self.NUMBERINGS:
                self.numberings.pop(next(iter(self.numberings)))
            hit = self.numberings[used] = Numbering(used)
        return hit

    def variables_text(self, num_atoms: int, gate: bool) -> str:
        """`_variables`, built once per size."""
        key = (num_atoms, gate)
        text = self.variables.get(key)
        if text is None:
            if len(self.variables) >= self.NUMBERINGS:
                self.variables.clear()
            text = self.variables[key] = _variables(num_atoms, gate)
        return text

    def operator_body(self, op: Operator, started: int | None, gated: bool, numbering: Numbering | None) -> str | None:
        """`_sas_operator_body`, built once per operator and numbering (the operator lists passed in
        change per state: pruned to what is reachable from it)."""
        key = (id(op), started is not None, gated, id(numbering))
        hit = self.texts.get(key)
        if hit is not None and hit[0] is op and hit[1] is numbering:
            return hit[2]
        if len(self.texts) >= self.text_room:
            self.texts.clear()
            self.text_bytes = 0
        body = _sas_operator_body(op, started, gated, numbering)
        self.texts[key] = (op, numbering, body)
        self.text_bytes += self.TEXT_BYTES + len(body or "")
        return body


def sas_cache(task) -> SasCache:
    """The SasCache of a grounded task, kept in its own caches."""
    cache = task.caches.get("sas")
    return cache if cache is not None else task.caches.setdefault("sas", SasCache())


def _mentioned(operators: list[Operator]) -> int:
    used = 0
    for op in operators:
        used |= op.pre | op.neg | op.add | op.dele
        for cp, cn, ca, cd in op.conds:
            used |= cp | cn | ca | cd
    return used


def mentioned_atoms(operators: list[Operator], cache: SasCache | None = None) -> int:
    """The atoms the operators mention anywhere (remembered per list object with a cache)."""
    return _mentioned(operators) if cache is None else cache.per_list(cache.mentioned, operators, _mentioned)


def _variables(num_atoms: int, gate: bool) -> str:
    """One binary variable per atom (plus the gate's 'started')."""
    lines = []
    for a in range(num_atoms):
        lines += ["begin_variable", f"v{a}", "-1", "2", f"Atom a{a}()", f"NegatedAtom a{a}()", "end_variable"]
    if gate:
        lines += ["begin_variable", "started", "-1", "2", "Atom started()", "NegatedAtom started()", "end_variable"]
    return "\n".join(lines)


def _derived_variables(num_atoms: int, gate: bool, axioms) -> str:
    """`_variables` with each derived atom's axiom layer (its stratum; default value false). A derived
    atom no rule derives is always false: a plain variable no operator changes."""
    layer_of = {}
    for k, layer in enumerate(axioms.layers):
        for r in layer:
            layer_of[r.head.bit_length() - 1] = k
    lines = []
    for a in range(num_atoms):
        layer = layer_of.get(a, -1)
        lines += ["begin_variable", f"v{a}", str(layer), "2", f"Atom a{a}()", f"NegatedAtom a{a}()", "end_variable"]
    if gate:
        lines += ["begin_variable", "started", "-1", "2", "Atom started()", "NegatedAtom started()", "end_variable"]
    return "\n".join(lines)


def _rules(axioms) -> list[str]:
    """The axioms as SAS+ rules: the head goes from false (1, its default) to true (0)."""
    out = []
    for r in axioms.rules:
        conds = [f"{a} 0" for a in bits(r.pos)] + [f"{a} 1" for a in bits(r.neg)]
        out.append("\n".join(["begin_rule", str(len(conds))] + conds + [f"{r.head.bit_length() - 1} 1 0", "end_rule"]))
    return out


def write_sas(
    num_atoms: int,
    operators: list[Operator],
    state: int,
    goal: list[tuple[int, int]],
    not_first: frozenset[int] = frozenset(),
    axioms=None,
    budget: Budget | None = None,
    used: int | None = None,
    cache: SasCache | None = None,
) -> str:
    """SAS+ text: one binary variable per atom the operators or goal mention (value 0 = true; all
    atoms, atom i as variable i, with axioms); a disjunctive goal gets a 0-cost helper action per
    disjunct that sets an extra goal variable. Operators in `not_first` may not start the plan:
    every operator sets a 'started' variable, and those require it. Operators are named o<index in
    `operators`>; one without effects is left out (Fast Downward rejects it, and it never helps a
    plan). `used`: the atoms to number (a superset of what the operators mention, shared by the
    calls on one task so that the operators' texts are built once). Writing a big task takes
    seconds, so `budget` is checked per operator. `cache`: the task's SasCache (texts built once)."""
    numbering = None
    if not axioms:
        used = mentioned_atoms(operators, cache) if used is None else used
        for p, n in goal:
            used |= p | n
        numbering = Numbering(used) if cache is None else cache.numbering(used)
    count = num_atoms if numbering is None else len(numbering.atoms)
    started = count if not_first else None
    goal_var = count + (started is not None)
    multi_goal = len(goal) > 1
    gate = started is not None
    out = [
        "begin_version",
        "3",
        "end_version",
        "begin_metric",
        "1",
        "end_metric",
        str(goal_var + multi_goal),
        _derived_variables(num_atoms, gate, axioms)
        if axioms
        else _variables(count, gate)
        if cache is None
        else cache.variables_text(count, gate),
    ]
    if multi_goal:
        out += ["begin_variable", "goal", "-1", "2", "Atom goal()", "NegatedAtom goal()", "end_variable"]
    out += ["0", "begin_state"]
    derived = axioms.derived if axioms else 0
    atoms = range(num_atoms) if numbering is None else numbering.atoms
    out += ["0" if state >> a & 1 and not derived >> a & 1 else "1" for a in atoms]
    if started is not None:
        out.append("1")
    if multi_goal:
        out.append("1")
    out += ["end_state", "begin_goal"]
    if multi_goal:
        out += ["1", f"{goal_var} 0"]
    else:
        conds = _conditions(*goal[0], numbering)
        out += [str(len(conds))] + conds
    out.append("end_goal")
    ops_text = []
    for i, op in enumerate(operators):
        if budget is not None:
            budget.check()
        body = (
            _sas_operator_body(op, started, i in not_first, numbering)
            if cache is None
            else cache.operator_body(op, started, i in not_first, numbering)
        )
        if body is not None:
            ops_text.append(f"begin_operator\no{i}\n{body}")
    for j, (p, n) in enumerate(goal if multi_goal else ()):
        pre = _conditions(p, n, numbering)
        ops_text.append(
            "\n".join(
                ["begin_operator", f"goal{j}", str(len(pre))] + pre + ["1", f"0 {goal_var} -1 0", "0", "end_operator"]
            )
        )
    out.append(str(len(ops_text)))
    out += ops_text
    rules = _rules(axioms) if axioms else []
    out.append(str(len(rules)))
    out += rules
    return "\n".join(out) + "\n"


def _conditions(pos: int, neg: int, numbering: Numbering | None) -> list[str]:
    """'variable value' lines: the atoms of `pos` true (0), those of `neg` false (1)."""
    if numbering is None:
        return [f"{a} 0" for a in bits(pos)] + [f"{a} 1" for a in bits(neg)]
    return [f"{v} 0" for v in numbering.mask(pos)] + [f"{v} 1" for v in numbering.mask(neg)]


def _literals(pos: int, neg: int) -> tuple[tuple[int, int], ...]:
    return tuple([(a, 0) for a in bits(pos)] + [(a, 1) for a in bits(neg)])


def _effects(op: Operator) -> list[tuple[tuple, int, int]]:
    """(condition, variable, value) effects with `GroundedTask.apply_op`'s semantics, as Fast
    Downward's translator writes them: every condition reads the old state, several effects may set
    one variable, and an add wins over a delete of the same atom, so a delete fires only when no
    add of its atom does (its condition AND the negation of each such add's condition, one effect
    per combination of negated literals). No two effects that fire together set different values."""
    adds = [((), a) for a in bits(op.add)]
    dels = [((), a) for a in bits(op.dele & ~op.add)]
    for cp, cn, ca, cd in op.conds:
        cond = _literals(cp, cn)
        adds += [(cond, a) for a in bits(ca)]
        dels += [(cond, a) for a in bits(cd & ~ca & ~op.add)]
    add_conds: dict[int, list[tuple]] = {}
    for cond, a in adds:
        add_conds.setdefault(a, []).append(cond)
    effects = {(cond, a, 0) for cond, a in adds}
    for cond, a in dels:
        terms = {tuple(sorted(set(cond)))}
        for acond in add_conds.get(a, ()):
            # not acond: one of its literals is false; a term that already fixes it the other way drops out
            terms = {tuple(sorted(set(t) | {(v, 1 - x)})) for t in terms for v, x in acond if (v, x) not in t}
            if len(terms) > MAX_EFFECT_SPLIT:
                raise Unsupported("a delete meets too many conditional adds of its atom")
        effects.update((t, a, 1) for t in terms if len({v for v, _ in t}) == len(t))
    return sorted(effects)


def _sas_operator_body(
    op: Operator, started: int | None = None, gated: bool = False, numbering: Numbering | None = None
) -> str | None:
    pre_val = {a: 0 for a in bits(op.pre)}
    pre_val.update({a: 1 for a in bits(op.neg)})
    effects = _effects(op)
    if not effects:
        return None
    if numbering is not None:
        var = numbering.var
        pre_val = {var[a]: x for a, x in pre_val.items()}
        effects = [(tuple((var[a], x) for a, x in cond), var[a], post) for cond, a, post in effects]
    if started is not None:
        effects.append(((), started, 0))
        if gated:
            pre_val[started] = 0
    affected = {v for _, v, _ in effects}
    prevail = [(v, x) for v, x in pre_val.items() if v not in affected]
    lines = [str(len(prevail))] + [f"{v} {x}" for v, x in prevail]
    lines.append(str(len(effects)))
    stated: set[int] = set()
    for cond, v, post in effects:
        pre = pre_val.get(v, -1) if v not in stated else -1  # an operator precondition, stated once
        stated.add(v)
        lines.append(" ".join([str(len(cond))] + [f"{cv} {cx}" for cv, cx in cond] + [str(v), str(pre), str(post)]))
    lines += [_cost_text(op), "end_operator"]
    return "\n".join(lines)


def _cost_text(op: Operator) -> str:
    """The operator's cost as SAS+ states it (1 under plan length): Fast Downward takes whole costs."""
    cost = getattr(op, "cost", 1)
    if getattr(cost, "denominator", 1) != 1:
        raise Unsupported("Fast Downward takes only whole action costs")
    return str(int(cost))


def run_search(
    binary: str, config: str, sas: str, budget: Budget, memory_mb: int = 4096, stop_when=None
) -> tuple[int | None, str | None, str]:
    """Run a Fast Downward-style search binary on SAS+ text under `budget`: (exit code or None when
    stopped by the budget, a cancel or `stop_when`, plan text or None, tail of its output). With
    `stop_when(new_output_text) -> bool`, the planner's log is read as it grows and the planner is
    stopped once that returns True."""

    def work(folder: str):
        plan_file = os.path.join(folder, "plan")
        sas_file, out_file = os.path.join(folder, "input.sas"), os.path.join(folder, "output.txt")
        with open(sas_file, "w") as f:
            f.write(sas)
        watch = None if stop_when is None else _LogWatch(out_file, stop_when)
        code, why = planner.run(
            [binary, "--search", config, "--internal-plan-file", plan_file],
            budget,
            folder,
            sas_file,
            out_file,
            memory_mb,
            watch=watch,
        )
        if watch is not None:
            watch()  # the last lines, whether it stopped or finished
        if code is None:
            return None, None, why
        tail = Path(out_file).read_text()[-300:]
        plan_text = Path(plan_file).read_text() if os.path.exists(plan_file) else None
        return code, plan_text, tail

    return planner.in_folder("search", work)


class _LogWatch:
    """Hands the complete lines a planner appended to its log since the last call to `stop_when`."""

    def __init__(self, path: str, stop_when):
        self.path, self.stop_when, self.offset, self.partial = path, stop_when, 0, b""

    def __call__(self) -> bool:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return False
        self.offset += len(data)
        data = self.partial + data
        cut = data.rfind(b"\n") + 1
        self.partial = data[cut:]
        return bool(cut) and self.stop_when(data[:cut].decode("utf-8", "replace"))


_F_LINE = re.compile(r"\] f = (\d+)[,\s]")


class _FloorWatch:
    """The largest f-value A* reports having expanded (its "f = K" lines): with an admissible
    heuristic A* expands states in order of f, so no plan cheaper than that exists."""

    def __init__(self, stop_at: float | None):
        self.floor, self.stop_at = 0, stop_at

    def __call__(self, text: str) -> bool:
        for m in _F_LINE.finditer(text):
            self.floor = max(self.floor, int(m.group(1)))
        return self.stop_at is not None and self.floor >= self.stop_at


def plan_lines(plan_text: str) -> list[str]:
    """Action lines of a plan file, without the cost comment."""
    return [line.strip() for line in plan_text.splitlines() if line.strip().startswith("(")]


def solve(
    num_atoms: int,
    operators: list[Operator],
    state: int,
    goal: list[tuple[int, int]],
    budget: Budget | float,
    bound: int | None = None,
    memory_mb: int = 4096,
    optimal: bool = True,
    not_first: frozenset[int] = frozenset(),
    stop_floor: float | None = None,
    axioms=None,
    greedy: str = SATISFICING,
    used: int | None = None,
    cache: SasCache | None = None,
) -> FdResult:
    """Optimal plan with A* (or any plan with the `greedy` search when not `optimal`) within `budget` (a
    Budget, or wall seconds); with `bound`, only plans of length < bound count. The optimal search
    reports in `floor` how cheap a plan could still be, and with `stop_floor` it stops as soon as
    no plan shorter than that can exist. `axioms`: the task's ground axioms (searched blind). `used`:
    the atoms that become variables (see `write_sas`; default: those the operators mention). `cache`:
    the task's SasCache (`sas_cache(task)`), so that what the calls on one task share is built once."""
    if not isinstance(budget, Budget):
        budget = Budget(budget)
    binary = downward_binary()
    if binary is None:
        return FdResult(None, False, detail="Fast Downward is not installed (pip install up-fast-downward)")
    if not goal:
        return FdResult(None, True, floor=INF)
    if any(state & p == p and not state & n for p, n in goal):
        return FdResult([], False)  # (Fast Downward rejects an empty goal)
    heuristic = "blind" if axioms else optimal_heuristic(operators, cache) if optimal else ""
    res = _search(
        binary,
        num_atoms,
        operators,
        state,
        goal,
        budget,
        bound,
        memory_mb,
        heuristic,
        not_first,
        stop_floor,
        axioms,
        greedy,
        used,
        cache,
    )
    res.heuristic = heuristic
    return res


def _search(
    binary: str,
    num_atoms: int,
    operators: list[Operator],
    state: int,
    goal: list[tuple[int, int]],
    budget: Budget,
    bound: int | None,
    memory_mb: int,
    heuristic: str,
    not_first: frozenset[int],
    stop_floor: float | None,
    axioms=None,
    greedy: str = SATISFICING,
    used: int | None = None,
    cache: SasCache | None = None,
) -> FdResult:
    """`solve` past its trivial cases: A* with `heuristic` (the `greedy` search without one)."""
    optimal = bool(heuristic)
    config = OPTIMAL.format(heuristic) if optimal else greedy
    if bound is not None:
        config = config[:-1] + f", bound={bound})"
    source = None
    plain = plain_operators(operators, cache)
    if plain is not None and plain[0] is not operators:
        operators, source = plain
        not_first = frozenset(j for j, i in enumerate(source) if i in not_first)
    try:
        sas = write_sas(num_atoms, operators, state, goal, not_first, axioms, budget, used, cache)
    except Unsupported as e:
        return FdResult(None, False, detail=str(e))
    except BudgetExceeded as e:
        return FdResult(None, False, timed_out=True, detail=f"Fast Downward not started: {e}")
    watch = _FloorWatch(stop_floor) if optimal else None
    code, plan_text, tail = run_search(binary, config, sas, budget, memory_mb, watch)
    # below the bound A* keeps its guarantee; a plan at or above it was never looked for
    seen = min(watch.floor, INF if bound is None else bound) if watch is not None else 0
    if code is None:
        stopped = watch is not None and watch.stop_at is not None and watch.floor >= watch.stop_at
        return FdResult(
            None,
            False,
            timed_out=not stopped,
            floor=seen,
            detail=f"Fast Downward stopped at f = {seen}" if stopped else f"Fast Downward {tail}",
        )
    if code == _FOUND and plan_text is not None:
        # our operators are named o<index>; goal<j> are the 0-cost helpers of a disjunctive goal
        names = [line[1:-1].split()[0] for line in plan_lines(plan_text)]
        plan = [int(n[1:]) for n in names if n.startswith("o")]
        if source is not None:
            plan = [source[j] for j in plan]
        return FdResult(plan, False, floor=len(plan) if optimal else 0)
    if code == _UNSOLVABLE:
        return FdResult(None, True, floor=INF)
    if code == _NOT_WITHIN_BOUND:
        return FdResult(None, True, floor=bound)
    return FdResult(None, False, detail=planner.exit_detail("Fast Downward", code, tail, memory_mb))
