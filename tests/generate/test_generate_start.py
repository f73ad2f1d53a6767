"""What a user starting on their own domain meets in `acptools generate`: bundled examples by name
(--example), a first template file to edit (--nl-template) that works as it is, and flags that would
do nothing refused with the reason (--paraphrase with --obfuscate). Real processes on real PDDL."""

from __future__ import annotations

import json
import subprocess
import sys

from acptools.dataset import PDDL_PROMISE
from acptools.describe import parse_domain
from acptools.generate.templates import load
from tests.support.data import PDDL, ROOT

FERRY = ROOT / "acptools" / "examples" / "ferry"


def generate(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acptools.cli", "generate", "--quiet", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc.stderr


def test_example_names_the_bundled_files(tmp_path):
    common = ("--form", "bool", "--tasks", "app,reach", "-n", 2, "--seed", 4)
    by_name = generate("--example", "ferry", *common, "--out", tmp_path / "a.jsonl")
    by_file = generate(
        "--domain", FERRY / "domain.pddl", "--problem", FERRY / "problem.pddl", *common, "--out", tmp_path / "b.jsonl"
    )
    assert by_name.returncode == by_file.returncode == 0, by_name.stderr + by_file.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert "--example ferry is the bundled example" in one_line_error(
        generate("--domain", "ferry", "--problem", "p.pddl", "--out", tmp_path / "c.jsonl")
    )
    assert "no bundled example 'nowhere'" in one_line_error(generate("--example", "nowhere", "--out", tmp_path / "d"))
    assert "--example gives the domain and the problem" in one_line_error(
        generate("--example", "ferry", "--domain", FERRY / "domain.pddl", "--out", tmp_path / "e.jsonl")
    )


def test_paraphrase_with_obfuscate_is_refused_with_the_reason(tmp_path):
    err = one_line_error(generate("--example", "ferry", "--obfuscate", "--paraphrase", "--out", tmp_path / "x.jsonl"))
    assert "--paraphrase would change nothing: obfuscated records are written with generic phrases" in err
    assert not (tmp_path / "x.jsonl").exists()


def test_nl_template_starts_a_template_file_that_works_as_written(tmp_path):
    """A domain without a template file: the starter names every predicate and action with its
    parameters and their types, loads and fits the domain, and records generated with it read those
    phrases (and no longer say the PDDL comes with the question)."""
    domain = PDDL / "briefcase" / "domain.pddl"
    nl = tmp_path / "nl.json"
    proc = generate("--domain", domain, "--nl-template", nl)
    assert proc.returncode == 0 and f"then pass --nl {nl}" in proc.stderr, proc.stderr
    doc = json.loads(nl.read_text())
    parsed = parse_domain(domain.read_text())
    assert set(doc["predicates"]) == set(parsed.predicates) and set(doc["actions"]) == set(parsed.actions)
    assert doc["predicates"]["at"] == "portable {o} is at location {l}" and doc["actions"]["lock"] == "lock"
    assert "location, portable" in doc["description"]
    load(nl).check(parsed)
    out = tmp_path / "records.jsonl"
    made = generate(
        "--domain",
        domain,
        "--problem",
        PDDL / "briefcase" / "problem.pddl",
        "--nl",
        nl,
        "--form",
        "bool",
        "--tasks",
        "app",
        "-n",
        2,
        "--out",
        out,
    )
    assert made.returncode == 0, made.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and all(PDDL_PROMISE not in r["context"] and "is at location" in r["context"] for r in records)
    assert "--nl-template" in one_line_error(generate("--domain", domain, "--nl-template", nl))  # exists
    assert generate("--domain", domain, "--nl-template", nl, "--force").returncode == 0
    printed = generate("--example", "ferry", "--nl-template", "-")
    assert json.loads(printed.stdout)["actions"]["sail"] == "sail location {from}, location {to}"
