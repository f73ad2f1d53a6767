"""ActionReasoningBench variants (issue 22): fluent kinds (`--fluents`), ramifications
(`--ramifications`), paraphrases (`--paraphrase`), with and without `--obfuscate`. Gold answers score
1 and corrupted ones 0 with acptools.scoring; answers about states are re-checked by replaying the
record's own PDDL in the independent oracle (tests/support/oracle.py, which evaluates axioms itself);
the same seed gives the same records. The default run covers a small slice (two domains); the
matrix on a ramified bundled example and the ADL and axiom test domains is `-m slow`, on the other
bundled examples `-m exhaustive`.

How the variants are proven is tested in test_ramify.py (definitions, compilation, invariants)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from functools import cache

import pytest

from acptools import examples, load_task
from acptools.generate import Options, generate
from acptools.generate.fluent_kinds import KINDS
from acptools.generate.obfuscate import deobfuscate
from acptools.scoring import gold_response, score_response
from tests.support.data import ROOT, pddl_texts
from tests.support.oracle import Oracle

FAMILIES = (
    "fluent_tracking",
    "state_tracking",
    "action_executability",
    "effects",
    "numerical_reasoning",
    "composite",
    "hallucination",
    "object_tracking",
)
ABOUT_FLUENTS = ("fluent_tracking", "state_tracking", "effects", "composite", "object_tracking")
DEFAULT = ("ferry", "grid-visit-all")  # bundled: a ramification, and static facts
SLOW = ("gripper-strips", "briefcase", "blocks-derived", "rooms-derived")  # ramified, ADL, axioms (one a goal)
EXHAUSTIVE = tuple(n for n in examples.names() if n not in DEFAULT + SLOW)
VARIANTS = [(False, False), (True, False), (False, True), (True, True)]  # (ramifications, obfuscate)


def texts(name: str) -> tuple[str, str]:
    return examples.texts(name) if name in examples.names() else pddl_texts(name)


@cache
def records(name: str, ramifications: bool, obfuscate: bool, n: int = 4, seed: int = 0) -> tuple[dict, ...]:
    d, p = texts(name)
    out = generate(
        d,
        [p],
        Options(form="arb", n=n, seed=seed, budget=5, ramifications=ramifications, obfuscate=obfuscate, steps=(1, 3)),
    )
    assert out.records, out.dropped
    return tuple(out.records)


@cache
def oracle(domain_text: str, problem_text: str) -> Oracle:
    return Oracle(domain_text, problem_text)


def corrupted(r: dict):
    """A wrong answer of the record's answer type (None when the type offers none to make)."""
    a, spec = r["answer"], r["spec"]
    kind = spec["answer_type"]
    if kind == "bool":
        return "False" if a == "True" else "True"
    if kind in ("count", "index"):
        return 1 if a is None else a + 1
    if kind == "name":
        return spec["query"]["names"][0] if a is None else None
    if kind == "effects":
        if a["pos"] or a["neg"]:
            return {"pos": a["pos"][1:], "neg": a["neg"]} if a["pos"] else {"pos": a["pos"], "neg": a["neg"][1:]}
        return None
    if a:
        return a[1:]
    if spec["query"]["query"] != "atoms":
        return None
    task = load_task(r["PDDL_domain"], r["PDDL_problem"])
    return [task.atom_names[0]]


def check_scores(recs) -> int:
    """Every gold answer scores 1 and every corrupted one 0; returns how many were corrupted."""
    wrong = 0
    for r in recs:
        assert score_response(r, gold_response(r)).score == 1, (r["question"], r["answer"])
        bad = corrupted(r)
        if bad is not None:
            assert score_response(r, gold_response(dict(r, answer=bad))).score == 0, (r["question"], bad)
            wrong += 1
    return wrong


def end_state(o: Oracle, spec: dict):
    """The oracle's state the claim or query is about (from the record problem's initial state)."""
    state = o.init_atoms()
    if spec.get("after"):
        return o.run(state, spec["after"])
    for act in spec.get("before_failure") or ():
        nxt = o.successor(state, act.lower())
        if nxt is None:
            break
        state = nxt
    return state


