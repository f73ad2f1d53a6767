"""The grounded task: fluent atoms and ground actions as small ints, states as int bitsets.

A state is an `int` whose bit i says fluent atom i is true (closed world; static facts live in the
task, not in states). This keeps hashing, copying and subset tests to single big-int operations.
Names are read here once, at the boundary: everything below works on ids.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import threading
from dataclasses import dataclass

from .errors import AcpError, UnknownNameError
from .grounding import MAX_GROUND_OPERATORS, Grounder, Operator, TypeTable, fluent_predicates, ground_schema
from .names import did_you_mean, render, split_name, split_plan
from .pddl import parse_domain, parse_problem


def bits(mask: int):
    """Indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def task_key(domain_text: str, problem_text: str) -> str:
    """The content hash of a task's PDDL: one key for caches, the server's ids and proof stores."""
    data = domain_text.encode("utf-8", "surrogatepass") + b"\0" + problem_text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def split_atoms(text: str) -> list[str]:
    """'(at c0 l0) (empty-ferry)' -> ['(at c0 l0)', '(empty-ferry)']; one bare atom stays whole."""
    found = re.findall(r"\([^()]*\)", text)
    return found if len(found) > 1 else [text]


@dataclass(frozen=True)
class Unsatisfied:
    """Why an action cannot be applied: atoms that must hold but do not, and ones that must not but do."""

    missing: tuple[str, ...]
    present: tuple[str, ...]

    def describe(self) -> list[str]:
        return list(self.missing) + [f"(not {a})" for a in self.present]


