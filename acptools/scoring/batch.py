"""Scoring many responses: reading them, matching them to records, scheduling the work.

Responses are grouped by record so each record's question is built (and its truth computed) once;
groups are handed to worker processes largest-first. Every per-item problem (a record whose PDDL
does not load, a stored answer of the wrong shape, an internal error) becomes an item with
verdict 'error' and a reason, never a crash of the whole run. Summaries, tables and plots of the
items are in :mod:`.report`.
"""

from __future__ import annotations

import copy
import json
import time
from collections import defaultdict
from pathlib import Path

from ..answers.parsed import canonical_task
from ..backends import run_sharing_proofs
from ..budget import DEFAULT_SECONDS, Effort
from ..dataset import task_of
from ..errors import AcpError
from ..kinds import cost
from ..proofs import grade_memo as memo
from ..proofs import store
from ..util.hashing import task_key
from ..verdict import Grade
from .items import ITEM_FIELDS, item_for

# ---- inputs --------------------------------------------------------------------------------------


def read_response_rows(path) -> tuple[list[dict], dict[str, list[str]]]:
    """(good rows, problems by kind): JSONL rows with id, optional group, response, optional model
    (other fields pass through); every line is read, so every kind of problem is found at once."""
    p = Path(path)
    if not p.is_file():
        raise AcpError(f"no such file: {p}", "--responses")
    rows: list[dict] = []
    problems: dict[str, list[str]] = defaultdict(list)
    with open(p, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                problems["invalid JSON"].append(f"line {n}: invalid JSON ({e.msg}, column {e.colno})")
                continue
            if not isinstance(row, dict):
                problems["not an object"].append(f"line {n}: expected a JSON object, got {type(row).__name__}")
            elif "id" not in row:
                problems["no id"].append(f"line {n}: no 'id' field")
            elif "response" not in row:
                problems["no response"].append(f"line {n}: no 'response' field (id {row['id']!r})")
            elif not isinstance(row["response"], str):
                problems["response not text"].append(
                    f"line {n}: 'response' must be a string, got {type(row['response']).__name__} (id {row['id']!r})"
                )
            else:
                row["_line"] = n
                rows.append(row)
    return rows, dict(problems)


def problems_error(problems: dict[str, list[str]], where: str, suggestion: str) -> AcpError:
    """One error naming every kind of problem, with up to three examples of each and its count."""
    total = sum(map(len, problems.values()))
    parts = []
    for kind, lines in problems.items():
        more = f" (and {len(lines) - 3} more {kind})" if len(lines) > 3 else ""
        parts.append("; ".join(lines[:3]) + more)
    return AcpError(f"{total} bad row(s): " + "; ".join(parts), where, suggestion)


ROW_HINT = 'each line must be a JSON object like {"id": 123, "response": "..."}'


def read_responses(path) -> list[dict]:
    """JSONL rows with id, optional group, response, optional model (other fields pass through);
    raises AcpError naming every kind of bad row."""
    rows, problems = read_response_rows(path)
    if problems:
        raise problems_error(problems, str(path), ROW_HINT)
    if not rows:
        raise AcpError("no responses", str(path), "the file holds no JSON lines")
    return rows


def _task_key(group) -> str | None:
    """The task a row's group names; None without a group, '?group' for a group no task has."""
    if group is None:
        return None
    try:
        return canonical_task(str(group))
    except ValueError:
        return "?" + str(group).strip().lower()


def _as_float(rid) -> float | None:
    """The id as the nearest double (what a float-based JSON tool keeps of it), None if not a number."""
    if isinstance(rid, bool):
        return None
    try:
        return float(rid)
    except (TypeError, ValueError, OverflowError):
        return None


class RecordIndex:
    """Records by (task, id), by id alone, and by the id's nearest double (to explain rounded ids)."""

    def __init__(self, records: list[dict]):
        self.by_key: dict[tuple[str, str], dict] = {}
        self.by_id: dict[str, list[dict]] = defaultdict(list)
        self.by_float: dict[float, list[dict]] = defaultdict(list)
        for r in records:
            if not isinstance(r, dict) or "id" not in r or "group" not in r:
                raise AcpError(
                    "a record without 'id' or 'group'",
                    "--data",
                    f"got {str(r)[:80]!r}; ACPBench Hard records carry id and group",
                )
            t = task_of(r)
            self.by_key[(t, str(r["id"]))] = r
            self.by_id[str(r["id"])].append(r)
            f = _as_float(r["id"])
            if f is not None:
                self.by_float[f].append(r)

    def find(self, row: dict) -> tuple[dict | None, str]:
        """The record a response row answers (by group and id, else by id alone), or None and why not."""
        rid = str(row["id"])
        t = _task_key(row.get("group"))
        if t is not None:
            if t.startswith("?"):
                return None, f"unknown group {row.get('group')!r}"
            r = self.by_key.get((t, rid))
            return r, "" if r else f"no {t} record with id {rid}" + self._rounded(row["id"], t)
        cands = self.by_id.get(rid, [])
        if len(cands) == 1:
            return cands[0], ""
        if not cands:
            return None, f"no record with id {rid}" + self._rounded(row["id"], None)
        return None, f"id {rid} matches {len(cands)} records ({', '.join(task_of(c) for c in cands)}); give a group"

    def _rounded(self, rid, task: str | None) -> str:
        """Why an id matches nothing when a record's id rounds to the same double: it was rounded."""
        f = _as_float(rid)
        near = [r for r in self.by_float.get(f, []) if task is None or task_of(r) == task] if f is not None else []
        if not near:
            return ""
        return (
            f" (it looks rounded: record id {near[0]['id']} is within float rounding of it; 64-bit ids must "
            f"not pass through a float: read and write the JSON with an exact parser such as Python's json, "
            f"not jq 1.6 or JavaScript)"
        )


def match(
    records: list[dict], rows: list[dict], problems: dict[str, list[str]] | None = None, where: str = "--responses"
) -> list[tuple[dict, dict]]:
    """(record, row) pairs; raises AcpError listing every row that matches no record, together with
    the `problems` found reading the rows (see read_response_rows), so one run shows every kind."""
    index = RecordIndex(records)
    pairs, bad = [], []
    for row in rows:
        rec, why = index.find(row)
        if rec is None:
            bad.append(f"line {row.get('_line', '?')}: {why}")
        else:
            pairs.append((rec, row))
    if problems:
        merged = dict(problems)
        if bad:
            merged["no record"] = bad
        raise problems_error(merged, where, ROW_HINT + "; ids (and groups) must match the --data records")
    if bad:
        raise AcpError(
            f"{len(bad)} response(s) match no record: "
            + "; ".join(bad[:12])
            + (f"; ... ({len(bad) - 12} more)" if len(bad) > 12 else ""),
            "--responses",
            "check the ids (and groups) against the --data files",
        )
    return pairs


def gold_rows(records: list[dict]) -> list[dict]:
    """One response row per record: its stored answer written as text (what --gold scores)."""
    from .api import gold_response  # the answer writers: only here (see _worker)

    return [{"id": r["id"], "group": r["group"], "model": "gold", "response": gold_response(r)} for r in records]


# ---- scoring -------------------------------------------------------------------------------------


def _stored_item(record: dict, row: dict, semantics: str, graded: dict) -> dict:
    """The item dict of a stored grade, the same as `ItemScore.to_dict` gives for a graded one (the
    graded values were just read from JSON, so they are this item's own and need no deep copy)."""
    item = item_for(record, row, semantics)
    fields = {f: graded[f] if f in graded else getattr(item, f) for f in ITEM_FIELDS}
    fields["extra"] = copy.deepcopy(item.extra)
    extra = fields.pop("extra")
    out = {k: v for k, v in extra.items() if k not in fields}
    out.update(fields)
    return out


def _cost(record: dict) -> float:
    """A scheduling guess (largest first): nexta needs optimal planning, then searches, then the rest."""
    kind = task_of(record)
    size = len(record.get("PDDL_problem", "")) / 1000
    base = cost(kind)
    if kind == "nexta" and isinstance(record.get("answer"), dict):
        try:
            base *= 1 + int(record["answer"].get("opt") or 0) / 5
        except (TypeError, ValueError):
            pass
    return base * (1 + size)


def _worker(args):
    """score_group for each record of a bundle (records of one task, so one worker parses and grounds
    it once); items come back as dicts (picklable, and what callers keep). The grading modules are
    imported here, where something is graded: a warm run, which only reads stored grades, never loads
    the parser or the engine."""
    from .group import score_group

    records, semantics, budget, until = args
    out = []
    for idx, record, rows in records:
        t0 = time.perf_counter()
        items = [it.to_dict() for it in score_group(record, rows, semantics, budget, until)]
        out.append((idx, items, time.perf_counter() - t0))  # the record's whole cost, loading the question included
    return out


def _task_of(record: dict) -> str:
    return task_key(record.get("PDDL_domain", ""), record.get("PDDL_problem", ""))


RETRY_FACTOR = 4.0  # items still unknown are graded again, one at a time, with this much more effort


def score_pairs(
    pairs: list[tuple[dict, dict]],
    semantics: str = "exact",
    budget=None,
    jobs: int = 1,
    until: bool = True,
    progress=None,
    backend: str = "local",
    address: str | None = None,
    skip=(),
    on_items=None,
) -> list[dict]:
    """Score (record, row) pairs; returns item dicts in the order of `pairs`.

    `budget` is CPU seconds per proof (default DEFAULT_SECONDS; see `acptools.Effort`), so
    the verdicts do not depend on how busy the machine is. Items that still end unknown are graded
    again one record at a time, with RETRY_FACTOR times the effort, before `unknown` is reported.
    Grades the proof store holds (acptools.proofs.grade_memo) are read, not graded; proven grades are kept.
    `skip`: indices of pairs already scored (a resumed run; None in the result); `on_items(items)` is
    called with each record's items as soon as they are final (so they can be written at once)."""
    effort = budget if isinstance(budget, Effort) else Effort(DEFAULT_SECONDS if budget is None else budget)
    results: list[dict | None] = [None] * len(pairs)
    stored = _StoredGrades(pairs, semantics, effort, until)
    skip = set(skip)
    hits = stored.read([i for i in range(len(pairs)) if i not in skip], results)
    if hits and on_items:
        on_items([results[i] for i in hits])
    skip.update(hits)
    groups: dict[tuple, list[int]] = {}
    for i, (rec, _row) in enumerate(pairs):
        if i not in skip:
            groups.setdefault((task_of(rec), str(rec["id"])), []).append(i)
    units = sorted(groups.values(), key=lambda ids: -_cost(pairs[ids[0]][0]))
    weights = [_cost(pairs[ids[0]][0]) for ids in units]
    kinds = [task_of(pairs[ids[0]][0]) for ids in units]
    tracker = _Tracker(progress, len(pairs), sum(weights), list(zip(kinds, weights)), len(skip))
    retry = []
    for k, items, seconds in _run_units(pairs, units, semantics, effort, jobs, until, backend, address):
        for i, it in zip(units[k], items):
            results[i] = it
            stored.keep(i, it)
        tracker.advance(len(units[k]), weights[k], (kinds[k], weights[k], seconds))
        if any(it["verdict"] == Grade.UNKNOWN for it in items):
            retry.append(k)
        elif on_items:
            on_items(items)
    if retry:
        tracker.note(f"grading {len(retry)} record(s) again with {RETRY_FACTOR:g}x the effort")
        for k, items, _ in _run_units(
            pairs, [units[k] for k in retry], semantics, effort.scaled(RETRY_FACTOR), 1, until
        ):  # here, one at a time: nothing else competes for the CPU
            for i, it in zip(units[retry[k]], items):
                if results[i]["verdict"] == Grade.UNKNOWN:
                    it["retried"] = True
                    results[i] = it
                    stored.keep(i, it, retried=True)
            if on_items:
                on_items([results[i] for i in units[retry[k]]])
    return results


def regrade(record: dict, response, semantics: str, seconds: float, until: bool) -> dict:
    """One stored response graded again as the batch run that stored it graded it (what `cache verify`
    compares a stored grade with)."""
    return score_pairs([(record, {"id": record.get("id"), "response": response})], semantics, seconds, until=until)[0]


class _StoredGrades:
    """The grades of this run's pairs in the proof store (acptools.proofs.grade_memo): read before any
    work is scheduled (a retried grade under the retry's effort), kept as items come back."""

    def __init__(self, pairs, semantics: str, effort: Effort, until: bool):
        self.found = store.active()
        self.pairs, self.semantics, self.until = pairs, semantics, until
        self.seconds = (effort.seconds, effort.scaled(RETRY_FACTOR).seconds)
        self.digests: dict[int, tuple[dict, str]] = {}

    def key(self, i: int, retried: bool = False) -> str:
        rec, row = self.pairs[i]
        held = self.digests.get(id(rec))
        if held is None or held[0] is not rec:
            held = self.digests[id(rec)] = (rec, memo.record_digest(rec))
        return memo.grade_key(held[1], row["response"], self.semantics, self.until, self.seconds[retried])

    def read(self, indices: list[int], results: list) -> list[int]:
        """Put the stored item of each pair in `indices` whose grade the store holds in results[i]
        (the grade at the run's effort, else the retry's); returns those indices. Each item's seconds
        is its share of the reading."""
        if self.found is None or not indices:
            return []
        t0 = time.perf_counter()
        hits: dict[int, bool] = {}
        todo = list(indices)
        for retried in (False, True):
            keys = {i: self.key(i, retried) for i in todo}
            stored = memo.lookup_many(self.found, list(keys.values()))
            for i, key in keys.items():
                if key in stored:
                    results[i] = _stored_item(*self.pairs[i], self.semantics, stored[key])
                    hits[i] = retried
            todo = [i for i in todo if i not in hits]
        share = round((time.perf_counter() - t0) / max(1, len(hits)), 6)
        for i, retried in hits.items():
            results[i]["seconds"] = share
            if retried:
                results[i]["retried"] = True
        return sorted(hits)

    def keep(self, i: int, item: dict, retried: bool = False) -> None:
        if self.found is not None:
            rec, row = self.pairs[i]
            memo.keep(
                self.found,
                self.key(i, retried),
                rec,
                row["response"],
                self.semantics,
                self.until,
                self.seconds[retried],
                item,
            )


def _run_units(
    pairs, units, semantics, effort, jobs: int, until: bool, backend: str = "local", address: str | None = None
):
    """Yield (unit index, item dicts, seconds) as units finish, on the chosen backend, the proof store
    shared (acptools.backends). Units about one task travel together (`_bundles`)."""
    bundles = _bundles([_task_of(pairs[ids[0]][0]) for ids in units], jobs)
    work = [
        ([(k, pairs[units[k][0]][0], [pairs[i][1] for i in units[k]]) for k in ks], semantics, effort, until)
        for _, ks in bundles
    ]
    for done in run_sharing_proofs(_worker, work, [[task] for task, _ in bundles], jobs, backend, address):
        yield from done


def _bundles(tasks: list[str], jobs: int) -> list[tuple[str, list[int]]]:
    """(task, unit indices) bundles in the order of their first unit: the units about one task, so a
    worker parses and grounds it once, at most a quarter of one worker's share each, so that a file
    whose records share one task still keeps every worker busy."""
    cap = max(1, len(tasks) // (4 * jobs))
    open_: dict[str, list[int]] = {}
    out: list[tuple[str, list[int]]] = []
    for k, task in enumerate(tasks):
        bundle = open_.get(task)
        if bundle is None or len(bundle) >= cap:
            bundle = open_[task] = []
            out.append((task, bundle))
        bundle.append(k)
    return out


class _Tracker:
    """Feeds the progress bar with items done and the share of the estimated work done."""

    def __init__(self, progress, total: int, total_weight: float, units=(), done: int = 0):
        self.progress, self.total, self.total_weight = progress, total, total_weight or 1.0
        self.done, self.weight = done, 0.0
        self.costs = hasattr(progress, "expect")  # an acptools.util.progress.Progress: the ETA from measured cost
        if self.costs:
            progress.expect(units)

    def advance(self, items: int, weight: float, cost=None) -> None:
        """`cost`: (task, prior weight, measured seconds) of the unit just graded."""
        self.done += items
        self.weight += weight
        if self.progress and self.costs:
            self.progress(self.done, self.total, self.weight / self.total_weight, cost=cost)
        elif self.progress:
            self.progress(self.done, self.total, self.weight / self.total_weight)

    def note(self, text: str) -> None:
        if self.progress and hasattr(self.progress, "note"):
            self.progress.note(text)


# ---- progress ------------------------------------------------------------------------------------
