"""Delete relaxation: cheap, sound over-approximations of what can ever become true.

If an atom is not relaxed-reachable from a state it is unreachable (negative preconditions are
treated as satisfiable, which only over-approximates). The same fixpoint with weights gives h^max
(admissible, for A*) and h^add (informative, for greedy search). Axioms (derived predicates) are
relaxed actions of cost 0 with their negated body atoms dropped, so all this stays sound with them.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ..ground.grounded import bits
from ..ground.grounding import Operator

HMAX_CHECK_EVERY = 1024  # atoms settled between budget checks of a budgeted h^max


class Relaxation:
    """Relaxed operators (conditional effects become extra operators), indexed by precondition."""

    def __init__(self, num_atoms: int, operators: list[Operator], axioms: Sequence[tuple[int, int]] = ()):
        pres: list[list[int]] = []
        adds: list[int] = []
        self.entry_of_op: list[int] = []  # each operator's own relaxed operator (its conditional effects follow)
        for op in operators:
            self.entry_of_op.append(len(pres))
            pres.append(list(bits(op.pre)))
            adds.append(op.add)
            for cp, _, ca, _ in op.conds:
                if ca:
                    pres.append(list(bits(op.pre | cp)))
                    adds.append(ca)
        self.conditional = len(pres) > len(operators)  # conditional effects became operators of their own
        self.costs = [1] * len(pres) + [0] * len(axioms)  # (axioms last: entry_of_op is unchanged)
        for pos, head in axioms:
            pres.append(list(bits(pos)))
            adds.append(head)
        self.pres = pres
        self.adds = [list(bits(a)) for a in adds]
        self.add_masks = adds
        self.by_pre: list[list[int]] = [[] for _ in range(num_atoms)]
        for i, pre in enumerate(pres):
            for p in pre:
                self.by_pre[p].append(i)
        self.no_pre = [i for i, pre in enumerate(pres) if not pre]
        self.pre_len = [len(p) for p in pres]
        self.num_atoms = num_atoms

    def reachable(self, state: int, budget=None, banned: int = 0) -> tuple[int, list[bool]]:
        """(relaxed-reachable atom mask, which relaxed ops become applicable), where no op adding an
        atom of `banned` may fire. With a `budget`, checked once per layer: raises BudgetExceeded
        when spent."""
        n = len(self.pres)
        missing = [len(p) for p in self.pres]
        fired = [False] * n
        reached = state
        queue = list(bits(state))
        ready = [i for i in self.no_pre]
        adds, by_pre = self.adds, self.by_pre
        while True:
            for i in ready:
                if fired[i] or self.add_masks[i] & banned:
                    continue
                fired[i] = True
                for a in adds[i]:
                    bit = 1 << a
                    if not reached & bit:
                        reached |= bit
                        queue.append(a)
            if not queue:
                break
            if budget is not None:
                budget.check()
            ready = []
            for a in queue:
                for i in by_pre[a]:
                    missing[i] -= 1
                    if missing[i] == 0:
                        ready.append(i)
            queue = []
        return reached, fired

    def landmarks(self, state: int, goal: list[tuple[int, int]], budget=None) -> int | None:
        """Atoms every relaxed plan from `state` to `goal` makes true (Zhu and Givan's label
        propagation: an atom's label is itself plus what all its achievers need). Every real plan is
        a relaxed plan, so each such atom is a landmark of the real task. One pass replaces a
        restricted relaxation per candidate. None when the goal is relaxed-unreachable."""
        reached, fired = self.reachable(state, budget)
        every = (1 << self.num_atoms) - 1
        label = [every] * self.num_atoms
        for a in bits(state):
            label[a] = 1 << a
        ops = [i for i, f in enumerate(fired) if f]
        changed = True
        while changed:
            changed = False
            if budget is not None:
                budget.check()
            for i in ops:
                need = 0
                for p in self.pres[i]:
                    need |= label[p]
                for a in self.adds[i]:
                    new = label[a] & (need | 1 << a)
                    if new != label[a]:
                        label[a] = new
                        changed = True
        found = None
        for p, _ in goal:
            if p & reached != p:
                continue  # a disjunct no relaxed plan reaches constrains nothing
            need = 0
            for a in bits(p):
                need |= label[a]
            found = need if found is None else found & need
        return found

    def hmax(self, state: int, goal: list[tuple[int, int]], combine=max, budget=None) -> float:
        """h^max (combine=max, admissible and consistent) or h^add (combine=sum) of a DNF goal, the
        cheapest disjunct; inf if the goal is relaxed-unreachable. Dijkstra that stops as soon as one
        disjunct is complete (exact for h^max, a good estimate for h^add). With a `budget` (one
        evaluation on a big task takes a tenth of a second), checked every HMAX_CHECK_EVERY atoms:
        raises BudgetExceeded when spent."""
        INF = float("inf")
        additive = combine is not max
        n = len(self.pre_len)
        cost = [INF] * self.num_atoms
        missing = list(self.pre_len)
        opcost = [0] * n
        waiting: dict[int, list[int]] = {}
        left = []
        for j, (p, _) in enumerate(goal):
            atoms = list(bits(p))
            if not atoms:
                return 0
            left.append(len(atoms))
            for a in atoms:
                waiting.setdefault(a, []).append(j)
        heap = [(0, a) for a in bits(state)]
        for a in bits(state):
            cost[a] = 0
        costs = self.costs
        for i in self.no_pre:
            for a in self.adds[i]:
                if cost[a] > costs[i]:
                    cost[a] = costs[i]
                    heap.append((costs[i], a))
        heapq.heapify(heap)
        done = bytearray(self.num_atoms)
        best = INF
        by_pre, adds = self.by_pre, self.adds
        settled = 0
        while heap:
            c, a = heapq.heappop(heap)
            if done[a]:
                continue
            done[a] = 1
            if budget is not None:
                settled += 1
                if not settled % HMAX_CHECK_EVERY:
                    budget.check()
            js = waiting.get(a)
            if js:
                for j in js:
                    left[j] -= 1
                    if left[j] == 0:
                        atoms = list(bits(goal[j][0]))
                        v = sum(cost[x] for x in atoms) if additive else c
                        if not additive:
                            return v
                        best = min(best, v)
                if best < INF:
                    return best
            for i in by_pre[a]:
                oc = opcost[i] + c if additive else (c if c > opcost[i] else opcost[i])
                opcost[i] = oc
                missing[i] -= 1
                if missing[i] == 0:
                    nc = oc + costs[i]
                    for b in adds[i]:
                        if cost[b] > nc:
                            cost[b] = nc
                            heapq.heappush(heap, (nc, b))
        return best