def oracle_answer(r: dict):
    """The answer by the oracle for holds claims and atom queries (None for the other questions)."""
    o = oracle(r["PDDL_domain"], r["PDDL_problem"])
    spec = r["spec"]
    if "claim" in spec and spec["claim"]["claim"] == "holds":
        c = spec["claim"]
        s = end_state(o, c)
        return "True" if set(c.get("atoms", ())) <= s and not set(c.get("negated", ())) & s else "False"
    q = spec.get("query", {})
    if q.get("query") != "atoms":
        return None
    s = end_state(o, q)
    universe = {
        n
        for n in o.fluent_atoms()
        if (q.get("object") is None or q["object"] in n[1:-1].split()[1:])
        and (q.get("among") is None or n in q["among"])
        and (q.get("predicates") is None or n[1:-1].split()[0] in q["predicates"])
    }
    return sorted(universe & s if q["sign"] == "true" else universe - s)


def check_oracle(recs, every: int = 1) -> int:
    checked = 0
    for r in recs[::every]:
        want = oracle_answer(r)
        if want is not None:
            assert r["answer"] == want, (r["question"], want)
            checked += 1
    return checked


def asked_polarity(spec: dict) -> str | None:
    """What a record's claim or query asks: about literals that are all positive or all negated, or
    about the atoms that hold (sign 'true') or do not; None for a question that asks both ways."""
    if spec.get("claim", {}).get("claim") == "holds":
        c = spec["claim"]
        signs = {sign for sign, listed in (("positive", "atoms"), ("negative", "negated")) if c.get(listed)}
        return signs.pop() if len(signs) == 1 else None
    q = spec.get("query", {})
    if q.get("query") == "atoms":
        return "positive" if q["sign"] == "true" else "negative"
    return None


def check_fields(recs, ramifications: bool) -> None:
    for r in recs:
        family = r["group"][len("arb_") :]
        assert r["ramifications"] is ramifications
        if family in ABOUT_FLUENTS:
            assert r["fluent_kind"] in KINDS and r["polarity"] in ("positive", "negative")
            asked = asked_polarity(r["spec"])
            assert asked in (r["polarity"], None) and (asked or r["spec"]["query"]["query"] == "effects"), (
                r["polarity"],
                r["spec"],
            )
        else:
            assert "fluent_kind" not in r
        if r.get("fluent_kind") == "constrained":
            assert "at most one" in r["context"]
        if ramifications and r["ramified"]:
            assert ":derived" in r["PDDL_domain"] and "holds exactly when" in r["context"]


# ---- the default slice -------------------------------------------------------------------------


@pytest.mark.parametrize("ramifications,obfuscate", VARIANTS)
@pytest.mark.parametrize("name", DEFAULT)
def test_variants_score_and_match_the_oracle(name, ramifications, obfuscate):
    recs = records(name, ramifications, obfuscate)
    assert {r["group"] for r in recs} == {f"arb_{f}" for f in FAMILIES}
    check_fields(recs, ramifications)
    assert check_scores(recs) >= len(recs) // 2
    assert check_oracle(recs, every=2) >= 5


def test_every_kind_is_asked_both_ways():
    """ferry: base, constrained and (ramified) derived; grid-visit-all: static. Each kind positively
    and negatively, each in several families."""
    seen = Counter()
    for name in DEFAULT:
        for ram, obf in VARIANTS:
            for r in records(name, ram, obf):
                if "fluent_kind" in r:
                    seen[r["fluent_kind"], r["polarity"]] += 1
    assert {k for k, _ in seen} == set(KINDS), seen
    assert all(seen[k, p] >= 2 for k in KINDS for p in ("positive", "negative")), seen


def test_ramified_ferry_derives_empty_ferry_and_states_it():
    recs = records("ferry", True, False)
    assert all(r["ramified"] == ["empty-ferry"] for r in recs)
    r = recs[0]
    assert "(:derived (empty-ferry" in r["PDDL_domain"]
    assert "(empty-ferry) holds exactly when (on ?y0) holds for no ?y0" in r["context"]
    assert "empty-ferry" not in r["PDDL_problem"]  # derived in the initial state too
    assert any(r.get("fluent_kind") == "derived" for r in recs)


