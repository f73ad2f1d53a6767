"""Parsing, names, states, errors and engines of the core library, on real PDDL."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from acptools import AcpError, PddlError, UnknownNameError, examples, load_task
from acptools.budget import Budget
from acptools.planners import fd, symk
from tests.support import simulator
from tests.support.data import PDDL, pddl_texts, records
from tests.support.load import slack

FERRY = examples.texts("ferry")
BRIEFCASE = ((PDDL / "briefcase" / "domain.pddl").read_text(), (PDDL / "briefcase" / "problem.pddl").read_text())


def test_load_from_paths_and_text_give_the_same_task():
    folder = Path(examples.ROOT) / "ferry"
    a = load_task(folder / "domain.pddl", folder / "problem.pddl")
    b = load_task(*FERRY)
    assert a.id == b.id and a.atom_names == b.atom_names


def test_a_path_given_as_a_string_is_text_and_the_error_says_so():
    with pytest.raises(PddlError, match="pathlib.Path"):
        load_task("/tmp/domain.pddl", FERRY[1])


@pytest.mark.parametrize(
    "text, where, what",
    [
        (
            "(define (domain d)\n  (:predicates (p))\n  (:action a :parameters () :precondition (p) :effect (q)))",
            "domain",
            "undeclared predicate 'q'",
        ),
        ("(define (domain d)\n (:predicates (p))\n (:acton a))", "domain line 3, column 2", "unknown domain section"),
        ("(define (domain d)\n (:predicates (p)", "domain line 2, column 2", "unclosed"),
        ("(define (domain d) (:predicates (p)))\n)", "domain line 2, column 1", "unbalanced"),
        (
            "(define (domain d) (:predicates (p))\n (:derived (p) (not (p))))",
            "domain line 2, column 21",
            "not stratified",
        ),
    ],
)
def test_malformed_domains_are_located(text, where, what):
    with pytest.raises(PddlError) as e:
        load_task(text, "(define (problem p) (:domain d) (:init) (:goal (and)))")
    assert where in str(e.value) and what in str(e.value)


def test_problem_for_another_domain_is_rejected():
    with pytest.raises(PddlError, match="not 'ferry'"):
        load_task(FERRY[0], FERRY[1].replace("(:domain ferry)", "(:domain logistics)"))


def test_an_undeclared_function_in_a_comparison_is_located():
    dom = FERRY[0].replace("(not-eq ?from ?to)", "(not-eq ?from ?to) (> (fuel) 0)")
    with pytest.raises(PddlError, match=r"line \d+, column \d+: undeclared function 'fuel' \(action sail\)"):
        load_task(dom, FERRY[1])


def test_names_are_lenient_and_errors_suggest():
    t = load_task(*FERRY)
    assert t.action_names[t.parse_action("(Sail L0, l1)")] == "(sail l0 l1)"
    assert t.action_names[t.parse_action("sail  l0 l1")] == "(sail l0 l1)"
    with pytest.raises(UnknownNameError, match="did you mean 'sail'"):
        t.parse_action("(sial l0 l1)")
    with pytest.raises(UnknownNameError, match="unknown object 'l9'.*did you mean"):
        t.parse_action("(sail l0 l9)")
    with pytest.raises(UnknownNameError, match="takes 2 arguments, got 1"):
        t.parse_action("(sail l0)")
    with pytest.raises(UnknownNameError, match="must be a location"):
        t.parse_action("(sail c0 l1)")
    with pytest.raises(UnknownNameError, match="static fact"):
        t.parse_atom("(not-eq l0 l1)")


def test_statically_impossible_actions_are_ground_actions_that_never_apply():
    q = load_task(*FERRY).questions
    v = q.is_action_reachable("(sail l1 l1)")
    assert v.answer is False and v.how == "static-facts"
    assert not q.progress("(sail l1 l1)").applicable


def test_states_are_closed_world_and_checked():
    t = load_task(*FERRY)
    q = t.questions
    state = ["(at c0 l1)", "(at c1 l0)", "(at-ferry l1)", "(empty-ferry)"]
    assert q.applicable(state) == ["(board c0 l1)", "(sail l1 l0)", "(sail l1 l2)"]
    assert q.applicable(state + ["(not-eq l0 l1)"]) == q.applicable(state)  # true static facts are fine
    with pytest.raises(AcpError, match="static fact that is false"):
        q.applicable(state + ["(not-eq l0 l0)"])


def test_adl_features_ground_and_apply():
    t = load_task(*BRIEFCASE)
    q = t.questions
    p = q.progress("(put-in p1 home)")
    assert p.positive_effects == ["(in p1)"] and p.negative_effects == []
    moved = q.progress("(move home office)", p.state)  # conditional effect carries p1 along
    assert "(at p1 office)" in moved.positive_effects and "(at p1 home)" in moved.negative_effects
    v = q.validate(["(put-in p1 home)", "(move home home)"])
    assert v.first_inapplicable == 1 and v.unsatisfied_preconditions  # (not (= ?from ?to))
    assert q.validate(q.plan().witness).goal_reached


def test_validation_reports_unmet_goals():
    q = load_task(*FERRY).questions
    v = q.validate(["(sail l0 l1)"])
    assert v.first_inapplicable is None and not v.goal_reached and v.unmet_goals


def test_fast_downward_and_symk_agree_with_in_process_h_star():
    t = load_task(*examples.texts("blocksworld-4ops"))
    h = t.questions.h_star()
    res = fd.solve(len(t.atoms), t.operators, t.init, t.goal, 30)
    assert len(res.plan) == h.h_star
    sk = symk.optimal_plan(t.domain_text, t.problem_for(t.init), 60)
    assert len(sk.plan) == h.h_star
    assert t.questions.validate(sk.plan).goal_reached


@pytest.mark.parametrize("name", ["gripper-strips", "floor-tile", "logistics-strips", "grid"])
def test_exclusion_finds_every_optimal_first_action(name):
    """Fast Downward and SymK exclusion re-solves (SymK on the first-action-gated PDDL domain)
    find exactly the optimal first actions of the one-search in-process A*."""
    t = load_task(*examples.texts(name))
    opt = t.questions.optimizer
    rep = opt._astar(t.init, Budget(30, None))
    by_fd = opt.by_fd(t.init, Budget(30, None))
    by_symk = opt.by_symk(t.init, Budget(30, None))
    assert rep.cost == by_fd.cost == by_symk.cost
    assert set(rep.first_actions) == by_fd.optimal == by_symk.optimal
    dom, prob = examples.texts(name)
    for plan in (by_fd.plan, by_symk.plan):
        states = simulator.trajectory(dom, prob, [t.action_names[a] for a in plan])
        assert states is not None and simulator.goal_reached(dom, prob, states[-1])


def _tower_problem(n: int) -> str:
    """Blocksworld (4 ops): turn a tower of n blocks upside down (far beyond an optimal planner's reach)."""
    blocks = [f"b{i}" for i in range(n)]
    init = [f"(on {a} {b})" for a, b in zip(blocks, blocks[1:])] + [f"(ontable {blocks[-1]})", f"(clear {blocks[0]})"]
    goal = [f"(on {b} {a})" for a, b in zip(blocks, blocks[1:])]
    return (
        f"(define (problem tower) (:domain blocksworld-4ops) (:objects {' '.join(blocks)})"
        f" (:init (handempty) {' '.join(init)}) (:goal (and {' '.join(goal)})))"
    )


def test_a_cancelled_budget_stops_an_outside_planner_quickly():
    """A cancel stops SymK mid-run: no plan, a detail that says so, and it returns long before the
    planner's own budget (which it could never finish within) or the test's timeout."""
    domain = examples.texts("blocksworld-4ops")[0]
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    started = time.perf_counter()
    res = symk.optimal_plan(domain, _tower_problem(40), Budget(900, None, cancel=stop))
    assert res.plan is None and not res.proven_none and "cancel" in res.detail, res
    assert time.perf_counter() - started < slack(120)  # generous for a busy machine; ignoring the cancel takes 900 s


def test_budgets_say_unknown_instead_of_running_on():
    hard = max(records("test", "nexta"), key=lambda r: int(r["answer"]["opt"]))
    q = load_task(hard["PDDL_domain"], hard["PDDL_problem"]).questions
    started = time.perf_counter()
    rep = q.optimal_next(budget=0.5)
    assert rep.known is False and rep.how == "unknown"
    assert time.perf_counter() - started < slack(5)


@pytest.mark.parametrize("name", ["doors", "briefcase"])
def test_symk_exclusion_on_adl_domains(name):
    """The first-action gate compiles ADL domains (negative preconditions, equality, conditional
    effects, quantifiers) correctly: SymK's optimal first actions match the in-process A*'s."""
    dom, prob = (PDDL / name / "domain.pddl").read_text(), (PDDL / name / "problem.pddl").read_text()
    t = load_task(dom, prob)
    opt = t.questions.optimizer
    rep = opt._astar(t.init, Budget(30, None))
    by_symk = opt.by_symk(t.init, Budget(30, None))
    assert rep.cost == by_symk.cost and set(rep.first_actions) == by_symk.optimal
    assert t.questions.validate([t.action_names[a] for a in by_symk.plan]).goal_reached


@pytest.mark.parametrize("name", ["floor-tile", "grid", "doors"])
def test_goal_relevance_keeps_h_star_and_optimal_first_actions(name):
    """Searching only goal-relevant operators changes neither h* nor the optimal first actions:
    checked against the in-process A* over *every* operator (doors has negative preconditions)."""
    from acptools.engine.optimal import Optimizer
    from acptools.engine.relevance import relevant_operators
    from acptools.engine.search import optimal_first_actions

    if name in examples.names():
        dom, prob = examples.texts(name)
    else:
        dom, prob = (PDDL / name / "domain.pddl").read_text(), (PDDL / name / "problem.pddl").read_text()
    t = load_task(dom, prob)
    eng = t.questions.engine
    full = optimal_first_actions(eng.gen, t.init, t.goal, lambda s: eng.relax.hmax(s, t.goal), Budget(60, None))
    pruned = Optimizer(eng)._astar(t.init, Budget(60, None))
    assert full.cost == pruned.cost and full.first_actions == pruned.first_actions
    if name == "floor-tile":  # painting tiles the goal does not ask for is irrelevant
        assert len(relevant_operators(t.operators, t.goal)) < len(t.operators)


@pytest.mark.parametrize("compiled", [True, False])
def test_fast_downward_runs_conditional_effects_and_effectless_actions(compiled, monkeypatch):
    """LM-cut rejects conditional effects and Fast Downward rejects operators without effects:
    small conditional effects are compiled away (LM-cut), larger ones run A* with h^max; the
    no-op is left out; both agree with the in-process A*."""
    from acptools.ground import conditional

    if not compiled:
        monkeypatch.setattr(conditional, "MAX_VARIANTS", 1)
    t = load_task(*pddl_texts("switches"))
    opt = t.questions.optimizer
    rep = opt._astar(t.init, Budget(30, None))
    by_fd = opt.by_fd(t.init, Budget(30, None))
    assert by_fd is not None and by_fd.how == ("fast-downward-lmcut" if compiled else "fast-downward-hmax")
    assert rep.cost == by_fd.cost == 3 and set(rep.first_actions) == by_fd.optimal
    assert t.questions.validate([t.action_names[a] for a in by_fd.plan]).goal_reached
    lit = t.parse_state(["(lit l1)", "(lit l2)", "(lit l3)", "(ready)", "(on s1)"])
    assert fd.solve(len(t.atoms), t.operators, lit, t.goal, 5).plan == []  # (an empty goal is rejected)


def test_outside_planners_never_see_a_type_with_two_parents():
    """`either` supertypes could be read differently by SymK's translator, so SymK is skipped and
    the other engines answer."""
    dom = """(define (domain amphibious) (:requirements :typing)
      (:types boat car - object amphibian - (either boat car) place)
      (:predicates (at ?v - car ?p - place) (road ?a ?b - place))
      (:action drive :parameters (?v - car ?a ?b - place) :precondition (and (at ?v ?a) (road ?a ?b))
        :effect (and (at ?v ?b) (not (at ?v ?a)))))"""
    prob = """(define (problem p) (:domain amphibious) (:objects duck - amphibian p1 p2 - place)
      (:init (at duck p1) (road p1 p2)) (:goal (at duck p2)))"""
    t = load_task(dom, prob)
    with pytest.raises(ValueError):
        t.written_domain_text
    assert t.questions.optimizer._symk(t.init, Budget(5, None)) is None
    rep = t.questions.optimal_next()
    assert rep.h_star == 1 and rep.optimal_actions == ["(drive duck p1 p2)"]


def test_fast_downward_plans_for_a_disjunctive_goal_name_real_operators():
    """A disjunctive goal gets 0-cost helper operators (goal0, goal1, ...) in our SAS+; plans must
    map back to task operators only, for the optimal and the greedy search alike."""
    t = load_task(*examples.texts("ferry"))
    far = [a for a in range(len(t.atoms)) if not t.init >> a & 1][:4]
    goal = [(1 << a, 0) for a in far]
    for optimal in (True, False):
        res = fd.solve(len(t.atoms), t.operators, t.init, goal, 10, optimal=optimal)
        assert res.plan is not None and all(0 <= i < len(t.operators) for i in res.plan)
        state = t.init
        for i in res.plan:
            op = t.operators[i]
            assert state & op.pre == op.pre and not state & op.neg
            state = t.apply_op(op, state)
        assert any(state & p == p for p, _ in goal)


def _burn(cpu_seconds: float) -> None:
    end = time.thread_time() + cpu_seconds
    while time.thread_time() < end:
        pass


def test_a_slow_expansion_cannot_overrun_a_cpu_budget():
    """The budget is checked per successor as well as per expansion, so a search whose successors are
    slow to evaluate (here a heuristic burning 50 ms of CPU each) stops within its CPU budget plus one
    evaluation, even when a single expansion evaluates dozens of successors."""
    from acptools.budget import CHECK_EVERY
    from acptools.engine.search import greedy_plan
    from acptools.errors import BudgetExceeded

    task = load_task(*examples.texts("logistics-strips"))
    engine = task.questions.engine
    start, each = task.init, 0.05
    assert len(list(engine.gen.successors(start))) * each > 0.3  # one expansion alone would overrun

    def slow_heuristic(state):
        _burn(each)
        return 1

    before = time.thread_time()
    with pytest.raises(BudgetExceeded, match="CPU seconds"):
        greedy_plan(engine.gen, start, task.goal, slow_heuristic, Budget(None, None, cpu=0.1))
    assert time.thread_time() - before < 0.1 + CHECK_EVERY + 2 * each + 0.05


SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "suite"


def _join_holds(f, b, t, positive=True, top=True) -> bool:
    """What the join promises to apply, evaluated by brute force: the static atoms and
    (in)equalities of the precondition's top-level conjunction and of the disjuncts of a top-level
    `or`; everything else (fluent atoms, quantifiers, deeper structure) counts as true."""
    tag = f[0]
    if tag == "atom":
        return f[1] in t.fluents or ((f[1], tuple(b.get(a, a) for a in f[2])) in t.static_true) == positive
    if tag == "=":
        return (b.get(f[1], f[1]) == b.get(f[2], f[2])) == positive
    if tag == "not":
        return _join_holds(f[1], b, t, not positive, top)
    if tag == "and" and positive:
        return all(_join_holds(g, b, t, True, top) for g in f[1])
    if tag == "or" and positive and top:
        return any(_join_holds(g, b, t, True, False) for g in f[1])
    return True


@pytest.mark.parametrize("name", ["join", "switches", "doors", "briefcase", *examples.names(), "suite:assembly"])
def test_the_grounding_join_equals_a_plain_nested_loop(name):
    """The join that draws candidates from static facts (constants, repeated variables, equality,
    negated static literals and the static parts of a top-level `or` included) yields exactly the
    bindings, in the same order, of a nested loop over the typed domains filtered by those parts,
    and never drops a binding whose precondition can hold."""
    import itertools

    if name.startswith("suite:"):
        folder = SUITE / name[6:]
        texts = ((folder / "domain.pddl").read_text(), (folder / "small.pddl").read_text())
    else:
        texts = examples.texts(name) if name in examples.names() else pddl_texts(name)
    t = load_task(*texts)
    pruned = 0
    for schema in t.domain.actions.values():
        names = [v for v, _ in schema.params]
        plain = []
        for args in itertools.product(*(t.types.of(ty) for _, ty in schema.params)):
            if _join_holds(schema.precondition, dict(zip(names, args)), t):
                plain.append(tuple(args))
            if t.grounded._schemas[schema.name].ground(tuple(args)):
                assert plain and plain[-1] == tuple(args), (schema.name, args)
        assert t.grounded.static_bindings(schema.name) == (plain if names else [()])
        pruned += len(plain) < len(list(itertools.product(*(t.types.of(ty) for _, ty in schema.params))))
    if name == "join":
        assert t.questions.optimal_next().h_star == 1
    if name == "suite:assembly":
        assert pruned == 2  # assemble and remove: `or (part-of ...) (transient-part ...)` is a generator


def test_a_race_survives_a_failing_engine():
    """One engine raising must not stop another from answering; with no answer the error shows."""
    from acptools.engine.race import race

    def broken(budget):
        raise RuntimeError("engine bug")

    def slow_answer(budget):
        time.sleep(0.1)
        return 42

    assert race([broken, slow_answer], Budget(5, None)) == 42
    with pytest.raises(RuntimeError, match="engine bug"):
        race([broken, lambda b: None], Budget(5, None))


@pytest.mark.parametrize(
    "edit, where, what, hint",
    [
        (
            ("(at c0 l0)", "(at l0 c0)"),
            "problem line 5, column 16",
            "'l0' is a location, but ?c of 'at' must be a car",
            "c0, c1",
        ),
        (
            ("(at c0 l0)", "(att c0 l0)"),
            "problem line 5, column 12",
            "undeclared predicate 'att' in :init",
            "did you mean 'at'",
        ),
        (
            ("(at c1 l2)))", "(at c1 lx2)))"),
            "problem line 6, column 35",
            "unknown object 'lx2' in the goal",
            "did you mean 'l2'",
        ),
        (
            ("(at c1 l1)", "(at c1 l1) (at c7 l1)"),
            "problem line 5",
            "unknown object 'c7' in :init",
            "did you mean 'c1' or 'c0'",
        ),
    ],
)
def test_problem_errors_have_line_column_and_a_typed_suggestion(edit, where, what, hint):
    """A swapped or misspelt name anywhere in the problem is an error with its location, never a
    silently different task (a type error in :init once read as 'proven unsolvable')."""
    domain, problem = FERRY
    bad = problem.replace(*edit, 1)
    assert bad != problem
    with pytest.raises(PddlError) as e:
        load_task(domain, bad)
    assert where in str(e.value) and what in str(e.value) and hint in str(e.value), str(e.value)


def test_did_you_mean_prefers_objects_of_the_right_type():
    t = load_task(*FERRY)
    with pytest.raises(UnknownNameError) as e:
        t.parse_action("(board c3 l1)")
    assert "did you mean 'c1' or 'c0'" in str(e.value) or "did you mean 'c0' or 'c1'" in str(e.value)
    assert "'l" not in str(e.value).split("did you mean")[1]


def test_errors_name_the_element_of_a_state_or_plan():
    t = load_task(*FERRY)
    with pytest.raises(UnknownNameError, match=r"^state\[1\]: unknown object 'c9'"):
        t.parse_state(["(at c0 l0)", "(at c9 l0)"])
    with pytest.raises(UnknownNameError, match=r"^plan\[2\]: unknown action 'sial'"):
        t.parse_plan(["(sail l0 l1)", "(sail l1 l0)", "(sial l0 l1)"])


def test_a_state_longer_than_the_task_is_refused_before_any_atom_is_read(monkeypatch):
    """3 million atoms (as list or as one string) for a task of a few dozen: refused at once with the
    task's own bound, no atom read; a state as long as the task has atoms (every fluent atom and true
    static fact once) is still read."""
    t = load_task(*FERRY)
    read: list[str] = []
    real = type(t.grounded).parse_atom
    monkeypatch.setattr(
        type(t.grounded), "parse_atom", lambda self, text, *a, **k: read.append(text) or real(self, text, *a, **k)
    )
    for huge in (["(at c0 l0)"] * 3_000_000, "(at c0 l0)" * 3_000_000):
        with pytest.raises(
            AcpError,
            match=r"^state: the state lists 3000000 atoms, more than this task has "
            rf"\({len(t.atoms)} fluent atoms and {len(t.static_true)} true static facts\)",
        ):
            t.questions.applicable(huge)
    assert read == []
    everything = t.atom_names + [f"({p} {' '.join(a)})" for p, a in sorted(t.static_true)]
    assert t.parse_state(everything) == (1 << len(t.atoms)) - 1 and len(read) == len(everything)


def test_every_plan_the_questions_return_is_action_names():
    q = load_task(*FERRY).questions
    h = q.h_star()
    assert h.known and h.h_star == len(h.plan) and all(a.startswith("(") for a in h.plan)
    assert q.validate(h.plan).goal_reached
    assert q.plan(optimal=False).witness and all(isinstance(a, str) for a in q.plan(optimal=False).witness)
    after = q.action_value(h.plan[0])
    assert after.h_star == h.h_star - 1 and q.validate(after.plan, q.progress(h.plan[0]).state).goal_reached


@pytest.mark.parametrize("name", ["join", "switches", "doors", "briefcase", *examples.names()])
def test_compiled_schemas_ground_exactly_like_the_general_path(name, monkeypatch):
    """Conjunctive schemas are compiled to lookups; the operators, atoms and their numbering are
    those of the general formula walk."""
    import acptools.ground.grounding as grounding

    texts = examples.texts(name) if name in examples.names() else pddl_texts(name)
    fast = load_task(*texts)
    monkeypatch.setattr(grounding._Template, "__init__", lambda self, schema, grounder: setattr(self, "ok", False))
    slow = load_task(*texts)
    assert fast.atom_names == slow.atom_names and fast.action_names == slow.action_names
    assert fast.operators == slow.operators
