"""h^2 reachability: which *pairs* of atoms can ever hold together (Haslum & Geffner's h^m, m=2).

Sound over-approximation, strictly stronger than the delete relaxation: it proves, e.g., that a
block can never be on itself because holding it and it being clear never hold together. Negative
preconditions are ignored (literal_h2.py compiles them in) and conditional effects are folded in
optimistically (all their adds, none of their deletes but "if p, delete p", which deletes p in any
state), which only makes more pairs reachable, so "unreachable" stays a proof.
"""

from __future__ import annotations

from ..ground.bitset import bit_list
from ..ground.grounded import bits
from ..ground.grounding import Operator


def h2_pairs(num_atoms: int, operators: list[Operator], state: int, budget=None) -> list[int]:
    """R[p] = mask of atoms q such that {p, q} may hold together (p itself iff p is reachable).
    With a `budget`, checked per operator: raises BudgetExceeded when it is spent."""
    reach = [0] * num_atoms
    for p in bits(state):
        reach[p] = state
    ops = []
    for op in operators:
        add = op.add
        for _, _, ca, _ in op.conds:
            add |= ca
        ops.append((list(bits(op.pre)), op.pre, add, list(bits(add)), surely_deleted(op) & ~add))
    changed = True
    last_keep = [0] * len(ops)  # what each operator kept when it last fired (it only grows)
    fired = [False] * len(ops)
    while changed:
        changed = False
        for i, (pre_list, pre, add, add_list, dele) in enumerate(ops):
            if budget is not None:
                budget.check()
            # applicable in the h^2 sense: every pair of preconditions may hold together
            compatible = -1
            ok = True
            for p in pre_list:
                r = reach[p]
                if r & pre != pre:
                    ok = False
                    break
                compatible &= r
            if not ok:
                continue
            if not pre_list:
                compatible = 0
                for p in range(num_atoms):
                    if reach[p] >> p & 1:
                        compatible |= 1 << p
            # atoms that may hold with all preconditions and survive the deletes stay true with the adds
            keep = compatible & ~dele
            if fired[i] and keep == last_keep[i]:
                continue  # same effect as last time: its pairs are in already (reach only grows)
            fresh = keep & ~last_keep[i]
            fired[i] = True
            last_keep[i] = keep
            new_mask = add | keep
            for p in add_list:
                if reach[p] | new_mask != reach[p]:
                    reach[p] |= new_mask
                    changed = True
            # keep only grows, and atoms kept before already hold the adds: only new ones need them
            for q in bit_list(fresh):
                if reach[q] & add != add:
                    reach[q] |= add
                    changed = True
    return reach


def surely_deleted(op: Operator) -> int:
    """The atoms the operator deletes whatever the state: its deletes, and each atom deleted by a
    conditional effect whose only condition is that atom (\"if p, delete p\": p is false after it
    either way), unless that effect adds it back."""
    dele = op.dele
    for cp, cn, ca, cd in op.conds:
        if not cn and cp & cd & ~ca and cp & (cp - 1) == 0:
            dele |= cp
    return dele


def pair_reachable(reach: list[int], mask: int) -> bool:
    """May all atoms of `mask` hold together, as far as h^2 can tell?"""
    return all(reach[p] & mask == mask for p in bits(mask))
