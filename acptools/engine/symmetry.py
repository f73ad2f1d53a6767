"""Object symmetries: interchangeable objects make many states equivalent for a question.

Two objects are interchangeable when swapping them maps the static facts, the goal (or whatever
target the question has) and the domain constants to themselves; the operators then map to
operators, so symmetric states have the same distance to the target. Searches use `canonical`
only as a duplicate-detection key (states themselves stay real, so plans stay real), which is
sound for any choice of representative and exact when states are canonicalised consistently.
"""

from __future__ import annotations

from ..ground.grounded import GroundedTask, bits


class Symmetry:
    """Classes of interchangeable objects for a task and a set of target masks. `base` (from
    `static_classes`, which depends only on the task) may be passed in to share its cost."""

    def __init__(self, task: GroundedTask, targets: tuple[frozenset[tuple[int, ...]], ...] = (),
                 base: list[list[str]] | None = None):
        self.task = task
        base = static_classes(task) if base is None else base
        classes: list[list[str]] = []
        for cls in base:
            for sub in _split(task, cls, targets):
                if len(sub) > 1:
                    classes.append(sub)
        self.classes = classes
        self.active = bool(classes)
        self.class_of = {o: i for i, c in enumerate(classes) for o in c}
        # per atom: (pattern key, [(object, position)]) for atoms mentioning symmetric objects
        self.patterns: dict[int, tuple] = {}
        for i, (pred, args) in enumerate(task.atoms):
            occ = [(o, k) for k, o in enumerate(args) if o in self.class_of]
            if occ:
                key = (pred,) + tuple(f"#{self.class_of[o]}" if o in self.class_of else o for o in args)
                self.patterns[i] = (key, occ)

    def canonical(self, state: int) -> int:
        """The symmetry key of `state`: its objects of each class renamed into a canonical order (the
        state itself when no symmetry is active)."""
        if not self.active:
            return state
        sigs: dict[str, list] = {}
        patterns = self.patterns
        for i in bits(state):
            p = patterns.get(i)
            if p is not None:
                key, occ = p
                for o, k in occ:
                    sigs.setdefault(o, []).append((key, k))
        perm: dict[str, str] = {}
        for cls in self.classes:
            ranked = sorted(cls, key=lambda o: sorted(sigs.get(o, ())))
            for src, dst in zip(ranked, cls):
                if src != dst:
                    perm[src] = dst
        if not perm:
            return state
        atoms, index = self.task.atoms, self.task.atom_index
        out = 0
        for i in bits(state):
            if i in patterns:
                pred, args = atoms[i]
                i = index[(pred, tuple(perm.get(a, a) for a in args))]
            out |= 1 << i
        return out


def static_classes(task: GroundedTask) -> list[list[str]]:
    """Objects grouped by type, minus domain constants, split by the static facts: a and b stay
    together when swapping them maps every static fact that mentions either to a static fact."""
    by_types: dict[tuple, list[str]] = {}
    for o, types in sorted(task.types.objects.items()):
        if o in task.domain.constants:
            continue
        by_types.setdefault(tuple(sorted(types)), []).append(o)
    statics = task.static_true
    mentions: dict[str, list] = {}
    for fact in statics:
        for o in set(fact[1]):
            mentions.setdefault(o, []).append(fact)

    def swappable(a: str, b: str) -> bool:
        if len(mentions.get(a, ())) != len(mentions.get(b, ())):
            return False
        sw = {a: b, b: a}
        return all((p, tuple(sw.get(x, x) for x in args)) in statics
                   for p, args in mentions.get(a, []) + mentions.get(b, []))

    result = []
    for group in by_types.values():
        result.extend(_partition(group, swappable))
    return result


def _split(task: GroundedTask, cls: list[str], targets) -> list[list[str]]:
    if not targets:
        return [cls]
    if all(len(t) == 1 for t in targets):  # each target one tuple of masks (a conjunctive goal)
        masks = [_MaskIndex(task, m) for t in targets for item in t for m in item]
        return _partition(cls, lambda a, b: all(m.preserved_by_swap(a, b) for m in masks))

    def same(a: str, b: str) -> bool:
        return all(frozenset(tuple(_swap_mask(task, m, a, b) for m in item) for item in t) == t for t in targets)

    return _partition(cls, same)


class _MaskIndex:
    """A set of atoms indexed by the objects they mention, so that whether swapping two objects
    maps the set to itself costs only the atoms that mention them."""

    def __init__(self, task: GroundedTask, mask: int):
        self.task, self.mask = task, mask
        self.mentions: dict[str, list[int]] = {}
        for i in bits(mask):
            for o in set(task.atoms[i][1]):
                self.mentions.setdefault(o, []).append(i)

    def preserved_by_swap(self, a: str, b: str) -> bool:
        ma, mb = self.mentions.get(a, ()), self.mentions.get(b, ())
        if len(ma) != len(mb):
            return False
        sw = {a: b, b: a}
        atoms, index = self.task.atoms, self.task.atom_index
        for i in (*ma, *mb):
            pred, args = atoms[i]
            j = index.get((pred, tuple(sw.get(x, x) for x in args)))
            if j is None or not self.mask >> j & 1:
                return False
        return True


def _partition(objs: list[str], same) -> list[list[str]]:
    """Equivalence classes of 'swapping a and b is a symmetry' (it is an equivalence relation)."""
    classes: list[list[str]] = []
    for o in objs:
        for c in classes:
            if same(c[0], o):
                c.append(o)
                break
        else:
            classes.append([o])
    return classes


def _swap_mask(task: GroundedTask, mask: int, a: str, b: str) -> int:
    sw = {a: b, b: a}
    out = 0
    for i in bits(mask):
        pred, args = task.atoms[i]
        if a in args or b in args:
            j = task.atom_index.get((pred, tuple(sw.get(x, x) for x in args)))
            if j is None:
                return -1  # the swapped atom is not even an atom of the task: no symmetry
            i = j
        out |= 1 << i
    return out


def goal_targets(goal: list[tuple[int, int]], *masks: int) -> tuple[frozenset[tuple[int, ...]], ...]:
    """What a symmetry must preserve: the goal (as a set of disjuncts) and each extra mask."""
    return (frozenset(goal),) + tuple(frozenset([(m,)]) for m in masks if m)
