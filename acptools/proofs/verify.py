"""`acptools cache verify`: every kind of kept row checked again from scratch, none of them served
or read while it is checked.

- proven facts (`verify_facts`): a row must authenticate, its task and state must be in the store
  (hashed again), whatever it carries that can be checked without a search must hold (row_checks),
  and a fresh proof must agree with it;
- kept grounded tasks (`verify_kept_tasks`): each read back and compared with a fresh load of its PDDL;
- stored grades (`verify_grades`): each response graded again by the scorer the caller passes (the
  scorer sits above this package), which must give the same score and verdict.

Rows of another version of the code or engine are never served, and are counted as `stale`, not checked.
"""

from __future__ import annotations

import json

from ..errors import AcpError
from ..ground import snapshot
from ..task import Task, load_task
from ..util.hashing import code_version
from ..verdict import Grade
from . import store
from .grade_memo import grade_key, record_digest
from .row_checks import floor_problem, hstar_problem, list_problem, verdict_problem

FORGED = "not authenticated by this store's key (forged, or written with another key)"


# ---- proven facts ------------------------------------------------------------------------------


def verify_facts(found: store.ProofStore, n: int | None = None, seed: int = 0, budget: float = 60.0) -> dict:
    """Check every current-version fact (or `n` random ones) without serving any: it must
    authenticate, its task and state must be in the store (they are hashed again), its witness
    must replay, and a fresh proof (without the store) must agree with it. A row that cannot be
    checked, or not proven again within `budget` seconds, is a failure too."""
    failures, tasks = [], {}
    rows = found.rows(n, seed)
    with store.paused():  # prove from scratch: never read what is being checked
        for task_key, state_key, kind, key, text, authentic in rows:
            problem = _check_row(found, tasks, task_key, state_key, kind, key, text, budget) if authentic else FORGED
            if problem:
                failures.append(
                    {"task": task_key[:16], "state": state_key[:16], "kind": kind, "key": key, "problem": problem}
                )
    return {"checked": len(rows), "failures": failures}


def _check_row(found, tasks: dict, task_key: str, state_key: str, kind: str, key: str, text: str, budget: float) -> str:
    """'' when an authenticated row holds, else why it does not (or why it cannot be checked)."""
    if task_key not in tasks:
        tasks[task_key] = _stored_task(found, task_key)
    task = tasks[task_key]
    if isinstance(task, str):
        return task
    atoms = found.state_atoms(task_key, state_key)
    if atoms is None:
        return "the state's atoms are not in the store: the row cannot be checked"
    try:
        state = task.parse_state(atoms)
    except ValueError as e:
        return f"the stored state does not parse ({e})"
    if store.state_key(task.names(state)) != state_key:
        return "the stored atoms are not the row's state"
    task.grounded.ensure(state)
    try:
        value = json.loads(text)
        return _static_problem(task, state, kind, key, value) or _recheck(task, state, kind, key, value, budget)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        return f"a malformed row ({type(e).__name__}: {e})"


def _stored_task(found, task_key: str) -> Task | str:
    """The row's task from the PDDL kept in the store, or why there is none."""
    texts = found.task_texts(task_key)
    if texts is None:
        return "the task's PDDL is not in the store: the row cannot be checked"
    try:
        task = load_task(*texts)
    except ValueError as e:
        return f"the stored PDDL does not load ({e})"
    return task if task.key == task_key else "the stored PDDL is not the row's task"


def _static_problem(task: Task, state: int, kind: str, key: str, value: dict) -> str:
    """What the serving path checks before it serves the row (see acptools.proofs.row_checks)."""
    if kind == "h*":
        return hstar_problem(task, state, value)
    if kind == "h*-floor":
        return floor_problem(value)
    if kind.startswith("list-") and kind[5:] in ("atoms", "actions", "landmarks"):
        return list_problem(value)
    if kind in ("reach-atom", "landmark"):
        return verdict_problem(task, state, kind, task.parse_atom(key), value)
    if kind == "reach-action":
        return verdict_problem(task, state, kind, task.parse_action(key), value)
    return f"an unknown kind of fact {kind!r}"


