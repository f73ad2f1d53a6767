"""How much memory and work a task will take, known from its lifted model before anything is grounded.

A 300-byte domain can describe 10^8 ground actions, or one action whose precondition `exists` over
six variables expands 729 million bindings, so a memory limit checked after grounding is checked too
late: the memory is spent (and often not given back to the operating system). Here the atoms are
counted exactly (every type-correct fluent atom is numbered at load) and the rest bounded from above:

  * the ground actions: each schema's parameters range over their typed objects, cut by the static
    facts of the precondition's top-level conjunction (an object that never appears at that position
    of such a fact cannot be bound there, and the tuples of a static relation bound the bindings of
    its variables together);
  * per ground action, what its quantified formulas expand to (expansion.py): the operators (one per
    disjunct of the precondition), the conditional effects, the disjuncts or effects one expansion
    holds at once, and the quantifier bindings it visits; the same for each derived predicate's
    axioms and for the goal.

The bounds times the bytes per item (those of `GroundedTask.approx_bytes`, the estimate the server
budgets its cache with) are an upper estimate of what loading the task takes, computed in time linear
in the model and its static facts; tracemalloc measured 25-40% of it on generated tasks of 700 to
21 000 atoms and actions. When the bound is over a limit, `within_limits` counts the bindings the
static facts allow (stopping at the limit), so a loose bound on the actions never refuses a task that
fits. The work that loading certainly does (the quantifier bindings of the goal and the axioms, where
no part can end the expansion early) is refused against the time a budget has left, at a rate far
above what grounding reaches, so only a task that could not be loaded in time is refused; every other
expansion checks the budget as it goes (`Grounder.spending`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..errors import AcpError
from .expansion import Size, Sizer, bindings_bound

BYTES_PER_ATOM = 480  # an atom's tuple, names both ways and index entries (x1.6 margin)
BYTES_PER_OPERATOR = 960  # an operator and its action's name, index and lists (x1.6 margin)
BYTES_PER_OPERATOR_ATOM = 0.4  # its masks: up to a bit per atom for pre, add and delete (x1.6 margin)
BYTES_PER_ITEM = 200  # a disjunct, conditional effect or axiom rule: a tuple of masks (x1.6 margin)
BYTES_PER_ITEM_ATOM = 0.8  # its masks: up to a bit per atom for up to four masks (x1.6 margin)
BINDINGS_PER_SECOND = 10_000_000  # quantifier bindings grounding visits: ~30 times what it reaches


@dataclass(frozen=True)
class SchemaSize:
    """One schema's share: ground actions (an upper bound, or counted) and, per ground action, its
    operators, their conditional effects, the items one expansion holds and the bindings it visits."""

    name: str
    actions: int
    operators: int = 1
    conds: int = 0
    held: int = 0
    bindings: int = 0


@dataclass(frozen=True)
class Footprint:
    """Fluent atoms (exact), ground actions (an upper bound, or counted when ``counted``) and the
    bytes and work their grounding takes (upper estimates)."""

    atoms: int
    actions: int
    counted: bool = False
    schemas: tuple[SchemaSize, ...] = ()
    fixed: Size = Size(0, 0)  # the axioms and the goal: rules (width), items held, bindings visited
    widest: tuple[int, str] = (0, "")

    @property
    def bytes_per_action(self) -> float:
        """The estimated bytes of one plain ground action (grows with the number of atoms)."""
        return BYTES_PER_OPERATOR + BYTES_PER_OPERATOR_ATOM * self.atoms

    @property
    def bytes_per_item(self) -> float:
        """The estimated bytes of one disjunct, conditional effect or axiom rule."""
        return BYTES_PER_ITEM + BYTES_PER_ITEM_ATOM * self.atoms

    def _action_bytes(self, s: SchemaSize) -> float:
        return s.operators * (self.bytes_per_action + s.conds * self.bytes_per_item)

    @property
    def held(self) -> int:
        """The most disjuncts or effects one expansion holds at once."""
        return max([self.fixed.held] + [s.held for s in self.schemas if s.actions])

    @property
    def fixed_bytes(self) -> int:
        """The bytes of the atoms, the axioms, the goal and the largest expansion in progress."""
        return int(self.atoms * BYTES_PER_ATOM + (self.fixed.width + self.held) * self.bytes_per_item)

    @property
    def bytes(self) -> int:
        """The estimated bytes of the atoms and actions."""
        if not self.schemas:
            return int(self.atoms * BYTES_PER_ATOM + self.actions * self.bytes_per_action)
        return int(self.fixed_bytes + sum(s.actions * self._action_bytes(s) for s in self.schemas))

    @property
    def bindings(self) -> int:
        """The quantifier bindings grounding every action, axiom and the goal visits (an upper bound)."""
        return self.fixed.bindings + sum(s.actions * s.bindings for s in self.schemas)

    @property
    def certain(self) -> int:
        """The quantifier bindings loading certainly visits: those of the goal and the axioms, which are
        grounded whole at load (actions are grounded as they are reached)."""
        return self.fixed.certain

    def room(self, max_bytes: int) -> int:
        """The most ground actions (of the smallest kind) that could fit in ``max_bytes`` beside the atoms,
        axioms and goal (negative: not even those)."""
        per_action = min([self._action_bytes(s) for s in self.schemas] or [self.bytes_per_action])
        return math.floor((max_bytes - self.fixed_bytes) / per_action)

    @property
    def plain_bytes(self) -> int:
        """The bytes the atoms and one plain operator per ground action would take (no formula expanded)."""
        return int(self.atoms * BYTES_PER_ATOM + self.actions * self.bytes_per_action)

    def counted_as(self, counts: dict[str, int]) -> Footprint:
        """This footprint with each schema's ground actions counted (`counts`: schema -> actions)."""
        schemas = tuple(replace(s, actions=counts[s.name]) for s in self.schemas)
        return replace(self, actions=sum(counts.values()), counted=True, schemas=schemas)