def test_ramified_obfuscated_records_map_back():
    """Obfuscated and ramified: the definition and the compiled fluent are renamed like the PDDL,
    and mapping the record's PDDL back gives the ramified original's PDDL."""
    plain, obf = records("ferry", True, False), records("ferry", True, True)
    mapping = {k: v for k, v in obf[0]["obfuscation"].items() if k != "seed"}
    assert deobfuscate(obf[0]["ramified"][0], mapping) == "empty-ferry"
    assert "ferry" not in obf[0]["context"].lower()
    back = load_task(deobfuscate(obf[0]["PDDL_domain"], mapping), deobfuscate(obf[0]["PDDL_problem"], mapping))
    original = load_task(plain[0]["PDDL_domain"], plain[0]["PDDL_problem"])
    assert sorted(back.domain.derived) == sorted(original.domain.derived) == ["empty-ferry"]


def test_only_the_asked_kinds():
    d, p = examples.texts("ferry")
    out = generate(d, [p], Options(form="arb", tasks=("fluent_tracking", "effects"), n=4, fluents=("constrained",)))
    assert {r["fluent_kind"] for r in out.records} == {"constrained"}
    out = generate(d, [p], Options(form="arb", tasks=("fluent_tracking",), n=2, fluents=("derived",)))
    assert not out.records and out.dropped["fluent_tracking"]["no fluent of the asked kinds"]


def test_paraphrase_changes_phrasing_not_answers():
    d, p = examples.texts("ferry")
    opt = dict(form="arb", n=4, seed=3)
    plain = generate(d, [p], Options(**opt)).records
    phrased = generate(d, [p], Options(**opt, paraphrase=True)).records
    assert phrased == generate(d, [p], Options(**opt, paraphrase=True)).records  # seeded
    assert [(r["answer"], r["spec"]) for r in plain] == [(r["answer"], r["spec"]) for r in phrased]
    assert sum(a["question"] != b["question"] or a["context"] != b["context"] for a, b in zip(plain, phrased)) > 8
    choices = Counter(k for r in phrased for k, v in r["paraphrase"].items() if v)
    assert choices["predicates:at"] and choices["actions:sail"] and choices["objects"], choices
    check_scores(phrased)


def test_deterministic_by_seed():
    d, p = examples.texts("ferry")
    opt = Options(form="arb", tasks=("effects", "object_tracking"), n=3, seed=5, ramifications=True)
    assert generate(d, [p], opt).records == generate(d, [p], opt).records


# ---- the matrix ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ramifications,obfuscate", VARIANTS)
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) for n in SLOW]
    + [pytest.param(n, marks=pytest.mark.exhaustive) for n in EXHAUSTIVE],
)
def test_matrix(name, ramifications, obfuscate):
    recs = records(name, ramifications, obfuscate, n=4, seed=1)
    check_fields(recs, ramifications)
    check_scores(recs)
    assert check_oracle(recs, every=5) >= 1


# ---- the command line -----------------------------------------------------------------------------


def acptools_generate(tmp_path, *args):
    """`acptools generate` on ferry as a process: its exit code, stderr and records."""
    out = tmp_path / "records.jsonl"
    ferry = ROOT / "acptools" / "examples" / "ferry"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acptools.cli",
            "generate",
            "--domain",
            str(ferry / "domain.pddl"),
            "--problem",
            str(ferry / "problem.pddl"),
            "--quiet",
            "--force",
            "--out",
            str(out),
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    recs = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return done.returncode, done.stderr, recs


def test_cli_flags_reach_the_records(tmp_path):
    code, err, recs = acptools_generate(
        tmp_path,
        "--form",
        "arb",
        "--tasks",
        "effects,fluent",
        "-n",
        "4",
        "--fluents",
        "derived,constrained",
        "--ramifications",
        "--paraphrase",
    )
    assert code == 0, err
    assert {r["fluent_kind"] for r in recs} == {"derived", "constrained"}
    assert all(r["ramified"] == ["empty-ferry"] and "paraphrase" in r for r in recs)


@pytest.mark.parametrize(
    "args,message",
    [
        (("--form", "arb", "--fluents", "base,derivd"), "unknown fluent kind(s) derivd"),
        (("--form", "hard", "--ramifications"), "--ramifications is a variant of the ActionReasoningBench form"),
    ],
)
def test_cli_refuses_bad_variants(tmp_path, args, message):
    code, err, recs = acptools_generate(tmp_path, *args)
    assert code == 2 and message in err and "Traceback" not in err and not recs, err
