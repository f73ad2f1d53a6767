"""An independent oracle for tests: unified-planning parses the PDDL and its simulator applies
actions; everything else is brute force over explicit states. Derived predicates are evaluated by
tests/support/derived.py after every step. Shares no code with acptools."""

from __future__ import annotations

import functools
from collections import deque
from itertools import product

from unified_planning.io import PDDLReader
from unified_planning.model.state import UPState
from unified_planning.shortcuts import get_environment

from tests.support.data import records
from tests.support.derived import WRITER, DerivedRules
from tests.support.up_engines import up_simulator

get_environment().credits_stream = None
get_environment().error_used_name = False

MAX_STATES = 50_000


def _name(fnode) -> str:
    if fnode.is_fluent_exp():
        args = [str(a).lower() for a in fnode.args]
        return "(" + " ".join([fnode.fluent().name.lower()] + args) + ")"
    raise ValueError(fnode)


class Oracle:
    def __init__(self, domain_text: str, problem_text: str):
        self.rules = DerivedRules(domain_text)
        self.problem = PDDLReader().parse_problem_string(self.rules.domain_text, problem_text)
        self.sim = up_simulator(self.problem)
        self.fluents = {_name(f): f for f in self.problem.initial_values}
        em = get_environment().expression_manager
        self.true, self.false = em.TRUE(), em.FALSE()
        self.derived = frozenset(n for n in self.fluents if n.strip("()").split()[0] in self.rules.names)
        self._objects: dict[str, list[str]] = {}

    def objects_of(self, type_name: str) -> list[str]:
        """Object names of a type, subtypes included ('object': all)."""
        hit = self._objects.get(type_name)
        if hit is None:
            objs = self.problem.all_objects
            if type_name != "object":
                t = next(u for u in self.problem.user_types if u.name.lower() == type_name)
                objs = [o for o in objs if o.type.is_compatible(t)]
            hit = self._objects[type_name] = sorted(o.name.lower() for o in objs)
        return hit

    def close(self, atoms) -> frozenset[str]:
        """The atoms with the derived ones recomputed (as they are without axioms)."""
        return self.rules.close(frozenset(atoms), self.objects_of) if self.rules.names else frozenset(atoms)

    def fluent_atoms(self) -> frozenset[str]:
        """Every ground atom of a predicate some action changes (unified-planning's grounding)."""
        static = self.problem.get_static_fluents()
        return frozenset(n for n, f in self.fluents.items() if f.fluent() not in static)  # derived ones included

    def ground_actions(self) -> frozenset[str]:
        """Every type-correct grounding of every action schema, by brute force over the objects."""
        objects = self.problem.all_objects
        out = set()
        for a in self.problem.actions:
            if a.name.lower() == WRITER:
                continue
            domains = [[o.name.lower() for o in objects if o.type.is_compatible(p.type)] for p in a.parameters]
            out.update("(" + " ".join([a.name.lower(), *combo]) + ")" for combo in product(*domains))
        return frozenset(out)

    def state(self, atoms) -> UPState:
        atoms = self.close(atoms)
        return UPState({f: (self.true if n in atoms else self.false) for n, f in self.fluents.items()}, self.problem)

    def init_atoms(self) -> frozenset[str]:
        return self.close(self.atoms(self.sim.get_initial_state()))

    def atoms(self, st: UPState) -> frozenset[str]:
        return frozenset(n for n, f in self.fluents.items() if st.get_value(f).bool_constant_value())

    def moves(self, st: UPState):
        for action, params in self.sim.get_applicable_actions(st):
            name = "(" + " ".join([action.name.lower()] + [str(p).lower() for p in params]) + ")"
            yield name, self._derive(self.sim.apply(st, action, params))

    def _derive(self, st: UPState) -> UPState:
        return self.state(self.atoms(st)) if self.rules.names else st

    def apply(self, st: UPState, name: str) -> UPState | None:
        """The state after one named action, or None if it is not applicable (without listing every
        applicable action first: on large ADL tasks that takes the simulator many seconds)."""
        parts = name.strip("() ").lower().split()
        action = next((a for a in self.problem.actions if a.name.lower() == parts[0]), None)
        if action is None:
            return None
        objects = {o.name.lower(): o for o in self.problem.all_objects}
        params = [objects[p] for p in parts[1:]]
        if not self.sim.is_applicable(st, action, params):
            return None
        return self._derive(self.sim.apply(st, action, params))

    def applicable(self, atoms) -> list[str]:
        return sorted({n for n, _ in self.moves(self.state(atoms))})

    def successor(self, atoms, action: str) -> frozenset[str] | None:
        for n, t in self.moves(self.state(atoms)):
            if n == action:
                return self.atoms(t)
        return None

    def is_goal(self, atoms) -> bool:
        return self.sim.is_goal(self.state(atoms))

    def graph(self, atoms, forbidden: str | None = None):
        """Explicit reachable graph {state atoms: [(action, next atoms)]}, never entering a state
        that holds `forbidden`."""
        start = self.close(atoms)
        edges: dict[frozenset, list] = {}
        queue = deque([start])
        edges[start] = None
        while queue:
            s = queue.popleft()
            out = []
            for n, t in self.moves(self.state(s)):
                ta = self.atoms(t)
                if forbidden is not None and forbidden in ta:
                    continue
                out.append((n, ta))
                if ta not in edges:
                    edges[ta] = None
                    queue.append(ta)
                    if len(edges) > MAX_STATES:
                        raise RuntimeError("state space too large for the oracle")
            edges[s] = out
        return edges

    def graph_from(self, atoms, around: dict | None = None) -> dict:
        """`graph(atoms)`, read off `around` (a graph this oracle computed, without `forbidden`) when
        the state is one of its nodes: the part of it reachable from there, with no new moves."""
        start = self.close(atoms)
        if around is None or start not in around:
            return self.graph(atoms)
        part = {start: around[start]}
        queue = deque([start])
        while queue:
            for _, t in around[queue.popleft()]:
                if t not in part:
                    part[t] = around[t]
                    queue.append(t)
        return part

    def distances(self, atoms, forbidden: str | None = None) -> dict[frozenset, int]:
        """h* of every reachable state (absent: goal unreachable), by backward BFS on the graph."""
        edges = self.graph(atoms, forbidden)
        back: dict[frozenset, list] = {s: [] for s in edges}
        for s, out in edges.items():
            for _, t in out:
                back[t].append(s)
        dist = {s: 0 for s in edges if self.is_goal(s)}
        queue = deque(dist)
        while queue:
            t = queue.popleft()
            for s in back[t]:
                if s not in dist:
                    dist[s] = dist[t] + 1
                    queue.append(s)
        return dist

    @staticmethod
    def goal_reachable_avoiding(graph, goals: set, init, atom: str) -> bool:
        """Is a goal state reachable from init through states that never hold `atom`?"""
        if atom in init:
            return False
        seen, queue = {init}, deque([init])
        while queue:
            s = queue.popleft()
            if s in goals:
                return True
            for _, t in graph[s]:
                if atom not in t and t not in seen:
                    seen.add(t)
                    queue.append(t)
        return False

    def path_to_a_dead_end(self) -> list[str]:
        """The first (breadth-first) action sequence from init whose last step enters a state from which
        no path reaches the goal (an AssertionError when the task has no dead end)."""
        init = self.init_atoms()
        graph, dist = self.graph(init), self.distances(init)
        paths, queue = {init: []}, [init]
        for s in queue:
            for a, t in graph[s]:
                if s in dist and t not in dist:
                    return paths[s] + [a]
                if t not in paths:
                    paths[t] = paths[s] + [a]
                    queue.append(t)
        raise AssertionError("no dead end in the task")

    def run(self, atoms, plan: list[str]) -> frozenset[str] | None:
        """Replay a plan; None if some action is not applicable."""
        s = self.close(atoms)
        for a in plan:
            s = self.successor(s, a.lower())
            if s is None:
                return None
        return s


@functools.cache
def solved_nexta(k: int, split: str = "dev") -> tuple[Oracle, dict]:
    """The oracle of the k-th bundled nexta record's task and the h* of every state that reaches the goal
    (computed once per process)."""
    r = records(split, "nexta")[k]
    oracle = Oracle(r["PDDL_domain"], r["PDDL_problem"])
    return oracle, oracle.distances(oracle.init_atoms())