class GroundedTask:
    """A PDDL task grounded once: names both ways, operators, init and goal as bitsets."""

    def __init__(self, domain_text: str, problem_text: str, max_operators: int = MAX_GROUND_OPERATORS,
                 budget=None):
        self.domain_text, self.problem_text = domain_text, problem_text
        self.domain = parse_domain(domain_text)
        self.problem = parse_problem(problem_text, self.domain)
        self.key = task_key(domain_text, problem_text)
        self.id = self.key[:16]
        self.types = TypeTable(self.domain, self.problem)
        self.fluents = fluent_predicates(self.domain)
        g = Grounder(self.domain, self.problem, self.types, self.fluents)
        self.static_true = g.static_true
        self._lock = threading.Lock()
        self.action_names: list[str] = []
        self.action_index: dict[str, int] = {}
        self.operators: list[Operator] = []
        for schema in self.domain.actions.values():
            for ops in ground_schema(schema, g, self._new_action, budget):
                self.operators.extend(ops)
                if len(self.operators) > max_operators:
                    raise AcpError(f"the task has more than {max_operators} ground operators", "grounding",
                                   "use a smaller problem")
        self.num_possible_actions = len(self.action_names)
        self.ops_of_action: list[list[Operator]] = [[] for _ in self.action_names]
        for op in self.operators:
            self.ops_of_action[op.action].append(op)
        # every type-correct fluent atom is a proposition of the task, even if nothing mentions it
        for pname in sorted(self.fluents):
            pred = self.domain.predicates[pname]
            for args in itertools.product(*(self.types.of(t) for _, t in pred.params)):
                g.atom_id((pname, args))
        for fact in self.problem.init:
            if fact[0] in self.fluents:
                g.atom_id(fact)
        self.atoms = g.atoms
        self.atom_index = g.atom_ids
        self.atom_names = [render(p, a) for p, a in self.atoms]
        self.atom_name_index = {n: i for i, n in enumerate(self.atom_names)}
        self.init = sum(1 << self.atom_index[f] for f in self.problem.init if f[0] in self.fluents)
        self.goal = g.dnf(self.problem.goal, {})  # DNF: [(pos, neg)]
        self.goal_atoms = 0
        for p, _ in self.goal:
            self.goal_atoms |= p
        self._grounder = g

    # ---- names ------------------------------------------------------------------------------
    def _new_action(self, schema: str, args: tuple[str, ...]) -> int:
        name = render(schema, args)
        i = self.action_index.get(name)
        if i is None:
            i = self.action_index[name] = len(self.action_names)
            self.action_names.append(name)
        return i

    def _check_args(self, kind: str, name: str, params, args, text: str, where: str) -> None:
        if len(args) != len(params):
            shape = render(name, [v for v, _ in params])
            raise UnknownNameError(f"{kind} {name!r} takes {len(params)} arguments, got {len(args)} in {text!r}",
                                   where, f"write it as {shape}")
        for (var, types), obj in zip(params, args):
            fitting = self.types.of(types)
            if obj not in self.types.objects:
                # an object of the type this position needs is the likelier intended name
                raise UnknownNameError(f"unknown object {obj!r} in {text!r}", where,
                                       did_you_mean(obj, fitting) or did_you_mean(obj, self.types.objects) or
                                       f"objects of type {'/'.join(types)}: {', '.join(fitting[:8])}")
            if not self.types.fits(obj, types):
                objtype = "/".join(self.types.objects[obj])
                raise UnknownNameError(f"{obj!r} is a {objtype}, but {var} of {name!r} must be a {'/'.join(types)}"
                                       f" in {text!r}", where, f"objects of that type: {', '.join(fitting[:8])}")

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
            raise UnknownNameError(f"unknown action {name!r} in {text!r}", where,
                                   did_you_mean(name, self.domain.actions) or
                                   f"actions: {', '.join(sorted(self.domain.actions))}")
        self._check_args("action", name, schema.params, args, text, where)
        with self._lock:
            i = self.action_index.get(canonical)
            if i is None:
                i = self.action_index[canonical] = len(self.action_names)
                self.action_names.append(canonical)
                self.ops_of_action.append([])
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
            raise UnknownNameError(f"unknown predicate {name!r} in {text!r}", where,
                                   did_you_mean(name, self.domain.predicates) or
                                   f"predicates: {', '.join(sorted(self.domain.predicates))}")
        self._check_args("predicate", name, pred.params, args, text, where)
        if name not in self.fluents:
            if allow_static:
                return None
            raise UnknownNameError(f"{render(name, args)} is a static fact (no action changes {name!r}), "
                                   "not a proposition of the task", where, "ask about a fluent predicate: " +
                                   ", ".join(sorted(self.fluents)))
        raise UnknownNameError(f"{text!r} is not a proposition of the task", where)

    def parse_state(self, atoms, where: str = "state") -> int:
        """A state from atom strings (closed world: unlisted fluent atoms are false). Static atoms
        that hold may be listed and are skipped; errors say which element is wrong (`state[2]`)."""
        if isinstance(atoms, str):
            atoms = split_atoms(atoms)
        state = 0
        for k, text in enumerate(atoms):
            at = f"{where}[{k}]"
            i = self.parse_atom(text, allow_static=True, where=at)
            if i is None:
                name, args = split_name(text)
                if (name, args) not in self.static_true:
                    raise AcpError(f"{render(name, args)} is a static fact that is false in this problem and no "
                                   "action can make it true", at, "static facts always come from the problem")
                continue
            state |= 1 << i
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

    @functools.cached_property
    def approx_bytes(self) -> int:
        """Rough memory held by this task and its engines once built (for caches that budget
        bytes, not entries): operators carry atom bitsets, so their size grows with the atoms."""
        return int(1.6 * (len(self.operators) * (600 + len(self.atoms) // 4) + len(self.atoms) * 300)
                   + len(self.domain_text) + len(self.problem_text))

    def action_list(self, actions) -> list[str]:
        """Names of action ids, in order (how plans leave the library)."""
        return [self.action_names[a] for a in actions]

    def problem_for(self, state: int, first_actions=None) -> str:
        """PDDL problem text with `state` (plus the static facts) as its initial state. With
        `first_actions` (action ids), for the domain of `gated_domain_text`: only those may come first."""
        from .pddl.writer import allowed_predicate, write_problem
        facts = set(self.static_true) | {self.atoms[i] for i in bits(state)}
        for a in first_actions or ():
            schema, args = split_name(self.action_names[a])
            facts.add((allowed_predicate(schema), args))
        return write_problem(self.problem, self.domain.name, facts)

    @functools.cached_property
    def written_domain_text(self) -> str:
        """The domain as our parser read it, written back for outside planners: costs dropped (plan
        length is the cost) and only what acptools understood, so their translators see our task."""
        from .pddl.writer import write_domain
        return write_domain(self.domain)

    @functools.cached_property
    def gated_domain_text(self) -> str:
        """The domain compiled so that a plan may start only with an allowed ground action."""
        from .pddl.writer import write_domain
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
        return any(state & p == p and not state & n for p, n in self.goal)

    def applicable_ops(self, state: int) -> list[Operator]:
        return [op for op in self.operators if state & op.pre == op.pre and not state & op.neg]

    def applicable(self, state: int) -> list[int]:
        """Ids of the ground actions applicable in `state`, sorted by name."""
        ids = {op.action for op in self.applicable_ops(state)}
        return sorted(ids, key=self.action_names.__getitem__)

    def op_for(self, action: int, state: int) -> Operator | None:
        for op in self.ops_of_action[action]:
            if state & op.pre == op.pre and not state & op.neg:
                return op
        return None

    def unsatisfied(self, action: int, state: int) -> Unsatisfied:
        """The smallest reason among the action's precondition disjuncts."""
        ops = self.ops_of_action[action]
        if not ops:
            return Unsatisfied(("static preconditions that are false in this problem",), ())
        best = min(ops, key=lambda op: bin(op.pre & ~state).count("1") + bin(op.neg & state).count("1"))
        return Unsatisfied(tuple(self.names(best.pre & ~state)), tuple(self.names(best.neg & state)))

    def apply_op(self, op: Operator, state: int) -> int:
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
