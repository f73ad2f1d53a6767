"""The semantics of a task with numeric state (see numeric.py), installed on its GroundedTask in place of
the propositional methods, so that propositional tasks keep theirs untouched (same code, same speed).

A state's low bits are atoms (comparison atoms among them), its high bits the packed values. Reading an
undefined value or dividing by zero makes an operator inapplicable, with that reason (`unsatisfied`)."""

from __future__ import annotations

import re
from fractions import Fraction
from types import MethodType

from ..errors import AcpError
from .names import split_name
from .unsatisfied import Unsatisfied

METHODS = ("apply_op", "op_for", "applicable_ops", "is_goal", "names", "parse_state", "unsatisfied", "ensure")
_VALUE = re.compile(r"^\(\s*=\s*\(([^()]*)\)\s+(\(\s*/\s*-?\d+\s+\d+\s*\)|[^()\s]+)\s*\)$")


def install(task) -> None:
    """Bind the numeric methods on `task` (a GroundedTask with `numeric`)."""
    for name in METHODS:
        setattr(task, name, MethodType(globals()[f"_{name}"], task))


def initial_state(task, atoms: int) -> int:
    num = task.numeric
    values = num.init_values
    state = task.close(atoms | num.comparison_bits(values))
    return state | num.encode(values)


def _masks_hold(op, atoms: int) -> bool:
    return atoms & op.pre == op.pre and not atoms & op.neg


def _ensure(task, state: int, budget=None) -> bool:
    return False  # every operator is grounded at load (lazy exploration does not follow values)


def _apply_op(task, op, state: int) -> int:
    num = task.numeric
    mask = num.atom_mask
    atoms = state & mask
    values = num.values(state)
    new_values = values if op.num is None else num.updated(op.num, atoms, values)
    new_atoms = type(task).apply_op(task, op, atoms)  # the class's propositional apply
    if new_values is values:
        return task.close(new_atoms) | (state & ~mask)
    new_atoms = (new_atoms & ~num.comparison_mask) | num.comparison_bits(new_values)
    return task.close(new_atoms) | num.encode(new_values)


def _numeric_ok(task, op, atoms: int, values) -> bool:
    return op.num is None or task.numeric.why_not(op.num, atoms, values) is None


def _op_for(task, action: int, state: int):
    atoms = state & task.numeric.atom_mask
    values = task.numeric.values(state)
    for op in task.ops_of_action[action]:
        if _masks_hold(op, atoms) and _numeric_ok(task, op, atoms, values):
            return op
    return None


def _applicable_ops(task, state: int) -> list:
    atoms = state & task.numeric.atom_mask
    values = task.numeric.values(state)
    return [op for op in task.operators if _masks_hold(op, atoms) and _numeric_ok(task, op, atoms, values)]


def _is_goal(task, state: int) -> bool:
    num = task.numeric
    atoms, values = state & num.atom_mask, num.values(state)
    for p, n in task.goal:
        if atoms & p == p and not atoms & n and all(values[v] is not None for v in num.reads_of(p | n)):
            return True
    return False


def _unsatisfied(task, action: int, state: int):
    num = task.numeric
    atoms, values = state & num.atom_mask, num.values(state)
    if not task.ops_of_action[action]:
        schema, args = split_name(task.action_names[action])
        lifted = task.domain.actions[schema]
        binding = dict(zip((v for v, _ in lifted.params), args, strict=True))
        undefined = num.undefined_statics((lifted.precondition, lifted.effect), binding, [])
        if undefined:
            return Unsatisfied(tuple(dict.fromkeys(undefined)), ())
    ops = [op for op in task.ops_of_action[action] if op.num is not None]
    for op in ops:
        undefined = [num.var_names[v] for v in sorted(op.num.reads) if values[v] is None]
        if undefined:  # read anywhere, an undefined value makes the action inapplicable
            return Unsatisfied(tuple(f"{name} has no value" for name in undefined), ())
    for op in ops:
        if _masks_hold(op, atoms):
            why = num.why_not(op.num, atoms, values)
            if why is not None:
                return Unsatisfied((why,), ())
    return type(task).unsatisfied(task, action, atoms)


def _names(task, mask: int) -> list[str]:
    """A state's atoms (comparison atoms left out) then `(= (f o) v)` per defined variable; any other
    mask (no value bits): its atoms' names."""
    num = task.numeric
    if not mask >> num.n_atoms:
        return type(task).names(task, mask)
    atoms = mask & num.atom_mask & ~num.comparison_mask
    return type(task).names(task, atoms) + num.entries(num.values(mask))


def _parse_state(task, atoms, where: str = "state") -> int:
    """A state from atom strings and `(= (f o) v)` entries; an unlisted variable is undefined."""
    num = task.numeric
    entries = _split(atoms) if isinstance(atoms, str) else list(atoms)
    values: list = [None] * len(num.terms)
    plain = []
    for k, text in enumerate(entries):
        found = _VALUE.match(text.strip().lower()) if isinstance(text, str) else None
        if found is None:
            plain.append(text)
            continue
        at = f"{where}[{k}]"
        term = split_name(found.group(1), "function term", at)
        i = num.var_ids.get(term)
        if i is None:
            raise AcpError(
                f"({' '.join((term[0], *term[1]))}) is not a numeric variable of this task",
                at,
                "numeric variables: " + ", ".join(num.var_names[:8]),
            )
        try:
            value = _number(found.group(2))
        except (ValueError, ZeroDivisionError):
            raise AcpError(f"{found.group(2)!r} is not a number", at, "write 3, 2.5 or 1/3") from None
        if values[i] is not None and values[i] != value:
            raise AcpError(f"two values for {num.var_names[i]}", at, "list each variable once")
        values[i] = value
    task._check_state_size(len(plain), where)
    listed = type(task)._parse_atoms(task, plain, where)
    state = listed | num.comparison_bits(values)
    state = task._derive(state, where) if task.axioms else state
    return state | num.encode(values)


def _split(text: str) -> list[str]:
    """'(at a) (= (fuel t) 3)' -> ['(at a)', '(= (fuel t) 3)']: top-level parenthesised items."""
    out, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = k
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append(text[start : k + 1])
    return out or ([text] if text.strip() else [])


def _number(text: str) -> Fraction:
    """3, -2.5, 1/3 or (/ 1 3), exactly."""
    if text.startswith("("):
        num, den = text.strip("()").split()[1:]
        return Fraction(int(num), int(den))
    return Fraction(text)
