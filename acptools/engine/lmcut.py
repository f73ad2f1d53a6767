"""LM-cut (Helmert and Domshlak 2009): an admissible lower bound on h* that dominates h^max, used to
prove actions non-optimal without a search.

Each round computes h^max with the current costs and gives every relaxed operator its costliest
precondition (the last one Dijkstra settles). Those choices form the justification graph; the
operators leading from what the state reaches into the zone that reaches the goal at cost 0 are a
disjunctive action landmark. Its cheapest cost is added to the bound and taken off each of its
operators, until the goal costs 0. Every prefix of the sum is itself a lower bound, so a caller
that only needs to know whether h* reaches some value stops there.

Relaxed operators come from `Relaxation`, axioms at cost 0 (every real plan is then a relaxed plan
of the same cost). Conditional effects split into separate cost-1 operators would count one real
action twice, so they are compiled away first (ground/conditional.py: the same transitions);
where that grows too much there is no LM-cut (`LmCut.of` returns None).
"""

from __future__ import annotations

from ..errors import BudgetExceeded
from ..ground.conditional import compile_away
from ..ground.grounded import bits
from ..ground.grounding import Operator
from .relaxed import Relaxation

INF = float("inf")


class LmCut:
    """LM-cut over one relaxation (without conditional effects); `value` is the bound."""

    def __init__(self, relax: Relaxation):
        assert not relax.conditional, "conditional effects count twice in LM-cut: compile them away"
        self.relax = relax
        self.num_atoms = relax.num_atoms
        self.achievers: list[list[int]] = [[] for _ in range(relax.num_atoms + 2)]
        for i, adds in enumerate(relax.adds):
            for a in adds:
                self.achievers[a].append(i)

    @classmethod
    def of(cls, num_atoms: int, operators: list[Operator], axioms=()) -> LmCut | None:
        """LM-cut for `operators` (conditional effects compiled away), or None when compiling them
        would grow the operators too much."""
        if any(op.conds for op in operators):
            compiled = compile_away(operators)
            if compiled is None:
                return None
            operators = compiled[0]
        return cls(Relaxation(num_atoms, operators, axioms))

    def value(self, state: int, goal: list[tuple[int, int]], bound: float = INF, budget=None) -> float:
        """LM-cut of a DNF goal from `state` (inf when the goal is relaxed-unreachable), or a lower
        bound of at least `bound` once the sum reaches it. With a `budget`, checked once per
        round: when it runs out, the sum so far (a lower bound too)."""
        relax = self.relax
        goal_atom, init_atom = self.num_atoms, self.num_atoms + 1
        pres = relax.pres + [list(bits(pos)) for pos, _ in goal]  # one cost-0 operator per disjunct
        adds = relax.adds + [[goal_atom]] * len(goal)
        costs = relax.costs + [0] * len(goal)
        achievers = self.achievers[:goal_atom] + [list(range(len(relax.pres), len(pres))), []]
        by_pre = relax.by_pre + [[], []]
        for i in range(len(relax.pres), len(pres)):
            for p in pres[i]:
                by_pre[p] = by_pre[p] + [i]
            if not pres[i]:
                return 0
        by_pre[init_atom] = relax.no_pre
        start = list(bits(state))
        total = 0
        while total < bound:
            if budget is not None:
                try:
                    budget.check()
                except BudgetExceeded:
                    return total
            h, pcf = self._hmax(start, init_atom, pres, adds, costs, by_pre)
            if h[goal_atom] == INF:
                return INF
            if h[goal_atom] == 0:
                return total
            if total == 0 and h[goal_atom] >= bound:  # h^max alone decides (it is admissible too)
                return h[goal_atom]
            cut = self._cut(start, init_atom, goal_atom, pcf, adds, costs, achievers)
            if not cut:  # cannot happen while the goal costs more than 0; what is summed stays a bound
                return total
            step = min(costs[i] for i in cut)
            total += step
            for i in cut:
                costs[i] -= step
        return total

    def _hmax(self, start, init_atom, pres, adds, costs, by_pre):
        """h^max of every atom (a bucket queue: costs are small integers) and each operator's
        costliest precondition (-1: not relaxed-applicable)."""
        h = [INF] * (init_atom + 1)
        missing = [len(p) or 1 for p in pres]  # operators without preconditions wait for init_atom
        pcf = [-1] * len(pres)
        buckets = [start + [init_atom]]
        for a in buckets[0]:
            h[a] = 0
        level = 0
        while level < len(buckets):
            frontier = buckets[level]
            k = 0
            while k < len(frontier):  # cost-0 operators append to the level being read
                a = frontier[k]
                k += 1
                if h[a] < level:
                    continue
                for i in by_pre[a]:
                    missing[i] -= 1
                    if missing[i]:
                        continue
                    pcf[i] = a
                    c = level + costs[i]
                    for b in adds[i]:
                        if c < h[b]:
                            h[b] = c
                            while len(buckets) <= c:
                                buckets.append([])
                            buckets[c].append(b)
            level += 1
        return h, pcf

    @staticmethod
    def _cut(start, init_atom, goal_atom, pcf, adds, costs, achievers) -> list[int]:
        """The operators whose costliest precondition the state reaches in the justification graph
        without entering the goal zone (atoms reaching the goal through cost-0 operators), and that
        add an atom of the goal zone."""
        zone = {goal_atom}
        stack = [goal_atom]
        while stack:
            for i in achievers[stack.pop()]:
                p = pcf[i]
                if p >= 0 and costs[i] == 0 and p not in zone:
                    zone.add(p)
                    stack.append(p)
        from_pcf: dict[int, list[int]] = {}
        for i, p in enumerate(pcf):
            if p >= 0:
                from_pcf.setdefault(p, []).append(i)
        seen = set(start)
        seen.add(init_atom)
        stack = list(seen)
        cut = []
        while stack:
            for i in from_pcf.get(stack.pop(), ()):
                crosses = False
                for b in adds[i]:
                    if b in zone:
                        crosses = True
                    elif b not in seen:
                        seen.add(b)
                        stack.append(b)
                if crosses:
                    cut.append(i)
        return cut
