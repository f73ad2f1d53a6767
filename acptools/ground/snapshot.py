"""A grounded task as bytes and back: what acptools.proofs.kept_tasks keeps in the proof store.

The bytes are plain data, never code: zlib-compressed JSON of strings, small ints, lists and
booleans, followed by the table of distinct operator masks as little-endian bytes; this module
rebuilds a task from them field by field. Reading them calls no constructor or function the bytes
name (a row of a shared store is read by every user of it, so the format must be harmless even
under a key that others can read). Bit sets are never decimal text (Python refuses to turn an int
of more than 4,300 digits into it): masks are bytes, init, goal and the reached atoms hexadecimal.

Kept: what loading made (see GroundedTask.__getstate__): the problem as parsed, names, operators,
init and goal, the reached atoms. The parsed domain is not written but shared with the process's
other tasks of that domain; the type table and the grounder are made again from the domain and the
problem (cheap), and the exploration that continues lazy grounding only if a question needs it.
"""

from __future__ import annotations

import itertools
import json
import zlib
from fractions import Fraction

from ..pddl import parse_problem
from ..pddl.model import Problem
from .axioms import Axioms, Rule
from .footprint import Footprint
from .grounded import GroundedTask, parsed_domain
from .grounding import Grounder, Operator, TypeTable, fluent_predicates

FORMAT = 1  # the layout below; rows are also keyed by the code's digest, so a change never reads old rows
# what dumps writes: every field of a freshly loaded task (GroundedTask.__getstate__), checked when writing
FIELDS = frozenset(
    (
        "domain_text",
        "problem_text",
        "domain",
        "problem",
        "key",
        "id",
        "types",
        "fluents",
        "static_true",
        "footprint",
        "axioms",
        "derived",
        "atoms",
        "atom_index",
        "atom_names",
        "atom_name_index",
        "init",
        "goal",
        "goal_atoms",
        "_grounder",
        "max_operators",
        "action_names",
        "action_index",
        "ops_of_action",
        "operators",
        "generation",
        "reached",
        "_possible",
        "_possible_names",
        "_explores",
        "metric",
        "metric_reason",
        "numeric",
        "atom_mask",
        "shown_mask",
    )
)


def _hex(mask: int) -> str:
    return format(mask, "x")


def _tuples(value):
    """JSON lists back to the tuples the parser makes (formulas, atoms, typed parameters)."""
    return tuple(map(_tuples, value)) if isinstance(value, list) else value


