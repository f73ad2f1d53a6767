"""Conditional effects rewritten into the plainest equivalent form, operator by operator.

A ground operator keeps the successor it gives in every state (adds win over deletes, conditions
read in the old state, as in `GroundedTask.apply_op`), but its conditions shrink:
  * a condition literal the precondition implies is dropped; a condition it contradicts never fires;
  * deleting x "when x holds" is deleting x: where x is false the delete changes nothing;
    deleting x "when x is false" is nothing at all;
  * adding x "when x is false" is adding x, and adding x "when x holds" is nothing, provided the
    operator can never delete x (else the add would undo that delete);
  * an effect the unconditional ones already give is dropped, and one left with no condition
    joins them.
PDDL writes "whatever value it had before, delete it" as `(forall (?v) (when (p ?v) (not (p ?v))))`
(schedule's surfaces and colours): such operators become plain, so Fast Downward runs A*/LM-cut
on them instead of h^max, as its own translator's simplification of effect conditions allows.
"""

from __future__ import annotations

from .bitset import bits


def simplify(pre: int, neg: int, add: int, dele: int, conds: tuple) -> tuple[int, int, tuple]:
    """(add, dele, conds) of an operator with precondition (pre, neg): the same transitions with
    as few and as small conditions as these rules allow; conds with one condition merged."""
    if not conds:
        return add, dele, conds
    deletable = dele
    for _, _, _, cd in conds:
        deletable |= cd
    merged: dict[tuple[int, int], list[int]] = {}
    for cp, cn, ca, cd in conds:
        if cp & neg or cn & pre or cp & cn:
            continue  # the condition can never hold
        cp &= ~pre
        cn &= ~neg
        for x in bits(ca & ~add):  # conditional adds the plain ones do not give
            bit = 1 << x
            if not bit & deletable:
                if bit & cp:
                    continue  # adds x where x holds and nothing deletes it
                _put(merged, cp, cn & ~bit, bit, 0)
            else:
                _put(merged, cp, cn, bit, 0)
        for x in bits(cd & ~dele & ~add):  # conditional deletes not given, and not undone, by the plain effects
            bit = 1 << x
            if bit & cn:
                continue  # deletes x where x is already false
            _put(merged, cp & ~bit, cn, 0, bit)
    out = []
    for (cp, cn), (ca, cd) in merged.items():
        if cp or cn:
            out.append((cp, cn, ca, cd))
        else:
            add |= ca
            dele |= cd
    return add, dele, tuple(out)


def _put(merged: dict, cp: int, cn: int, add: int, dele: int) -> None:
    entry = merged.setdefault((cp, cn), [0, 0])
    entry[0] |= add
    entry[1] |= dele
