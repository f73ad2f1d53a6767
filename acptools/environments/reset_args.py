"""What a reset may ask for, from a client that knows nothing of the server's files: a start from PDDL
texts, a bundled example, one record, a named record source, a generated family, or one of the
environment's own starts; and, for any of them, another start state.

A client never names a path: PDDL comes as text (or a bundled example's name), records as records,
record sources by name (`acpbench-hard[:SPLIT][:TASK]`, or `hf:` for the Hugging Face copy). Files
are read only from what the environment itself was started with.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import replace

from .. import examples
from ..dataset import NAME, load_records
from ..errors import AcpError
from .task_sources import Start, family_records, from_examples, from_records, is_pddl_text

ARGS = ("domain", "problem", "problems", "state", "example", "record", "data", "family", "index")
SOURCES = ("record", "data", "family", "example", "problem")  # at most one per reset
NAMED_SOURCES = 8  # named record sources kept read
FAMILY_SIZE = 16  # records generated per family, domain and seed (as acptools-qa generates by default)
FAMILIES = 8  # generated families kept


def start_for(args: dict, starts: list[Start], rng: random.Random, budget: float, seed: int | None = None) -> Start:
    """The start a reset's arguments ask for (see the module docstring); none of them: one of `starts`.
    Where a source holds several starts, `index` picks one, else `rng` draws it. A family's
    FAMILY_SIZE records are generated with `seed` (None: 0) and `budget` (CPU seconds per proof)."""
    args = {k: v for k, v in args.items() if v is not None}
    unknown = sorted(set(args) - set(ARGS))
    if unknown:
        raise AcpError(
            f"unknown reset argument {unknown[0]!r}", "reset", f"reset takes {', '.join(ARGS)}, seed and episode_id"
        )
    state = args.pop("state", None)
    if state is not None and not isinstance(state, (str, list)):
        raise AcpError("state must be a list of atoms or one string of atoms", "state", "e.g. ['(at c0 l0)', ...]")
    start = _start(args, starts, rng, budget, seed or 0)
    return start if state is None else replace(start, state=tuple(state) if isinstance(state, list) else state)


def _start(args: dict, starts: list[Start], rng: random.Random, budget: float, seed: int) -> Start:
    given = [k for k in SOURCES if k in args]
    if len(given) > 1:
        raise AcpError(
            f"{' and '.join(given)} name two sources",
            "reset",
            "pass one of record, data, family, example, or domain with problem",
        )
    kind = given[0] if given else ("domain" if "domain" in args else None)
    _refuse_extras(args, kind)
    if kind == "family":
        found = family_starts(_text(args["family"], "family"), *_family_pddl(args), seed, budget)
        return _pick(found, args.get("index"), rng, "index")
    if kind == "record":
        return from_records([_record(args["record"])])[0]
    if kind == "data":
        return _pick(named_starts(_text(args["data"], "data")), args.get("index"), rng, "data")
    if kind == "example":
        return from_examples(_example(args["example"], "example"))[0]
    if kind == "domain" and not is_pddl_text(_text(args["domain"], "domain")):
        return from_examples(_example(args["domain"], "domain"))[0]
    if kind in ("problem", "domain"):
        return Start(_pddl(args.get("domain"), "domain"), _pddl(args.get("problem"), "problem"), "pddl")
    return _pick(starts, args.get("index"), rng, "index")


def _refuse_extras(args: dict, kind: str | None) -> None:
    """Arguments that the chosen source does not read are an error, not silently dropped."""
    takes = {
        "family": {"family", "domain", "problems", "index"},
        "data": {"data", "index"},
        None: {"index"},
        "problem": {"domain", "problem"},
        "domain": {"domain", "problem"},
    }.get(kind, {kind})
    extra = sorted(set(args) - takes)
    if extra:
        raise AcpError(
            f"{extra[0]!r} does not go with {kind or 'the environment’s own starts'}",
            extra[0],
            f"with {kind or 'no source'}, reset reads {', '.join(sorted(takes))}",
        )


def _text(value, arg: str) -> str:
    if not isinstance(value, str):
        raise AcpError(f"{arg} must be a string, got {type(value).__name__}", arg)
    return value


def _example(name, arg: str) -> str:
    if _text(name, arg) not in examples.names():
        raise AcpError(f"no bundled example {name[:80]!r}", arg, f"bundled examples: {', '.join(examples.names())}")
    return name


def _pddl(text, arg: str) -> str:
    if text is None:
        raise AcpError(f"no {arg} given", arg, "pass both the domain and the problem as PDDL text")
    if not is_pddl_text(_text(text, arg)):
        raise AcpError(
            "not PDDL text (no '(define')", arg, "pass the PDDL itself: the environment reads no files a client names"
        )
    return text


def _record(record) -> dict:
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as e:
            raise AcpError(f"the record is not valid JSON ({e.msg})", "record") from None
    if not isinstance(record, dict):
        raise AcpError(f"a record must be a dict or its JSON, got {type(record).__name__}", "record")
    return record


def _pick(starts: list[Start], index, rng: random.Random, arg: str) -> Start:
    if index is None:
        return starts[rng.randrange(len(starts))]
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(starts):
        raise AcpError(f"no start {index!r}", "index", f"use 0..{len(starts) - 1}")
    return starts[index]


@functools.lru_cache(maxsize=NAMED_SOURCES)
def named_starts(source: str) -> list[Start]:
    """The starts of a named record source (each record's problem init); files are refused."""
    if source.split(":")[0] not in (NAME, "hf"):
        raise AcpError(
            f"{source[:80]!r} is not a named record source",
            "data",
            f"a client names {NAME}[:dev|test][:TASK] (bundled) or hf:{NAME}[:dev|test][:TASK]; "
            "record files are read only from the environment's own --data",
        )
    found = from_records(load_records(source))
    if not found:
        raise AcpError("the source holds no record", f"data {source!r}")
    return found


def _family_pddl(args: dict) -> tuple[str, tuple[str, ...]]:
    """A family's domain (a bundled example's name or PDDL text; default the default example) and
    problems (PDDL texts)."""
    domain = args.get("domain", examples.DEFAULT)
    problems = args.get("problems", ())
    problems = [problems] if isinstance(problems, str) else problems
    if not (isinstance(domain, str) and (domain in examples.names() or is_pddl_text(domain))):
        raise AcpError("domain must be a bundled example's name or PDDL text", "domain")
    if not isinstance(problems, (list, tuple)) or not all(isinstance(p, str) and is_pddl_text(p) for p in problems):
        raise AcpError("problems must be PDDL texts", "problems", "the environment reads no files a client names")
    return domain, tuple(problems)


@functools.lru_cache(maxsize=FAMILIES)
def family_starts(family: str, domain: str, problems: tuple[str, ...], seed: int, budget: float) -> list[Start]:
    """The starts of FAMILY_SIZE records of a generated family (each record's problem init)."""
    records = family_records(family, domain, problems, n=FAMILY_SIZE, seed=seed, budget=budget)
    if not records:
        raise AcpError(
            f"the family gave no question on this domain (seed {seed})", "family", "try another family or problem"
        )
    return [replace(s, label=f"family:{family}:seed={seed}:{s.label}") for s in from_records(records)]