def _recheck(task: Task, state: int, kind: str, key: str, value: dict, budget: float) -> str:
    """'' when a fresh proof agrees with the stored fact, else what differs (or that none was found)."""
    q = task.questions
    undecided = f"not proven again within {budget:g} s (raise --budget)"
    if kind == "h*":
        h = q.optimizer.h_star(state, q.as_budget(budget))
        if not h.known:
            return undecided
        return "" if h.cost == value["cost"] else f"stored h* {value['cost']}, proven {h.cost}"
    if kind == "h*-floor":
        h = q.optimizer.h_below(state, value["lower"], q.as_budget(budget))
        if h.known:
            return (
                ""
                if h.cost is None or h.cost >= value["lower"]
                else f"stored h* >= {value['lower']}, proven h* = {h.cost}"
            )
        return "" if h.lower >= value["lower"] else undecided
    if kind.startswith("list-"):
        ask = {"atoms": q.unreachable_atoms, "actions": q.unreachable_actions, "landmarks": q.landmarks}[kind[5:]]
        res = ask(state, budget)
        if not res.complete:
            return undecided
        same = sorted(i.name for i in res.items) == sorted(n for n, _ in value["items"])
        return "" if same else "a different list"
    ask, read = {
        "reach-atom": (q.is_reachable, task.parse_atom),
        "reach-action": (q.is_action_reachable, task.parse_action),
        "landmark": (q.is_landmark, task.parse_atom),
    }[kind]
    v = ask(read(key), state, budget)
    if v.answer is None:
        return undecided
    return "" if v.answer == value["answer"] else f"stored {value['answer']}, proven {v.answer}"


# ---- kept grounded tasks -------------------------------------------------------------------------


def verify_kept_tasks(found: store.ProofStore, sample: int | None = None, seed: int = 0) -> dict:
    """Every kept task of this code (or `sample` random ones) read back and compared with a fresh load
    of its PDDL; those kept by other versions of the code are counted as `stale` (never read)."""
    version = code_version()
    failures, checked = [], 0
    for key, authentic in found.grounded_rows(version, sample, seed):
        checked += 1
        problem = _kept_problem(found, key, version) if authentic else FORGED
        if problem:
            failures.append({"key": key, "problem": problem})
    return {"checked": checked, "stale": found.grounded_count(exclude=version), "failures": failures}


def _kept_problem(found, key: str, version: str) -> str:
    """'' when the kept task equals a fresh load of its PDDL, else what is wrong."""
    texts = found.task_texts(key)
    if texts is None:
        return "the task's PDDL is not in the store: the kept task cannot be checked"
    fresh = load_task(*texts)
    if fresh.key != key:
        return "the stored PDDL is not the row's task"
    try:
        kept = snapshot.loads(found.get_grounded(key, version), texts[0])
    except Exception as e:  # noqa: BLE001 -- any failure to read is the finding
        return f"unreadable ({type(e).__name__}: {e})"
    return (
        ""
        if snapshot.fingerprint(kept) == snapshot.fingerprint(fresh.grounded)
        else "differs from a fresh load of its PDDL"
    )


# ---- stored grades -----------------------------------------------------------------------------


def verify_grades(found: store.ProofStore, regrade, sample: int | None = None, seed: int = 0) -> dict:
    """Grade every stored response (or `sample` random ones) again without the store, by
    `regrade(record, response, semantics, seconds, until) -> item dict` (the scorer's); a row fails
    when it does not authenticate, cannot be rebuilt, or grades differently."""
    failures, stale, checked = [], 0, 0
    for key, task, text, authentic in found.grade_rows(sample, seed):
        checked += 1
        if not authentic:
            failures.append({"key": key, "problem": FORGED})
            continue
        texts = found.task_texts(task)
        if texts is None:
            failures.append({"key": key, "problem": "the task's PDDL is not in the store: the grade cannot be checked"})
            continue
        try:
            row = json.loads(text)
            record = dict(row["record"], PDDL_domain=texts[0], PDDL_problem=texts[1])
            current = (
                grade_key(record_digest(record), row["response"], row["semantics"], row["until"], row["seconds"]) == key
            )
        except (ValueError, TypeError, KeyError) as e:
            failures.append({"key": key, "problem": f"a malformed row ({type(e).__name__}: {e})"})
            continue
        if not current:
            stale += 1
            continue
        problem = _regrade_problem(regrade, record, row)
        if problem:
            failures.append({"key": key, "problem": problem})
    return {"checked": checked, "stale": stale, "failures": failures}


def _regrade_problem(regrade, record: dict, row: dict) -> str:
    """'' when a fresh grade (the store turned off) equals the stored one, else what differs."""
    try:
        with store.paused():  # grade from scratch: never read what is being checked
            item = regrade(record, row["response"], row["semantics"], row["seconds"], row["until"])
    except AcpError as e:
        return f"cannot be graded again: {e}"
    if item.get("verdict") == Grade.UNKNOWN:
        return "not graded again within its budget"
    stored = row["graded"]
    differ = [k for k in ("score", "verdict") if item.get(k) != stored.get(k)]
    return (
        f"graded again: {', '.join(f'{k} {stored.get(k)!r} stored, {item.get(k)!r} now' for k in differ)}"
        if differ
        else ""
    )
