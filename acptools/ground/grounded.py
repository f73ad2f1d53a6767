"""The grounded task: fluent atoms and ground actions as small ints, states as int bitsets.

A state is an `int` whose bit i says fluent atom i is true (closed world; static facts live in the
task, not in states). This keeps hashing, copying and subset tests to single big-int operations.
Names are read here once, at the boundary: everything below works on ids.

Grounding is lazy, by relaxed reachability (exploration.py), yet every answer is about the whole
task: every type-correct ground action is an action, applicable in any state its precondition
holds in, reachable from init or not. The invariant that makes this exact:

  * atoms are all numbered at load (`proposition_atoms`) and never renumbered;
  * `ops_of_action[a]` is complete for every action id a: all operators of that action (none when
    static facts rule it out, the only case a verdict may call "static"); ids are only appended;
  * `reached` is closed under the delete relaxation of `operators`, and `operators` holds every
    operator whose positive preconditions lie in `reached` (plus some others, which never fire
    from such states). So for a state s within `reached`, every operator applicable in any state
    reachable from s, and every relaxed or h^2 argument from s, is within `operators`;
  * `ensure(s)` continues the fixpoint from `reached | s` when s has atoms outside it, replacing
    `operators` by a longer list (never changing one in place, so caches keyed by the list see
    the change) and bumping `generation`. Whoever uses `operators` for a state ensures it first:
    `applicable_ops` here, `Questions.state` for every question (engines are rebuilt when the
    generation moved), `StateTruth` for its state.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import threading
from dataclasses import dataclass
from operator import getitem

from ..errors import AcpError, UnknownNameError
from ..pddl import parse_domain
from ..pddl.model import Domain, Problem
from ..pddl.writer import allowed_predicate, write_domain, write_problem
from ..util.hashing import task_key
from .bitset import bits
from .exploration import Exploration
from .footprint import Footprint
from .grounding import MAX_GROUND_OPERATORS, Grounder, Operator, SchemaGrounder, TypeTable, fluent_predicates
from .join import Relation, compile_join
from .names import did_you_mean, render, split_name, split_plan

__all__ = ["GroundedTask", "Lifted", "Unsatisfied", "bits", "compile_joins", "split_atoms", "task_key"]
# a parsed domain is read-only, so the tasks of one domain share it (graders load many problems of few domains)
parsed_domain = functools.lru_cache(maxsize=64)(parse_domain)
POSSIBLE_CHECK_EVERY = 1024  # bindings between budget checks while listing the possible actions


def split_atoms(text: str) -> list[str]:
    """'(p a b) (q)' -> ['(p a b)', '(q)']; one bare atom stays whole."""
    found = re.findall(r"\([^()]*\)", text)
    return found if len(found) > 1 else [text]


@dataclass(frozen=True)
class Unsatisfied:
    """Why an action cannot be applied: atoms that must hold but do not, and ones that must not but do."""

    missing: tuple[str, ...]
    present: tuple[str, ...]

    def describe(self) -> list[str]:
        """The failed preconditions as PDDL: missing atoms, then `(not a)` for atoms that must not hold."""
        return list(self.missing) + [f"(not {a})" for a in self.present]


@dataclass
class Lifted:
    """A parsed task ready to ground (what acptools.ground.pipeline's first steps make): the domain and
    problem, the type table, the fluent predicates, the grounder (static facts, the atoms' numbering)
    and one join per action schema over shared relations (the static facts, and the fluent atoms
    reached so far)."""

    domain: Domain
    problem: Problem
    types: TypeTable
    fluents: frozenset[str]
    grounder: Grounder
    joins: dict
    relations: dict

    @classmethod
    def of(cls, domain: Domain, problem: Problem) -> Lifted:
        """The lifted task of a parsed domain and problem, its joins compiled."""
        types, fluents = TypeTable(domain, problem), fluent_predicates(domain)
        grounder = Grounder(domain, problem, types, fluents)
        joins, relations = compile_joins(domain, types, fluents, grounder.static_true)
        return cls(domain, problem, types, fluents, grounder, joins, relations)

    def count_possible(self, limit: int, budget) -> dict[str, int] | None:
        """Bindings that the static facts allow, per schema (None: more than ``limit`` in all)."""
        counts: dict[str, int] = {}
        for name, join in self.joins.items():
            found = join.bindings(budget, fluent=False, limit=limit - sum(counts.values()), keep=False)
            if found is None:
                return None
            counts[name] = len(found)
        return counts


def compile_joins(domain: Domain, types: TypeTable, fluents, static_true) -> tuple[dict, dict]:
    """(joins, relations): one join per schema over shared relations, the static facts per predicate
    and the fluent atoms reached so far (filled by exploration)."""
    relations: dict = {p: Relation() for p in domain.predicates}
    for pred, args in sorted(static_true):
        relations[pred].add(args)
    count = lambda p: math.prod(len(types.of(t)) for _, t in domain.predicates[p].params)  # noqa: E731
    joins = {
        name: compile_join(schema, [types.of(t) for _, t in schema.params], fluents, relations, count)
        for name, schema in domain.actions.items()
    }
    return joins, relations


class GroundedTask:
    """A PDDL task grounded once: names both ways, operators, init and goal as bitsets.

    Made by acptools.ground.pipeline.ground_task from its parts: the lifted task, its footprint, the
    grounded axioms and goal (with the atoms numbered); then `ground_everything` or `explore` grounds
    its operators."""

    def __init__(
        self,
        domain_text: str,
        problem_text: str,
        lifted: Lifted,
        footprint: Footprint,
        axioms,
        goal: list[tuple[int, int]],
        max_operators: int = MAX_GROUND_OPERATORS,
        lazy: bool = True,
    ):
        g = lifted.grounder
        self.domain_text, self.problem_text = domain_text, problem_text
        self.domain, self.problem = lifted.domain, lifted.problem
        self.key = task_key(domain_text, problem_text)
        self.id = self.key[:16]
        self.types, self.fluents, self.static_true = lifted.types, lifted.fluents, g.static_true
        self._joins, self._relations = lifted.joins, lifted.relations
        self.footprint = footprint
        self.axioms = axioms  # None without derived predicates
        self.goal = goal  # DNF: [(pos, neg)]
        self.derived = axioms.derived if axioms else 0
        if axioms:
            self.apply_op = self._apply_and_derive
        self.atoms = g.atoms
        self.atom_index = g.atom_ids
        self.atom_names = [render(p, a) for p, a in self.atoms]
        self.atom_name_index = {n: i for i, n in enumerate(self.atom_names)}
        self.init = self.close(sum(1 << self.atom_index[f] for f in self.problem.init if f[0] in self.fluents))
        costs = g.costs
        # "cost": plans are measured by the operators' costs; "length": by their length (metric_reason
        # says why a metric the problem states is not used)
        self.metric = "length" if costs is None else costs.metric
        self.metric_reason = "" if costs is None else costs.reason
        self.goal_atoms = 0
        for p, _ in goal:
            self.goal_atoms |= p
        self._grounder = g
        self._lock = threading.RLock()
        # what the layers above build for this task alone (Fast Downward's texts, a prompt's parts),
        # held here so that it goes when the task goes; each holder bounds its own part
        self.caches: dict = {}
        self.max_operators = max_operators
        self.action_names: list[str] = []
        self.action_index: dict[str, int] = {}
        self.ops_of_action: list[list[Operator]] = []
        self.operators: list[Operator] = []
        self.generation = 0
        self.reached = 0
        self._possible: list[str] | None = None
        self._possible_names: frozenset[str] | None = None
        self._schemas = {name: SchemaGrounder(schema, g) for name, schema in self.domain.actions.items()}
        self._explores = lazy  # lazy grounding: an exploration to continue
        self._exploration = Exploration(self.atoms, self._joins, self._relations, self._action_of) if lazy else None

    def explore(self, budget=None) -> None:
        """Ground the operators relaxed-reachable from init (lazy grounding's first fixpoint)."""
        with self._lock:
            self._extend(self.init, budget)

    # ---- kept whole (acptools.ground.snapshot): a restored task rebuilds these on first use -------
    # the lock; the compiled templates; the joins; the exploration's state, most of the bytes and of
    # the time to restore, needed only to ground a state outside `reached`
    REBUILT = ("_lock", "_schemas", "_joins", "_relations", "_exploration", "apply_op", "caches")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self.REBUILT}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self.caches = {}
        if self.axioms:
            self.apply_op = self._apply_and_derive

    def __getattr__(self, name: str):
        """Only for a restored task: one of the parts it rebuilds, built under the lock when first read."""
        build = GroundedTask._REBUILD.get(name)
        if build is None or "_lock" not in self.__dict__:
            raise AttributeError(name)
        with self._lock:
            if name not in self.__dict__:
                build(self)
        return self.__dict__[name]

    def _rebuild_schemas(self) -> None:
        self._schemas = {name: SchemaGrounder(schema, self._grounder) for name, schema in self.domain.actions.items()}

    def _rebuild_joins(self) -> None:
        # (and the relations, holding the static facts)
        self._joins, self._relations = compile_joins(self.domain, self.types, self.fluents, self.static_true)

    def _rebuild_exploration(self) -> None:
        """The fixpoint run again from `reached` (closed, so it fires only operators the task holds)."""
        if not self._explores:
            self._exploration = None
            return
        exp = Exploration(self.atoms, self._joins, self._relations, self._action_of)
        exp.extend(self.reached)
        exp.take_fired()
        self._exploration = exp

    _REBUILD = {
        "_schemas": _rebuild_schemas,
        "_joins": _rebuild_joins,
        "_relations": _rebuild_joins,
        "_exploration": _rebuild_exploration,
    }

    def ground_everything(self, budget=None) -> None:
        """Every action whose precondition can hold by the static facts (the reference the lazy
        grounding is tested against; also what `ground_all=True` asks for)."""
        with self._grounder.spending(budget):
            self._ground_each_action(budget)
        self.reached = (1 << len(self.atoms)) - 1

    def _ground_each_action(self, budget) -> None:
        for name in self.domain.actions:
            for k, args in enumerate(self.static_bindings(name, budget)):
                if budget is not None and not k % POSSIBLE_CHECK_EVERY:
                    budget.check()
                aid, ops = self._action_of(name, args)
                if aid is not None:
                    self.operators.extend(ops)
                    if len(self.operators) > self.max_operators:
                        raise self._too_many()

    def _too_many(self) -> AcpError:
        return AcpError(
            f"the task has more than {self.max_operators} ground operators", "grounding", "use a smaller problem"
        )

    def static_bindings(self, schema: str, budget=None, ordered: bool = True) -> list[tuple[str, ...]]:
        """Argument tuples of a schema that its top-level static literals allow (see join.py), in
        the order of a nested loop over the typed parameters unless `ordered` is False."""
        found = self._joins[schema].bindings(budget, fluent=False)
        if ordered:
            ranks = [{o: k for k, o in enumerate(self.types.of(t))} for _, t in self.domain.actions[schema].params]
            found.sort(key=lambda args: tuple(map(getitem, ranks, args)))
        return found

    # ---- lazy grounding (see the module docstring) --------------------------------------------
    def ensure(self, state: int, budget=None) -> bool:
        """Ground whatever a state outside `reached` needs (see the module docstring); True when
        the operators changed."""
        if not state & ~self.reached:
            return False
        with self._lock:
            if not state & ~self.reached:
                return False
            before = self.generation
            self._extend(state, budget)
            return self.generation != before

    def _extend(self, atoms: int, budget) -> None:
        exp = self._exploration
        try:
            with self._grounder.spending(budget):
                exp.extend(atoms, budget)
        finally:
            fired = exp.take_fired()
            if fired:
                ops = list(self.operators)
                for aid in fired:
                    ops.extend(self.ops_of_action[aid])
                if len(ops) > self.max_operators:
                    raise self._too_many()
                self.operators = ops
            if exp.started and not exp.frontier:
                self.reached = exp.reached  # written after the operators: readers see both or the old ones
            if fired:
                self.generation += 1

    def snapshot(self) -> tuple[int, int, list[Operator]]:
        """(generation, reached, operators) for an engine: read in this order, the operators cover
        the reached atoms even while another thread extends them."""
        generation, reached = self.generation, self.reached
        return generation, reached, self.operators

    def _action_of(self, schema: str, args: tuple) -> tuple[int | None, list[Operator]]:
        """The id and complete operators of a ground action; (None, []) when static facts rule it
        out (no id is given then). Callers hold the lock."""
        name = render(schema, args)
        aid = self.action_index.get(name)
        if aid is not None:
            return aid, self.ops_of_action[aid]
        masks = self._schemas[schema].ground(args)
        if not masks:
            return None, []
        aid = self._new_action(name)
        self.ops_of_action[aid] = [Operator(aid, *m) for m in masks]
        return aid, self.ops_of_action[aid]

    def possible_actions(self, budget=None) -> list[str]:
        """Names of the actions whose precondition can hold by the static facts (the rest are
        never applicable), schema by schema in the join's order; computed once."""
        if self._possible is None:
            with self._grounder.spending(budget):
                self._possible = self._list_possible(budget)
        return self._possible

    def _list_possible(self, budget) -> list[str]:
        found = []
        for name in self.domain.actions:
            grounder = self._schemas[name]
            for k, args in enumerate(self.static_bindings(name, budget, ordered=False)):
                if budget is not None and not k % POSSIBLE_CHECK_EVERY:
                    budget.check()
                if grounder.possible(args):
                    found.append(render(name, args))
        return found

    def possible_set(self, budget=None) -> frozenset[str]:
        """`possible_actions` as a set (computed once)."""
        if self._possible_names is None:
            self._possible_names = frozenset(self.possible_actions(budget))
        return self._possible_names

    def possible_action_ids(self, budget=None) -> list[int]:
        """Ids of the actions in `possible_actions` (in its order), giving ids to those that lazy
        grounding has not met yet."""
        return [self.parse_action(name) for name in self.possible_actions(budget)]

    @property
    def num_possible_actions(self) -> int:
        """Ground actions whose precondition can hold by the static facts."""
        return len(self.possible_actions())

    # ---- names ------------------------------------------------------------------------------
    def _new_action(self, name: str) -> int:
        i = self.action_index[name] = len(self.action_names)
        self.action_names.append(name)
        self.ops_of_action.append([])
        return i

    def _check_args(self, kind: str, name: str, params, args, text: str, where: str) -> None:
        if len(args) != len(params):
            shape = render(name, [v for v, _ in params])
            raise UnknownNameError(
                f"{kind} {name!r} takes {len(params)} arguments, got {len(args)} in {text!r}",
                where,
                f"write it as {shape}",
            )
        for (var, types), obj in zip(params, args):
            fitting = self.types.of(types)
            if obj not in self.types.objects:
                # an object of the type this position needs is the likelier intended name
                raise UnknownNameError(
                    f"unknown object {obj!r} in {text!r}",
                    where,
                    did_you_mean(obj, fitting)
                    or did_you_mean(obj, self.types.objects)
                    or f"objects of type {'/'.join(types)}: {', '.join(fitting[:8])}",
                )
            if not self.types.fits(obj, types):
                objtype = "/".join(self.types.objects[obj])
                raise UnknownNameError(
                    f"{obj!r} is a {objtype}, but {var} of {name!r} must be a {'/'.join(types)} in {text!r}",
                    where,
                    f"objects of that type: {', '.join(fitting[:8])}",
                )

    def parse_action(self, text: str, where: str = "") -> int:
        """Id of a ground action (any type-correct instance, even one whose static preconditions
        fail: such an action is known and never applicable). Errors name `where` it was written."""
        name, args = split_name(text, "action", where)
        canonical = render(name, args)
        i = self.action_index.get(canonical)
        if i is not None:
            return i
        schema = self.domain.actions.get(name)
        if schema is None:
            raise UnknownNameError(
                f"unknown action {name!r} in {text!r}",
                where,
                did_you_mean(name, self.domain.actions) or f"actions: {', '.join(sorted(self.domain.actions))}",
            )
        self._check_args("action", name, schema.params, args, text, where)
        with self._lock:
            i, _ = self._action_of(name, args)
            if i is None:
                i = self.action_index.get(canonical)
                if i is None:
                    i = self._new_action(canonical)
        return i

    def parse_atom(self, text: str, allow_static: bool = False, where: str = "") -> int | None:
        """Id of a proposition (a type-correct fluent atom). A static atom gives None when allowed,
        an error otherwise."""
        name, args = split_name(text, "atom", where)
        i = self.atom_name_index.get(render(name, args))
        if i is not None:
            return i
        pred = self.domain.predicates.get(name)
        if pred is None:
            raise UnknownNameError(
                f"unknown predicate {name!r} in {text!r}",
                where,
                did_you_mean(name, self.domain.predicates)
                or f"predicates: {', '.join(sorted(self.domain.predicates))}",
            )
        self._check_args("predicate", name, pred.params, args, text, where)
        if name not in self.fluents:
            if allow_static:
                return None
            raise UnknownNameError(
                f"{render(name, args)} is a static fact (no action changes {name!r}), not a proposition of the task",
                where,
                "ask about a fluent predicate: " + ", ".join(sorted(self.fluents)),
            )
        raise UnknownNameError(f"{text!r} is not a proposition of the task", where)

    def parse_state(self, atoms, where: str = "state") -> int:
        """A state from atom strings (closed world: unlisted fluent atoms are false). Static atoms
        that hold may be listed and are skipped; errors say which element is wrong (`state[2]`)."""
        self._check_state_size(atoms.count("(") if isinstance(atoms, str) else len(atoms), where)
        if isinstance(atoms, str):
            atoms = split_atoms(atoms)
        state = 0
        for k, text in enumerate(atoms):
            at = f"{where}[{k}]"
            i = self.parse_atom(text, allow_static=True, where=at)
            if i is None:
                name, args = split_name(text)
                if (name, args) not in self.static_true:
                    raise AcpError(
                        f"{render(name, args)} is a static fact that is false in this problem and no "
                        "action can make it true",
                        at,
                        "static facts always come from the problem",
                    )
                continue
            state |= 1 << i
        return self._derive(state, where) if self.axioms else state

    def _check_state_size(self, listed: int, where: str) -> None:
        """A state that lists more atoms than the task has (fluent atoms and true static facts) must
        repeat some: refused before any atom is read, so a huge list costs nothing."""
        most = len(self.atoms) + len(self.static_true)
        if listed > most:
            raise AcpError(
                f"the state lists {listed} atoms, more than this task has ({len(self.atoms)} fluent atoms "
                f"and {len(self.static_true)} true static facts)",
                where,
                "list each true atom once",
            )

    def _derive(self, listed: int, where: str) -> int:
        """A listed state with its derived atoms evaluated; a listed derived atom must follow."""
        state = self.axioms.close(listed)
        wrong = listed & self.derived & ~state
        if wrong:
            raise AcpError(
                f"{', '.join(self.names(wrong))} does not hold in this state: derived atoms follow from "
                "the basic ones by the domain's axioms",
                where,
                "list only the basic atoms (derived atoms are computed), or drop the derived ones that do not follow",
            )
        return state

    def parse_plan(self, plan, where: str = "plan") -> list[int]:
        """Action ids of a plan: a list of action strings (or ids, kept as they are), or one string
        '(a x) (b y)' / one per line. Errors say which step is wrong (`plan[3]`)."""
        return [self.action_id(a, f"{where}[{k}]") for k, a in enumerate(split_plan(plan))]

    def action_id(self, action, where: str = "action") -> int:
        """Id of an action given by name (parsed) or by id (checked)."""
        if not isinstance(action, int) or isinstance(action, bool):
            return self.parse_action(action, where)
        if not 0 <= action < len(self.action_names):
            raise AcpError(f"no action has id {action}", where, "pass action names")
        return action

    def names(self, mask: int) -> list[str]:
        """Sorted names of the atoms in `mask` (a state, or any set of atoms)."""
        return sorted(self.atom_names[i] for i in bits(mask))

    @property
    def approx_bytes(self) -> int:
        """Rough memory held by this task (for caches that budget bytes, not entries): operators carry
        atom bitsets, so their size grows with the atoms; their conditional effects and the axioms' rules
        too; and what the layers above keep in `caches` (each part with an ``approx_bytes``)."""
        found = Footprint(len(self.atoms), len(self.operators))
        kept = sum(getattr(part, "approx_bytes", 0) for part in list(self.caches.values()))
        return int(
            found.bytes + self._items() * found.bytes_per_item + kept + len(self.domain_text) + len(self.problem_text)
        )

    def _items(self) -> int:
        """Conditional effects of the operators and axiom rules (counted once per generation)."""
        counted = self.__dict__.get("_items_counted")
        if counted is None or counted[0] != len(self.operators):
            items = sum(len(op.conds) for op in self.operators) + (len(self.axioms.rules) if self.axioms else 0)
            counted = self._items_counted = (len(self.operators), items)
        return counted[1]

    def action_list(self, actions) -> list[str]:
        """Names of action ids, in order (how plans leave the library)."""
        return [self.action_names[a] for a in actions]

    def problem_for(self, state: int, first_actions=None) -> str:
        """PDDL problem text with `state` (plus the static facts) as its initial state. With
        `first_actions` (action ids), for the domain of `gated_domain_text`: only those may come first."""
        facts = set(self.static_true) | {self.atoms[i] for i in bits(state & ~self.derived)}
        for a in first_actions or ():
            schema, args = split_name(self.action_names[a])
            facts.add((allowed_predicate(schema), args))
        return write_problem(self.problem, self.domain.name, facts)

    @functools.cached_property
    def written_domain_text(self) -> str:
        """The domain as our parser read it, written back for outside planners: costs dropped (plan
        length is the cost) and only what acptools understood, so their translators see our task."""
        return write_domain(self.domain)

    @functools.cached_property
    def gated_domain_text(self) -> str:
        """The domain compiled so that a plan may start only with an allowed ground action."""
        return write_domain(self.domain, first_action_gate=True)

    @property
    def num_actions(self) -> int:
        """All type-correct ground actions, including those static facts rule out."""
        total = 0
        for schema in self.domain.actions.values():
            n = 1
            for _, t in schema.params:
                n *= len(self.types.of(t))
            total += n
        return total

    def all_ground_actions(self):
        """Every type-correct ground action name, schema by schema (a generator: there may be many)."""
        for name, schema in sorted(self.domain.actions.items()):
            for args in itertools.product(*(self.types.of(t) for _, t in schema.params)):
                yield render(name, args)

    # ---- semantics --------------------------------------------------------------------------
    def is_goal(self, state: int) -> bool:
        """Whether `state` satisfies the goal."""
        return any(state & p == p and not state & n for p, n in self.goal)

    def applicable_ops(self, state: int) -> list[Operator]:
        """The operators applicable in `state` (grounding what it needs first)."""
        self.ensure(state)
        return [op for op in self.operators if state & op.pre == op.pre and not state & op.neg]

    def applicable(self, state: int) -> list[int]:
        """Ids of the ground actions applicable in `state`, sorted by name."""
        ids = {op.action for op in self.applicable_ops(state)}
        return sorted(ids, key=self.action_names.__getitem__)

    def op_for(self, action: int, state: int) -> Operator | None:
        """The operator of `action` applicable in `state`, or None when none is."""
        for op in self.ops_of_action[action]:
            if state & op.pre == op.pre and not state & op.neg:
                return op
        return None

    def unsatisfied(self, action: int, state: int) -> Unsatisfied:
        """The smallest reason among the action's precondition disjuncts."""
        ops = self.ops_of_action[action]
        if not ops:
            return Unsatisfied(
                self.false_static_facts(action) or ("static preconditions that are false in this problem",), ()
            )
        best = min(ops, key=lambda op: bin(op.pre & ~state).count("1") + bin(op.neg & state).count("1"))
        return Unsatisfied(tuple(self.names(best.pre & ~state)), tuple(self.names(best.neg & state)))

    def false_static_facts(self, action: int) -> tuple[str, ...]:
        """The static literals of the action's precondition (top-level conjunction) that are false in
        this problem, named: '(road l0 l0)' for a missing fact, '(not (p a))' for a true one it
        forbids, '(= a b)' / '(not (= a a))' for equalities; () when none is found there."""
        name = self.action_names[action].strip("()").split()
        schema = self.domain.actions.get(name[0])
        if schema is None:
            return ()
        binding = {v: a for (v, _), a in zip(schema.params, name[1:])}
        out: list[str] = []
        self._false_static(schema.precondition, binding, out)
        return tuple(out)

    def _false_static(self, f: tuple, binding: dict, out: list[str], positive: bool = True) -> None:
        tag = f[0]
        if tag == "and" and positive:
            for g in f[1]:
                self._false_static(g, binding, out)
        elif tag == "not" and positive:
            self._false_static(f[1], binding, out, False)
        elif tag == "atom" and f[1] not in self.fluents:
            args = tuple(binding.get(a, a) for a in f[2])
            if ((f[1], args) in self.static_true) != positive:
                atom = render(f[1], args)
                out.append(atom if positive else f"(not {atom})")
        elif tag == "=":
            a, b = (binding.get(x, x) for x in f[1:])
            if (a == b) != positive:
                out.append(f"(= {a} {b})" if positive else f"(not (= {a} {b}))")

    def close(self, state: int) -> int:
        """`state` with its derived atoms evaluated (the state itself without axioms)."""
        return self.axioms.close(state) if self.axioms else state

    def _apply_and_derive(self, op: Operator, state: int) -> int:
        """`apply_op` for tasks with axioms: the derived atoms of the new state are re-evaluated."""
        return self.axioms.close(GroundedTask.apply_op(self, op, state))

    def apply_op(self, op: Operator, state: int) -> int:
        """The state after applying `op` in `state` (conditional effects included)."""
        add, dele = op.add, op.dele
        for cp, cn, ca, cd in op.conds:
            if state & cp == cp and not state & cn:
                add |= ca
                dele |= cd
        return (state & ~dele) | add

    def run(self, actions: list[int], state: int) -> tuple[int | None, int]:
        """Replay actions: (index of the first inapplicable one or None, the state reached before it)."""
        for i, a in enumerate(actions):
            op = self.op_for(a, state)
            if op is None:
                return i, state
            state = self.apply_op(op, state)
        return None, state

    def is_plan(self, actions: list[int], state: int) -> bool:
        """Do the actions apply in turn from `state` and end in a goal state?"""
        bad, last = self.run(actions, state)
        return bad is None and self.is_goal(last)
