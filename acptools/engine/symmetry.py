"""Object symmetries: interchangeable objects make many states equivalent for a question.

Two objects are interchangeable when swapping them maps the static facts, the goal (or whatever
target the question has) and the domain constants to themselves; the operators then map to
operators, so symmetric states have the same distance to the target. Searches use `canonical`
only as a duplicate-detection key (states themselves stay real, so plans stay real), which is
sound for any choice of representative and exact when states are canonicalised consistently.
"""

from __future__ import annotations

from ..ground.bitset import bit_list
from ..ground.grounded import GroundedTask, bits
from ..ground.names import render, split_name


class Symmetry:
    """Classes of interchangeable objects for a task and a set of target masks. `base` (from
    `static_classes`, which depends only on the task) may be passed in to share its cost."""

    def __init__(
        self,
        task: GroundedTask,
        targets: tuple[frozenset[tuple[int, ...]], ...] = (),
        base: list[list[str]] | None = None,
    ):
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
        # per atom that mentions symmetric objects: its pattern (the atom with each symmetric
        # object replaced by its class) and the numbers and positions of those objects
        self.objects = [o for c in classes for o in c]
        number = {o: n for n, o in enumerate(self.objects)}
        self.class_numbers = [[number[o] for o in c] for c in classes]
        occurs: dict[int, tuple[tuple, list[tuple[int, int]]]] = {}
        for i, (pred, args) in enumerate(task.atoms):
            occ = [(number[o], k) for k, o in enumerate(args) if o in self.class_of]
            if occ:
                occurs[i] = ((pred,) + tuple(f"#{self.class_of[o]}" if o in self.class_of else o for o in args), occ)
        self.pattern_mask = sum(1 << i for i in occurs)
        # when every such atom mentions one symmetric object, a state is its other atoms plus, per
        # object, the set of patterns it occurs in: the key is that, with each class's sets sorted
        # (an exact orbit key, and no renaming); else objects are renamed by signature rank
        self.one_object = all(len({n for n, _ in occ}) == 1 for _, occ in occurs.values())
        if self.one_object:
            rank = {key: r for r, key in enumerate(sorted({key for key, _ in occurs.values()}))}
            self.single = {i: (occ[0][0], 1 << rank[key]) for i, (key, occ) in occurs.items()}
        else:
            rank = {p: r for r, p in enumerate(sorted({(key, k) for key, occ in occurs.values() for _, k in occ}))}
            self.patterns = {i: tuple((n, rank[(key, k)]) for n, k in occ) for i, (key, occ) in occurs.items()}

    def canonical(self, state: int):
        """The symmetry key of `state` (hashable; equal for states that a renaming of symmetric
        objects maps onto each other, and, with atoms of several symmetric objects, possibly not
        for all of them); the state itself when no symmetry is active."""
        if not self.active:
            return state
        if self.one_object:
            return self._orbit_key(state)
        return self._renamed(state)

    def _orbit_key(self, state: int) -> tuple:
        sigs = self._signatures(state)
        return (state & ~self.pattern_mask,) + tuple(
            tuple(sorted([sigs[n] for n in numbers])) for numbers in self.class_numbers
        )

    def _signatures(self, state: int) -> list:
        """Per symmetric object (by number), what the state says of it: with one symmetric object
        per atom, the set of its atoms' patterns as a bitmask; else the sorted ranks of its
        (pattern, position) pairs."""
        sigs: list = [0] * len(self.objects)
        if self.one_object:
            single = self.single
            for i in bit_list(state & self.pattern_mask):
                n, bit = single[i]
                sigs[n] |= bit
            return sigs
        patterns = self.patterns
        sigs = [[] for _ in self.objects]
        for i in bit_list(state & self.pattern_mask):
            for n, r in patterns[i]:
                sigs[n].append(r)
        for sig in sigs:
            sig.sort()
        return sigs

    def _to_representative(self, state: int) -> dict[str, str]:
        """A renaming that maps `state` to the representative of its key: the objects of each class
        in the order of their signatures."""
        sigs, objects = self._signatures(state), self.objects
        perm: dict[str, str] = {}
        for numbers in self.class_numbers:
            for src, dst in zip(sorted(numbers, key=sigs.__getitem__), numbers):
                if src != dst:
                    perm[objects[src]] = objects[dst]
        return perm

    def _renamed(self, state: int) -> int:
        """`state` with the objects of each class renamed in the order of their signatures."""
        perm = self._to_representative(state)
        if not perm:
            return state
        atoms, index = self.task.atoms, self.task.atom_index
        moved = renamed = 0
        for i in bit_list(state & self.pattern_mask):
            pred, args = atoms[i]
            j = index[(pred, tuple(perm.get(a, a) for a in args))]
            if j != i:
                moved |= 1 << i
                renamed |= 1 << j
        return state & ~moved | renamed

    def renaming(self, a: int, b: int) -> dict[str, str] | None:
        """A renaming of symmetric objects that maps state `a` onto state `b` when they share a key
        (None otherwise)."""
        if self.canonical(a) != self.canonical(b):
            return None
        to_a, to_b = self._to_representative(a), self._to_representative(b)
        from_b = {dst: src for src, dst in to_b.items()}
        return {o: from_b.get(to_a.get(o, o), to_a.get(o, o)) for o in self.objects}

    def carry_plan(self, plan: list[int], a: int, b: int) -> list[int] | None:
        """A plan found for state `a`, renamed into one for the symmetric state `b` (its actions'
        objects renamed as the states' are; None when they share no key)."""
        perm = self.renaming(a, b)
        if perm is None:
            return None
        task = self.task
        out = []
        for action in plan:
            name, args = split_name(task.action_names[action])
            out.append(task.parse_action(render(name, tuple(perm.get(x, x) for x in args))))
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
        return all(
            (p, tuple(sw.get(x, x) for x in args)) in statics for p, args in mentions.get(a, []) + mentions.get(b, [])
        )

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