def dumps(task: GroundedTask) -> bytes:
    """The task as compressed bytes (take it right after loading: questions' engines are not kept)."""
    if task.numeric is not None:
        raise ValueError("a task with numeric state is not kept (its operators carry numeric effects)")
    unknown = set(task.__getstate__()) - FIELDS
    if unknown:
        raise ValueError(f"a grounded task's fields {sorted(unknown)} are not kept by snapshot.dumps")
    if _atoms(name[1:-1] for name in task.atom_names) != task.atoms:
        raise ValueError("an atom's name does not spell the atom")
    problem, axioms = task.problem, task.axioms
    data = {
        "format": FORMAT,
        "key": task.key,
        "problem_text": task.problem_text,
        "problem": [
            problem.name,
            problem.domain_name,
            {o: " ".join(t) for o, t in problem.objects.items()},
            sorted(" ".join((p, *a)) for p, a in problem.init),
            problem.goal,
            problem.has_metric,
            problem.ignored,
        ],
        "footprint": [task.footprint.atoms, task.footprint.actions, task.footprint.counted],
        "atom_names": task.atom_names,
        "init": _hex(task.init),
        "goal": [[_hex(p), _hex(n)] for p, n in task.goal],
        "max_operators": task.max_operators,
        "action_names": task.action_names,
        "operators": _operator_actions(task),
        "generation": task.generation,
        "reached": _hex(task.reached),
        "possible": task._possible,
        "explores": task._explores,
        "metric": [task.metric, task.metric_reason],
        "numeric": bool(problem.num_init or problem.metric),
    }
    masks: dict[int, int] = {}
    index = lambda mask: masks.setdefault(mask, len(masks))  # noqa: E731
    data.update(_operator_data(task.ops_of_action, index))
    data["axioms"] = (
        None
        if axioms is None
        else [index(axioms.derived), [[[r.head, index(r.pos), index(r.neg)] for r in layer] for layer in axioms.layers]]
    )
    sizes = [(m.bit_length() + 7) // 8 for m in masks]
    data["mask_sizes"] = sizes
    raw = b"".join(m.to_bytes(n, "little") for m, n in zip(masks, sizes, strict=True))
    return zlib.compress(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode() + b"\0" + raw, 1)


def _operator_data(ops_of_action: list[list[Operator]], index) -> dict:
    """The operators as flat columns (much faster to read than a list per operator): how many each
    action has, their four masks as `index`es into one table of distinct masks (most masks repeat:
    the empty one, an action's delete list shared by its disjuncts, ...), and the operators with
    conditional effects (each effect's four masks in a row)."""
    ops = [op for found in ops_of_action for op in found]
    return {
        "op_counts": list(map(len, ops_of_action)),
        "op_masks": [index(m) for op in ops for m in (op.pre, op.neg, op.add, op.dele)],
        "op_conds": [[k, [index(m) for c in op.conds for m in c]] for k, op in enumerate(ops) if op.conds],
        "op_costs": [[k, str(op.cost)] for k, op in enumerate(ops) if op.cost != 1],
    }


def _operator_actions(task: GroundedTask) -> list[int]:
    """`operators` as the actions whose operators it lists, in order: it is always a concatenation of
    whole `ops_of_action` lists (lazy grounding adds an action's operators together)."""
    actions, k, ops = [], 0, task.operators
    while k < len(ops):
        whole = task.ops_of_action[ops[k].action]
        if k + len(whole) > len(ops) or any(a is not b for a, b in zip(whole, ops[k : k + len(whole)], strict=True)):
            raise ValueError("the task's operators are not whole actions' operators")
        actions.append(ops[k].action)
        k += len(whole)
    return actions


def loads(blob: bytes, domain_text: str) -> GroundedTask:
    """The task `dumps` wrote; `domain_text` is its domain's PDDL. Bad bytes raise
    ValueError (json's errors among them), zlib.error, KeyError, TypeError or IndexError."""
    text, _, raw = zlib.decompress(blob).partition(b"\0")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("the bytes are not a kept grounded task of this format")
    domain = parsed_domain(domain_text)
    problem = _problem(data["problem"])
    if data["numeric"]:  # the initial values and the metric, read again from the problem's text
        parsed = parse_problem(str(data["problem_text"]), domain)
        problem.num_init, problem.metric = parsed.num_init, parsed.metric
    types, fluents = TypeTable(domain, problem), fluent_predicates(domain)
    grounder = Grounder(domain, problem, types, fluents)
    names = list(map(str, data["atom_names"]))
    grounder.atoms = _atoms(name[1:-1] for name in names)
    grounder.atom_ids = {atom: i for i, atom in enumerate(grounder.atoms)}
    grounder.frozen = True
    masks = _masks(memoryview(raw), data["mask_sizes"])
    ops_of_action = _operators(data, masks)
    axioms = data["axioms"]
    if axioms is not None:
        axioms = Axioms(
            [[Rule(int(h), masks[p], masks[n]) for h, p, n in layer] for layer in axioms[1]], masks[axioms[0]]
        )
    actions, possible, goal = list(map(str, data["action_names"])), data["possible"], data["goal"]
    task = GroundedTask.__new__(GroundedTask)
    task.__setstate__(
        {
            "domain_text": domain_text,
            "problem_text": str(data["problem_text"]),
            "domain": domain,
            "problem": problem,
            "key": str(data["key"]),
            "id": str(data["key"])[:16],
            "types": types,
            "fluents": fluents,
            "static_true": grounder.static_true,
            "footprint": Footprint(*data["footprint"]),
            "axioms": axioms,
            "derived": axioms.derived if axioms else 0,
            "atoms": grounder.atoms,
            "atom_index": grounder.atom_ids,
            "atom_names": names,
            "atom_name_index": {n: i for i, n in enumerate(names)},
            "init": int(data["init"], 16),
            "goal": [(int(pos, 16), int(neg, 16)) for pos, neg in goal],
            "goal_atoms": _union(p for p, _ in goal),
            "_grounder": grounder,
            "max_operators": int(data["max_operators"]),
            "action_names": actions,
            "action_index": {n: i for i, n in enumerate(actions)},
            "ops_of_action": ops_of_action,
            "operators": [op for aid in data["operators"] for op in ops_of_action[aid]],
            "generation": int(data["generation"]),
            "reached": int(data["reached"], 16),
            "_possible": None if possible is None else list(map(str, possible)),
            "_possible_names": None,
            "_explores": bool(data["explores"]),
            "metric": str(data["metric"][0]),
            "metric_reason": str(data["metric"][1]),
            "numeric": None,
            "atom_mask": -1,
            "shown_mask": -1,
        }
    )
    return task


def _masks(raw: memoryview, sizes: list[int]) -> list[int]:
    """The table of distinct masks: each its little-endian bytes, one after another."""
    if sum(sizes) != len(raw):
        raise ValueError("the masks' bytes do not match their sizes")
    ends = list(itertools.accumulate(sizes))
    return [int.from_bytes(raw[end - n : end], "little") for n, end in zip(sizes, ends, strict=True)]


def _union(masks) -> int:
    out = 0
    for mask in masks:
        out |= int(mask, 16)
    return out


def _atoms(texts) -> list[tuple[str, tuple[str, ...]]]:
    """'p o1 o2' -> ('p', ('o1', 'o2')) for each text: PDDL names hold no spaces."""
    return [(words[0], tuple(words[1:])) for words in (text.split(" ") for text in texts)]


def _problem(data: list) -> Problem:
    name, domain_name, objects, init, goal, has_metric, ignored = data
    return Problem(
        str(name),
        str(domain_name),
        {str(o): tuple(t.split(" ")) for o, t in objects.items()},
        set(_atoms(init)),
        _tuples(goal),
        bool(has_metric),
        list(map(str, ignored)),
    )


def _operators(data: dict, masks: list[int]) -> list[list[Operator]]:
    """`ops_of_action` from the columns `_operator_data` wrote."""
    counts, flat = data["op_counts"], list(map(masks.__getitem__, data["op_masks"]))
    if len(flat) != 4 * sum(counts):
        raise ValueError("the operators' masks do not match their count")
    conds: list[tuple] = [()] * (len(flat) // 4)
    for k, found in data["op_conds"]:
        four = map(masks.__getitem__, found)
        conds[k] = tuple(zip(four, four, four, four, strict=True))  # (pre, neg, add, dele) of each conditional effect
    actions = [aid for aid, n in enumerate(counts) for _ in range(n)]
    ops = list(map(Operator, actions, flat[0::4], flat[1::4], flat[2::4], flat[3::4], conds))
    for k, cost in data["op_costs"]:
        value = Fraction(cost)
        old = ops[k]
        ops[k] = Operator(
            old.action, old.pre, old.neg, old.add, old.dele, old.conds, int(value) if value.denominator == 1 else value
        )
    ends = list(itertools.accumulate(counts))
    return list(map(ops.__getitem__, map(slice, [0, *ends[:-1]], ends)))


def fingerprint(task: GroundedTask) -> tuple:
    """What a restored task must share with a fresh load of its PDDL: names, operators, init, goal and
    the reached atoms."""
    return (
        task.key,
        task.atom_names,
        task.action_names,
        task.ops_of_action,
        task.operators,
        task.init,
        task.goal,
        task.reached,
        task.metric,
        task.metric_reason,
        sorted(task.static_true),
    )