def within_limits(
    found: Footprint, max_bytes: int | None, max_actions: int | None, count, seconds: float | None = None
) -> Footprint:
    """``found``, or an AcpError before grounding when the task may need more than ``max_bytes``, has
    more than ``max_actions`` ground actions that the static facts allow, or certainly expands more
    quantifier bindings than grounding visits in ``seconds``. When the bound says no, ``count(limit)``
    counts those actions per schema (None: more than ``limit``), so a loose bound refuses nothing."""
    over_bytes = max_bytes is not None and found.bytes > max_bytes
    if over_bytes or (max_actions is not None and found.actions > max_actions):
        if over_bytes and found.fixed_bytes > max_bytes:
            raise _too_big(found, max_bytes)
        room = min(
            math.inf if max_bytes is None else found.room(max_bytes), math.inf if max_actions is None else max_actions
        )
        counts = count(int(room))
        if counts is None:
            if max_actions is None or room < max_actions:
                raise _too_big(found, max_bytes, more_than=int(room))
            raise AcpError(
                f"the task has more than {max_actions:,} ground actions that its static facts do not "
                "rule out; it was refused before grounding",
                "ground actions",
                "use a smaller problem (fewer objects)",
            )
        found = found.counted_as(counts)
        if max_bytes is not None and found.bytes > max_bytes:
            raise _too_big(found, max_bytes)
    if seconds is not None and found.certain > BINDINGS_PER_SECOND * seconds:
        raise _too_slow(found, seconds)
    return found


def _too_big(found: Footprint, max_bytes: int, more_than: int | None = None) -> AcpError:
    if found.counted:
        actions = f"{found.actions:,} ground actions possible by the static facts"
    else:
        actions = f"up to {found.actions:,} ground actions"
        if more_than is not None:
            actions += f", more than {more_than:,} of them possible by the static facts"
    if found.widest[0] and found.plain_bytes <= max_bytes:  # the quantified formulas make it too big
        actions += f"; {found.widest[1]}, up to {found.held:,} disjuncts or effects at once"
    return AcpError(
        f"the task may need up to {found.bytes / 1e6:,.0f} MB ({found.atoms:,} fluent atoms, {actions}), more than "
        f"the memory limit of {max_bytes / 1e6:,.0f} MB; it was refused before grounding",
        "memory",
        "use a smaller problem (fewer objects, or quantifiers over fewer variables)",
    )


def _too_slow(found: Footprint, seconds: float) -> AcpError:
    return AcpError(
        f"loading the task visits at least {found.certain:,} bindings of its quantified formulas ({found.widest[1]}), "
        f"more than {BINDINGS_PER_SECOND * seconds:,.0f}, what grounding could visit in the {seconds:,.1f} s its "
        "budget has left even at thirty times its speed; it was refused before grounding",
        "budget",
        "use a smaller problem (fewer objects, or quantifiers over fewer variables), or a larger budget",
    )


def footprint(domain, problem, types, fluents) -> Footprint:
    """The footprint of a parsed task (``types`` a TypeTable, ``fluents`` the fluent predicate names)."""
    atoms = sum(math.prod(len(types.of(t)) for _, t in domain.predicates[p].params) for p in fluents)
    static: dict[str, list[tuple[str, ...]]] = {p: [] for p in domain.predicates if p not in fluents}
    for pred, args in problem.init:
        if pred in static:
            static[pred].append(args)
    sizer = Sizer(types, fluents, static)
    sized = [_schema_size(schema, types, static, sizer) for schema in domain.actions.values()]
    fixed = [sizer.formula(problem.goal, "the goal")]
    for ax in domain.axioms:
        heads = math.prod(len(types.of(t)) for _, t in ax.params)
        body = sizer.formula(ax.body, f"the derived predicate {ax.predicate}")
        fixed.append(replace(body.times(heads), width=heads * body.width))
    total = Size(
        sum(f.width for f in fixed),
        max(f.held for f in fixed),
        sum(f.bindings for f in fixed),
        certain=sum(f.certain for f in fixed),
    )
    widest = max([f.widest for f in fixed] + [w for _, w in sized], key=lambda w: w[0])
    return Footprint(
        atoms, sum(s.actions for s, _ in sized), schemas=tuple(s for s, _ in sized), fixed=total, widest=widest
    )


def _schema_size(schema, types, static: dict, sizer: Sizer) -> tuple[SchemaSize, tuple[int, str]]:
    """A schema's SchemaSize, and its widest quantifier (bindings, described)."""
    pre = sizer.formula(schema.precondition, f"the precondition of action {schema.name}")
    eff = sizer.effect(schema.effect, f"the effect of action {schema.name}")
    actions = bindings_bound(schema.params, schema.precondition, types, static)
    # a precondition is expanded twice (to tell whether the action is possible, then to ground it)
    return (
        SchemaSize(
            schema.name, actions, pre.width, eff.conds, max(pre.held, eff.held), 2 * pre.bindings + eff.bindings
        ),
        max(pre.widest, eff.widest, key=lambda w: w[0]),
    )
