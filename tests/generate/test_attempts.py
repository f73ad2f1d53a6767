"""A task with few provable questions in a domain: generation moves on to other states after one
failed attempt in each, stops when no state is left, and says which task fell short and why; the
records it does write are right (gold scores 1)."""

from __future__ import annotations

import subprocess
import sys

from acptools.generate import Options, generate
from acptools.generate.attempts import FRESH_ROUNDS
from acptools.scoring import gold_response, score_response
from acptools.truth import task_for

# a counter that only goes forward: from (at nK) the atoms behind it never hold again, so a 4-choice
# reachability question (one reachable fact, three unreachable ones) exists only from n3 on
LADDER = """(define (domain ladder) (:requirements :strips :typing) (:types rung)
  (:predicates (at ?r - rung) (next ?a ?b - rung))
  (:action climb :parameters (?a ?b - rung) :precondition (and (at ?a) (next ?a ?b))
           :effect (and (at ?b) (not (at ?a)))))"""
LADDER_P = """(define (problem ladder5) (:domain ladder) (:objects n0 n1 n2 n3 n4 n5 - rung)
  (:init (at n0) (next n0 n1) (next n1 n2) (next n2 n3) (next n3 n4) (next n4 n5))
  (:goal (at n5)))"""

# two lamps that switch freely: every fact is reachable from every state, so no 4-choice
# reachability question has a false option; the goal is one switch away, so no landmark is asked
LAMPS = """(define (domain lamps) (:requirements :strips :typing) (:types lamp)
  (:predicates (on ?l - lamp) (off ?l - lamp))
  (:action switch-on :parameters (?l - lamp) :precondition (off ?l) :effect (and (on ?l) (not (off ?l))))
  (:action switch-off :parameters (?l - lamp) :precondition (on ?l) :effect (and (off ?l) (not (on ?l)))))"""
LAMPS_P = """(define (problem lamps2) (:domain lamps) (:objects a b - lamp)
  (:init (off a) (on b)) (:goal (and (on a) (on b))))"""


def _states_tried(short: str) -> int:
    return int(short.split(" states tried")[0].rsplit(" ", 1)[1])


def test_few_states_with_a_question_are_found_and_the_records_are_right():
    out = generate(LADDER, [LADDER_P], Options(form="mcq", tasks=("reach",), n=3, seed=1))
    assert out.made["reach"] == 3
    # one attempt per state at most: six states exist, each retired at its first failure
    assert sum(out.dropped["reach"].values()) <= 6
    for r in out.records:
        task = task_for(r["PDDL_domain"], r["PDDL_problem"])
        at = next(n for n in task.names(task.init))
        assert at in ("(at n3)", "(at n4)"), at  # the only states with three unreachable facts
        assert score_response(r, gold_response(r)).score == 1
        assert score_response(r, next(x for x in "ABCD" if x != r["answer"])).score == 0


def test_a_task_no_state_can_ask_stops_early_and_says_why():
    out = generate(LAMPS, [LAMPS_P], Options(form="mcq", tasks=("reach", "land"), n=5, seed=1))
    assert out.made == {"reach": 0, "land": 0}
    for task, reason in (("reach", "no four candidates of one shape"), ("land", "no landmark but goal facts")):
        short = out.short[task]
        tried = _states_tried(short)
        assert tried == 4  # the four states of two lamps, each tried once; no fresh state is left to draw
        assert sum(out.dropped[task].values()) == tried
        assert "no state was left to try" in short and reason in short, short
    out = generate(LAMPS, [LAMPS_P], Options(form="bool", tasks=("app",), n=5, seed=1))
    assert out.made == {"app": 5} and out.short == {}


def test_fresh_states_are_drawn_when_the_pool_runs_dry():
    """Two lamps again, asked for more records than the drawn states give (app: every state gives
    one question per applicable action); fresh states turn up none new, and the task says so."""
    out = generate(LAMPS, [LAMPS_P], Options(form="bool", tasks=("land",), n=2, seed=3))
    assert out.made["land"] == 0 and FRESH_ROUNDS >= 1
    assert "states retired: 4 no landmark but goal facts and facts that hold already" in out.short["land"]


def test_the_command_line_names_the_short_task_and_its_reason(tmp_path):
    (tmp_path / "d.pddl").write_text(LAMPS)
    (tmp_path / "p.pddl").write_text(LAMPS_P)
    p = subprocess.run(
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
            "mcq",
            "--tasks",
            "reach",
            "-n",
            "2",
            "--out",
            str(tmp_path / "r.jsonl"),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1, p.stderr
    p = subprocess.run(
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
            "mcq",
            "--tasks",
            "reach",
            "-n",
            "2",
            "--out",
            str(tmp_path / "r.jsonl"),
            "--force",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 1
    lines = [line for line in p.stderr.splitlines() if "SHORT" in line]
    assert any("reach" in line and "(SHORT of 2)" in line for line in lines), p.stderr
    assert any(
        line.strip().startswith("SHORT: 0 of 2 records: 4 states tried") and "no four candidates of one shape" in line
        for line in lines
    ), p.stderr
