"""The grounded task: fluent atoms and ground actions as small ints, states as int bitsets.

A state is an `int` whose bit i says fluent atom i is true (closed world; static facts live in the
task, not in states). This keeps hashing, copying and subset tests to single big-int operations.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import threading
from dataclasses import dataclass
from pathlib import Path

from .errors import AcpError, UnknownNameError
from .grounding import MAX_GROUND_OPERATORS, Grounder, Operator, TypeTable, fluent_predicates, ground_schema
from .names import did_you_mean, render, split_name
from .pddl import parse_domain, parse_problem


def bits(mask: int):
    """Indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True)
class Unsatisfied:
    """Why an action cannot be applied: atoms that must hold but do not, and ones that must not but do."""

    missing: tuple[str, ...]
    present: tuple[str, ...]

    def describe(self) -> list[str]:
        return list(self.missing) + [f"(not {a})" for a in self.present]


class Task:
    """A PDDL task grounded once; every question about it reuses this object."""

    def __init__(self, domain_text: str, problem_text: str, max_operators: int = MAX_GROUND_OPERATORS):
        self.domain_text, self.problem_text = domain_text, problem_text
        self.domain = parse_domain(domain_text)
        self.problem = parse_problem(problem_text, self.domain)
        self.id = hashlib.sha256(f"{domain_text}\0{problem_text}".encode()).hexdigest()[:16]
        self.types = TypeTable(self.domain, self.problem)
        self.fluents = fluent_predicates(self.domain)
        g = Grounder(self.domain, self.problem, self.types, self.fluents)
        self.static_true = g.static_true
        self._lock = threading.Lock()
        self.action_names: list[str] = []
        self.action_index: dict[str, int] = {}
        self.operators: list[Operator] = []
        for schema in self.domain.actions.values():
            for ops in ground_schema(schema, g, self._new_action):
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

    @classmethod
    def from_files(cls, domain_path: str | Path, problem_path: str | Path) -> "Task":
        return cls(Path(domain_path).read_text(), Path(problem_path).read_text())

    # ---- names ------------------------------------------------------------------------------
    def _new_action(self, schema: str, args: tuple[str, ...]) -> int:
        name = render(schema, args)
        i = self.action_index.get(name)
        if i is None:
            i = self.action_index[name] = len(self.action_names)
            self.action_names.append(name)
        return i

    def _check_args(self, kind: str, name: str, params, args, text: str) -> None:
        if len(args) != len(params):
            shape = render(name, [v for v, _ in params])
            raise UnknownNameError(f"{kind} {name!r} takes {len(params)} arguments, got {len(args)} in {text!r}",
                                   suggestion=f"write it as {shape}")
        for (var, types), obj in zip(params, args):
            if obj not in self.types.objects:
                raise UnknownNameError(f"unknown object {obj!r} in {text!r}",
                                       suggestion=did_you_mean(obj, self.types.objects) or
                                       f"objects of type {'/'.join(types)}: {', '.join(self.types.of(types)[:8])}")
            if not self.types.fits(obj, types):
                objtype = "/".join(self.types.objects[obj])
                raise UnknownNameError(f"{obj!r} is a {objtype}, but {var} of {name!r} must be a {'/'.join(types)}"
                                       f" in {text!r}", suggestion=f"objects of that type: "
                                       f"{', '.join(self.types.of(types)[:8])}")

    def parse_action(self, text: str) -> int:
        """Id of a ground action (any type-correct instance, even one whose static preconditions fail)."""
        name, args = split_name(text, "action")
        canonical = render(name, args)
        i = self.action_index.get(canonical)
        if i is not None:
            return i
        schema = self.domain.actions.get(name)
        if schema is None:
            raise UnknownNameError(f"unknown action {name!r} in {text!r}",
                                   suggestion=did_you_mean(name, self.domain.actions) or
                                   f"actions: {', '.join(sorted(self.domain.actions))}")
        self._check_args("action", name, schema.params, args, text)
        with self._lock:  # a type-correct action ruled out by static facts: known, never applicable
            i = self.action_index.get(canonical)
            if i is None:
                i = self.action_index[canonical] = len(self.action_names)
                self.action_names.append(canonical)
                self.ops_of_action.append([])
        return i

    def parse_atom(self, text: str, allow_static: bool = False) -> int | None:
        """Id of a proposition (type-correct fluent atom). Static atoms give None when allowed."""
        name, args = split_name(text, "atom")
        i = self.atom_name_index.get(render(name, args))
        if i is not None:
            return i
        pred = self.domain.predicates.get(name)
        if pred is None:
            raise UnknownNameError(f"unknown predicate {name!r} in {text!r}",
                                   suggestion=did_you_mean(name, self.domain.predicates) or
                                   f"predicates: {', '.join(sorted(self.domain.predicates))}")
        self._check_args("predicate", name, pred.params, args, text)
        if name not in self.fluents:
            if allow_static:
                return None
            raise UnknownNameError(f"{render(name, args)} is a static fact (no action changes {name!r}), "
                                   "not a proposition of the task", suggestion="ask about a fluent predicate: " +
                                   ", ".join(sorted(self.fluents)))
        raise UnknownNameError(f"{text!r} is not a proposition of the task")  # unreachable for typed atoms

    def parse_state(self, atoms) -> int:
        """A state from atom strings (closed world: unlisted fluent atoms are false)."""
        if isinstance(atoms, str):
            atoms = split_atoms(atoms)
        state = 0
        for text in atoms:
            i = self.parse_atom(text, allow_static=True)
            if i is None:
                name, args = split_name(text)
                if (name, args) not in self.static_true:
                    raise AcpError(f"{render(name, args)} is a static fact that is false in this problem and no "
                                   "action can make it true", "state", "static facts always come from the problem")
                continue
            state |= 1 << i
        return state

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

    def state_atoms(self, state: int) -> list[str]:
        return sorted(self.atom_names[i] for i in bits(state))

    def names(self, mask: int) -> list[str]:
        return sorted(self.atom_names[i] for i in bits(mask))

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


def split_atoms(text: str) -> list[str]:
    import re
    return re.findall(r"\([^()]*\)", text)


def load_task(domain, problem, max_operators: int = MAX_GROUND_OPERATORS) -> Task:
    """Load from PDDL text, or from files when given `pathlib.Path` objects (strings are always text,
    so a server can never be tricked into reading a file)."""
    if isinstance(domain, Path):
        domain = domain.read_text()
    if isinstance(problem, Path):
        problem = problem.read_text()
    return Task(domain, problem, max_operators)
