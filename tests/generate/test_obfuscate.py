"""`acptools generate --obfuscate` (PlanBench's mystery variant) on a bundled domain and an ADL test
domain, in every form: the obfuscated PDDL loads; mapped back with the record's mapping, the record's
state gives the original task the same applicable actions, the same h* and the same optimal next
actions; no original name is left in the record; gold answers score 1; same seed, same bytes (the CLI
run twice); another seed, other names."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache

import pytest

from acptools import load_task
from acptools.examples import texts
from acptools.generate import Options, dumps, generate
from acptools.generate.obfuscate import deobfuscate, reverse
from acptools.scoring import gold_response, score_response
from tests.support.data import pddl_texts

DOMAINS = {"ferry": lambda: texts("ferry"), "briefcase": lambda: pddl_texts("briefcase")}
FORMS = ("hard", "bool", "mcq", "arb")
N = 2
KINDS = ("domain", "types", "constants", "predicates", "actions", "problem", "objects")
# words of the questions' fixed English prose that some domain also uses as a name (`at`, `in`):
# they are checked where a name is written (PDDL fields, atoms and actions), not in prose sentences
PROSE = {"at", "in", "on"}


@cache
def records(domain: str, form: str, seed: int = 0) -> tuple[dict, ...]:
    d, p = DOMAINS[domain]()
    out = generate(d, p, Options(form=form, n=N, seed=seed, budget=10, obfuscate=True))
    return tuple(out.records)


def _original_names(domain: str) -> set[str]:
    """Every name the original PDDL declares (variables aside: they never reach a record's text)."""
    task = load_task(*DOMAINS[domain]())
    d, p = task.domain, task.problem
    return (
        {d.name, p.name} | set(d.supertypes) | set(d.constants) | set(d.predicates) | set(d.actions) | set(p.objects)
    ) - {"object"}


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("form", FORMS)
def test_every_form_generates_with_the_mapping_and_gold_scores_1(domain, form):
    recs = records(domain, form)
    assert recs
    names = _original_names(domain)
    for r in recs:
        mapping = r["obfuscation"]
        assert mapping["seed"] == 0
        mapped = {n for kind in KINDS for n in mapping[kind]}
        assert names <= mapped, names - mapped
        new = [w for kind in KINDS for w in mapping[kind].values()]
        assert len(set(new)) == len({n for kind in KINDS for n in mapping[kind]})  # distinct words
        assert all(re.fullmatch(r"[a-z][a-z0-9-]*", w) for w in new)
        gold = score_response(r, gold_response(r))
        assert gold.score == 1, (r["group"], gold.verdict, gold.reason)


def _words(value) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9_?-]+", json.dumps(value, ensure_ascii=False)))


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("form", FORMS)
def test_no_original_name_is_left(domain, form):
    names = _original_names(domain)
    for r in records(domain, form):
        fields = {k: v for k, v in r.items() if k not in ("obfuscation", "id")}
        prose = {k: fields.pop(k) for k in ("context", "question", "query") if k in fields}
        assert not names & _words(fields), (r["group"], names & _words(fields))
        assert not (names - PROSE) & _words(prose), (r["group"], (names - PROSE) & _words(prose))
        for text in prose.values():  # a name in a generic atom or action: name(...) or (name ...)
            leaked = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}\(|\({re.escape(n)}[ )]", text)]
            assert not leaked, (r["group"], leaked)


def _original_state(domain: str, record: dict):
    """The original task with the record's state: the record's problem mapped back."""
    d, _ = DOMAINS[domain]()
    problem = deobfuscate(record["PDDL_problem"], record["obfuscation"])
    return load_task(d, problem)


@pytest.mark.parametrize("domain", DOMAINS)
def test_mapped_back_the_answers_are_the_original_tasks(domain):
    seen = 0
    for form in FORMS:
        for r in records(domain, form):
            obf = load_task(r["PDDL_domain"], r["PDDL_problem"])
            orig = _original_state(domain, r)
            back = reverse(r["obfuscation"])
            first = load_task(*DOMAINS[domain]())
            assert orig.problem.goal == first.problem.goal and orig.problem.objects == first.problem.objects
            assert orig.static_true == first.static_true
            applicable = obf.questions.applicable()
            assert sorted(deobfuscate(a, r["obfuscation"]) for a in applicable) == orig.questions.applicable()
            assert all(w in back for a in applicable for w in a.strip("()").split())
            a, b = obf.questions.optimal_next(budget=10), orig.questions.optimal_next(budget=10)
            assert a.known and b.known
            assert a.h_star == b.h_star
            assert sorted(deobfuscate(x, r["obfuscation"]) for x in a.optimal_actions) == sorted(b.optimal_actions)
            seen += 1
    assert seen >= 2 * N * len(FORMS)


def test_the_same_seed_gives_the_same_bytes_with_two_jobs_and_another_seed_other_names():
    again = generate(
        *DOMAINS["ferry"](), Options(form="mcq", n=N, seed=0, budget=10, obfuscate=True), jobs=2
    ).records  # in worker processes too: the mapping travels with the work
    assert [dumps(r) for r in again] == [dumps(r) for r in records("ferry", "mcq")]
    other = records("ferry", "mcq", seed=1)[0]["obfuscation"]
    first = records("ferry", "mcq")[0]["obfuscation"]
    assert other["predicates"] != first["predicates"] and other["seed"] == 1


def _cli(tmp_path, name: str, *extra) -> subprocess.CompletedProcess:
    d, p = texts("ferry")
    (tmp_path / "d.pddl").write_text(d)
    (tmp_path / "p.pddl").write_text(p)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "generate",
            "--domain",
            str(tmp_path / "d.pddl"),
            "--problem",
            str(tmp_path / "p.pddl"),
            "--form",
            "hard",
            "--tasks",
            "app,nexta",
            "-n",
            "2",
            "--seed",
            "5",
            "--quiet",
            "--out",
            str(tmp_path / name),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_cli_obfuscate_is_byte_stable_and_refuses_nl(tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        run = _cli(tmp_path, name, "--obfuscate")
        assert run.returncode == 0, run.stderr
    a, b = (tmp_path / "a.jsonl").read_bytes(), (tmp_path / "b.jsonl").read_bytes()
    assert a == b
    recs = [json.loads(line) for line in a.decode().splitlines()]
    assert len(recs) == 4 and all(r["obfuscation"]["seed"] == 5 for r in recs)
    assert "sail" not in _words([r["PDDL_domain"] for r in recs])
    bad = _cli(tmp_path, "c.jsonl", "--obfuscate", "--nl", str(tmp_path / "d.pddl"))
    assert bad.returncode == 2 and "--nl and --obfuscate" in bad.stderr
