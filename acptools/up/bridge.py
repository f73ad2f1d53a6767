"""A loaded task seen from unified-planning: states as `State`s, atoms as fluent expressions,
ground actions as the Problem's actions with their parameters.

acptools keeps a state as one int (bit i: atom i holds; a numeric task packs its values above the
atoms); `AcpState` wraps that int, so stepping costs a few big-int operations, and answers
`get_value` like any unified-planning State (UP's own
evaluators work on it). States from other simulators (`UPState`) are read fluent by fluent.
"""

from __future__ import annotations

from fractions import Fraction

from unified_planning.exceptions import UPUsageError
from unified_planning.model import State
from unified_planning.plans import ActionInstance

from ..ground.names import split_name
from ..ground.unified import UPNames


class Bridge:
    """Ids of one loaded task <-> items of the Problem it came from (caches filled on use)."""

    def __init__(self, task, names: UPNames):
        self.task, self.names = task, names
        self.true, self.false = names.em.TRUE(), names.em.FALSE()
        self._atom_exps: dict[int, object] = {}  # atom id -> fluent expression
        self._atom_of: dict[object, int | None] = {}  # fluent expression -> atom id (None: a static atom)
        self._moves: dict[int, tuple] = {}  # action id -> (Action, parameters)
        self.grounded = getattr(task, "grounded", task)
        num = self.numeric = self.grounded.numeric
        self._var_of = {} if num is None else {n: i for i, n in enumerate(num.var_names)}

    # ---- atoms and states ---------------------------------------------------------------------
    def atom_exp(self, i: int):
        """The unified-planning fluent expression of atom `i` (cached)."""
        exp = self._atom_exps.get(i)
        if exp is None:
            exp = self._atom_exps[i] = self.names.fluent_exp(self.task.atom_names[i])
        return exp

    def atom_id(self, exp) -> int | None:
        """The atom id of a fluent expression; None for an atom of a static (never changed) fluent."""
        if exp in self._atom_of:
            return self._atom_of[exp]
        i = self._atom_of[exp] = self.task.atom_name_index.get(self.names.atom_name(exp))
        return i

    def value(self, bits: int, exp):
        """The value of a fluent expression in the state `bits`: TRUE/FALSE, or a number constant."""
        if not exp.is_fluent_exp():
            raise UPUsageError(f"an acptools state holds fluent expressions; {exp} is not one")
        if not exp.fluent().type.is_bool_type():
            return self._number(bits, exp)
        i = self.atom_id(exp)
        if i is None:
            holds = split_name(self.names.atom_name(exp)) in self.task.static_true
        else:
            holds = bits >> i & 1
        return self.true if holds else self.false

    def _number(self, bits: int, exp):
        name = self.names.atom_name(exp)
        i = self._var_of.get(name)
        if i is not None:
            v = self.grounded.values(bits)[i]
        else:  # a static function (or a cost accumulator, which is the plan's cost, not state)
            num = self.numeric
            v = None if num is None else num.static_values.get(split_name(name))
        if v is None:
            raise UPUsageError(f"{exp} has no value in this acptools state")
        return self.names.em.Int(v.numerator) if v.denominator == 1 else self.names.em.Real(v)

    def _values(self, state) -> tuple:
        """The numeric variables' values in a foreign State (None where it has none)."""
        out = []
        for name in self.numeric.var_names:
            try:
                c = state.get_value(self.names.fluent_exp(name))
            except Exception:  # UP's states raise on an undefined value
                out.append(None)
                continue
            out.append(Fraction(c.constant_value()))
        return tuple(out)

    def state(self, bits: int) -> AcpState:
        """The acptools state `bits` as a unified-planning state."""
        return AcpState(bits, self)

    def bits(self, state) -> int:
        """The bitset of any unified-planning State of the Problem (an AcpState's own int)."""
        if isinstance(state, AcpState) and state.bridge.task.key == self.task.key:  # same PDDL: same atom ids
            return state.bits
        if not isinstance(state, State):
            raise UPUsageError(f"expected a unified-planning State, got {type(state).__name__}")
        num = self.numeric
        skipped = 0 if num is None else num.comparison_mask
        bits = 0
        for i in range(len(self.task.atoms)):
            if not skipped >> i & 1 and state.get_value(self.atom_exp(i)).bool_constant_value():
                bits |= 1 << i
        if num is None:
            return bits
        values = self._values(state)
        return self.grounded.close(bits | num.comparison_bits(values)) | num.encode(values)

    def exps(self, atoms: list[str]) -> list:
        """Atom names (and '(not x)' for atoms that must not hold) as the Problem's expressions. A
        numeric reason ('(<= (fuel) 3)', an undefined value) has no fluent expression: it is given as
        FALSE (its text stays in the caller's metrics)."""
        out = []
        for name in atoms:
            if not _is_atom(name):
                out.append(self.false)
            elif name.startswith("(not "):
                out.append(self.names.em.Not(self.names.fluent_exp(name[5:-1])))
            else:
                out.append(self.names.fluent_exp(name))
        return out

    # ---- actions ------------------------------------------------------------------------------
    def action_id(self, action, parameters=None) -> int:
        """The task's id of an ActionInstance, or of an Action with its parameters."""
        return self.task.parse_action(self.names.action_name(action, parameters), "action")

    def move(self, aid: int) -> tuple:
        """(Action, parameters) of an action id, as a simulator yields applicable actions."""
        found = self._moves.get(aid)
        if found is None:
            ai = self.names.action_instance(self.task.action_names[aid])
            found = self._moves[aid] = (ai.action, ai.actual_parameters)
        return found

    def instance(self, aid: int) -> ActionInstance:
        """The unified-planning ActionInstance of an action id."""
        action, parameters = self.move(aid)
        return ActionInstance(action, parameters)


def _is_atom(name: str) -> bool:
    """Whether a reason names an atom (or its negation) rather than a numeric condition."""
    inner = name[5:-1] if name.startswith("(not ") else name
    return inner.count("(") == 1 and not inner.startswith(("(<", "(>", "(= "))


class AcpState(State):
    """A state of an acptools task as a unified-planning State (immutable, hashable)."""

    __slots__ = ("bits", "bridge")

    def __init__(self, bits: int, bridge: Bridge):
        self.bits, self.bridge = bits, bridge

    def get_value(self, value):
        """The value (TRUE/FALSE) of a fluent expression in this state."""
        return self.bridge.value(self.bits, value)

    def atoms(self) -> list[str]:
        """The fluent atoms that hold, as acptools names (static facts are not listed)."""
        return self.bridge.task.names(self.bits)

    def __eq__(self, other) -> bool:
        return isinstance(other, AcpState) and other.bits == self.bits and other.bridge.task.key == self.bridge.task.key

    def __hash__(self) -> int:
        return hash(self.bits)

    def __repr__(self) -> str:
        return f"AcpState({' '.join(self.atoms())})"
