"""h^2 reachability: which *pairs* of atoms can ever hold together (Haslum & Geffner's h^m, m=2).

Sound over-approximation, strictly stronger than the delete relaxation: it proves, e.g., that a
block can never be on itself because holding it and it being clear never hold together. Negative
preconditions are ignored (literal_h2.py compiles them in) and conditional effects are folded in
optimistically (all their adds, none of their deletes but "if p, delete p", which deletes p in any
state), which only makes more pairs reachable, so "unreachable" stays a proof.

The fixpoint sweeps the operators; an operator that applies (its preconditions pairwise reachable)
pairs each atom it adds with its other adds and with every atom that may hold beside all its
preconditions and that it does not delete. Those pairs go into the rows of the added atoms only,
and after each sweep the matrix is made symmetric at once (numpy, over the reached atoms alone):
writing them into the row of every kept atom as well cost one Python step per atom and operator,
~10x the whole computation on tasks with thousands of atoms.
"""

from __future__ import annotations

import numpy as np

from ..ground.grounded import bits
from ..ground.grounding import Operator

BLOCK = 2048  # rows per slice of the symmetric completion (bounds its memory: BLOCK x atoms bytes)


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
    last_keep = [0] * len(ops)  # what each operator kept when it last fired (it only grows)
    fired = [False] * len(ops)
    while True:
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
                compatible = _reached(reach)
            # atoms that may hold with all preconditions and survive the deletes stay true with the adds
            keep = compatible & ~dele
            if fired[i] and keep == last_keep[i]:
                continue  # same effect as last time: its pairs are in already (reach only grows)
            fired[i] = True
            last_keep[i] = keep
            new_mask = add | keep
            for p in add_list:
                if reach[p] | new_mask != reach[p]:
                    reach[p] |= new_mask
                    changed = True
        if not changed:
            return reach
        _symmetrize(reach)


def _reached(reach: list[int]) -> int:
    """The atoms that may hold at all (the diagonal)."""
    out = 0
    for p, r in enumerate(reach):
        if r >> p & 1:
            out |= 1 << p
    return out


def _symmetrize(reach: list[int]) -> None:
    """reach[q] |= {p : q in reach[p]} for every atom q. Every pair is made of reached atoms (an
    atom enters a row only with its own row set), so the bit matrix is taken over those rows."""
    n = len(reach)
    rows_of = [p for p in range(n) if reach[p] >> p & 1]
    if not rows_of:
        return
    width = (n + 7) // 8
    where = np.array(rows_of, dtype=np.intp)
    packed = np.frombuffer(b"".join(reach[p].to_bytes(width, "little") for p in rows_of), dtype=np.uint8).reshape(
        len(rows_of), width
    )
    for lo in range(0, len(rows_of), BLOCK):
        hi = min(len(rows_of), lo + BLOCK)
        rows = np.unpackbits(packed[lo:hi], axis=1, count=n, bitorder="little")
        # bit q of every reached row p, for the atoms q of this slice: the transpose of the slice
        first = rows_of[lo] // 8
        span = np.unpackbits(packed[:, first : rows_of[hi - 1] // 8 + 1], axis=1, bitorder="little")
        mirrored = np.zeros_like(rows)
        mirrored[:, where] = span[:, where[lo:hi] - first * 8].T
        mirrored &= ~rows
        grown = mirrored.any(axis=1)
        if grown.any():
            full = np.packbits(rows | mirrored, axis=1, bitorder="little")
            for j in np.flatnonzero(grown):
                reach[rows_of[lo + j]] = int.from_bytes(full[j].tobytes(), "little")


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
