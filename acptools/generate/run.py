"""Generating a record set: states per problem, then questions per task until each task has N
records (or its attempts run out), every answer proven; what could not be built is counted."""

from __future__ import annotations

import math
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..backends import run_sharing_proofs
from ..claims import without_actions
from ..errors import AcpError
from ..kinds import ACP_TASKS, ARB_FAMILIES, FORMS, GENERATOR, cost, implementation, kind_of, kinds_of_form
from ..task import Task, task_key
from ..truth import task_for
from .attempts import States
from .balance import Ledger, slot
from .base import DUPLICATE, NO_KIND, Item, Skip
from .fluent_kinds import KINDS, classify
from .obfuscate import obfuscated_texts, rename
from .ramify import proven_definitions
from .ramify_pddl import compile_domain, compile_problem
from .records import make_record
from .render import Renderer
from .spread import BY_STATE, REPEATED, Spread
from .states import Difficulty, sample_states
from .templates import Templates, for_domain, paraphrased

TASKS = {"hard": kinds_of_form("hard"), "bool": ACP_TASKS, "mcq": ACP_TASKS, "arb": ARB_FAMILIES}
ALIASES = {
    "fluent": "fluent_tracking",
    "state": "state_tracking",
    "executability": "action_executability",
    "exec": "action_executability",
    "numerical": "numerical_reasoning",
    "count": "numerical_reasoning",
    "object": "object_tracking",
}
ATTEMPTS_PER_RECORD = 10
MISSES_PER_KIND = 1
FLUENT_FAMILIES = ("fluent_tracking", "state_tracking", "effects", "composite", "object_tracking")


@dataclass
class Options:
    """What to generate. `budget`: CPU seconds per proof (CPU, not wall time, so a busy machine
    drops no more items than a quiet one). `steps`: ActionReasoningBench sequence lengths. `obfuscate`:
    seeded random names for everything the PDDL declares, questions written generically (acptools.generate.obfuscate).
    `fluents`: the fluent kinds ActionReasoningBench questions about fluents ask about, in turn
    (acptools.generate.fluent_kinds). `ramifications`: the domain compiled so that fluents with a
    proven definition by another fluent are derived (acptools.generate.ramify), definitions stated
    in each context (ActionReasoningBench form only). `paraphrase`: each record phrased with one of the
    template's paraphrases per predicate and action, drawn from its own seeded stream (the answers are
    the same as without). `trivial_landmarks`: yes/no and 4-choice landmark questions may ask about
    goal facts (ACPBench v1's questions, for comparability; by default they ask only about facts that
    are neither goal facts nor true in the state, so the answer cannot be copied from the goal)."""

    form: str = "hard"
    tasks: tuple[str, ...] | None = None
    n: int = 10
    seed: int = 0
    budget: float = 10.0
    difficulty: Difficulty = field(default_factory=Difficulty)
    steps: tuple[int, ...] = (1, 5, 10)
    nl: str | Path | None = None
    obfuscate: bool = False
    fluents: tuple[str, ...] = KINDS
    ramifications: bool = False
    paraphrase: bool = False
    trivial_landmarks: bool = False


@dataclass
class Generated:
    """The records (task by task, in order) and, per task, how many were made, how many attempts
    were dropped and why, the seconds spent, and for each task that fell short of N, why (the states
    tried and what retired them). `skipped`: the tasks asked for that cannot be asked of these
    problems, and why (empty unless a form asks tasks a numeric problem cannot have)."""

    records: list[dict]
    made: dict[str, int]
    dropped: dict[str, Counter]
    seconds: dict[str, float]
    short: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def check_tasks(form: str, tasks) -> tuple[str, ...]:
    """The form's tasks asked for (aliases read, duplicates dropped), or all of them; AcpError for an unknown one."""
    if form not in FORMS:
        raise AcpError(f"unknown form {form!r}", "--form", f"forms: {', '.join(FORMS)}")
    if not tasks:
        return TASKS[form]
    out = []
    for t in tasks:
        name = ALIASES.get(t.strip().lower(), t.strip().lower()) if form == "arb" else t.strip().lower()
        if name not in TASKS[form]:
            raise AcpError(
                f"{t!r} is not a task of the {form} form", "--tasks", f"{form} tasks: {', '.join(TASKS[form])}"
            )
        out.append(name)
    return tuple(dict.fromkeys(out))


# the questions generated on a task with numeric fluents: every ACPBench task, its answers proven by
# exact numeric semantics (app, prog, val, just), witnesses from search over real states or proofs from
# the propositional projection or exhaustion (reach, areach, land, nexta, plan; unknown drops the
# attempt); of the ActionReasoningBench families, numerical reasoning (counts of facts and actions, and
# fluent values, by exact simulation); the others classify and track fluents as atoms alone
NUMERIC_TASKS = {"hard": TASKS["hard"], "bool": ACP_TASKS, "mcq": ACP_TASKS, "arb": ("numerical_reasoning",)}
NUMERIC_REASON = (
    "unsupported on a task with numeric fluents (of the ActionReasoningBench families only numerical_reasoning "
    "is asked there: the others read fluents as atoms alone)"
)


def numeric_tasks(form: str, wanted: tuple[str, ...], tasks) -> tuple[tuple[str, ...], dict[str, str]]:
    """The wanted tasks that can be asked of `tasks`, and {task: why} for those skipped (on a numeric
    problem, those NUMERIC_TASKS leaves out); AcpError when none of them can be asked."""
    if all(t.grounded.numeric is None for t in tasks):
        return wanted, {}
    kept = tuple(name for name in wanted if name in NUMERIC_TASKS[form])
    skipped = {name: NUMERIC_REASON for name in wanted if name not in kept}
    if not kept:
        raise AcpError(
            f"none of the {form} tasks asked for ({', '.join(wanted)}) can be asked of a task with numeric fluents",
            "--tasks",
            f"on numeric tasks the {form} form asks: {', '.join(NUMERIC_TASKS[form]) or 'nothing yet'}"
            + ("" if NUMERIC_TASKS[form] else "; use --form hard, bool or mcq"),
        )
    return kept, skipped


def _text(x, what: str) -> tuple[str, str]:
    if isinstance(x, Path):
        try:
            return x.read_text(encoding="utf-8"), str(x)
        except OSError as e:
            raise AcpError(f"cannot read: {e.strerror or e}", str(x)) from None
    return x, what


def load_tasks(domain, problems) -> list[Task]:
    """Parse and ground each problem with the domain (PDDL text or Paths); errors name the file."""
    dtext, ptexts = read_texts(domain, problems)
    return [_load(dtext, ptext, where) for ptext, where in ptexts]


def read_texts(domain, problems) -> tuple[str, list[tuple[str, str]]]:
    """The domain's PDDL text and each problem's (text, where), read from files when given Paths."""
    dtext, dwhere = _text(domain, "domain")
    if not problems:
        raise AcpError("no problem given", "--problem", "pass one or more PDDL problem files")
    return dtext, [
        (ptext, f"{dwhere} + {pwhere}") for k, p in enumerate(problems) for ptext, pwhere in [_text(p, f"problem[{k}]")]
    ]


def _load(dtext: str, ptext: str, where: str = "") -> Task:
    try:
        return task_for(dtext, ptext)  # shared (cached) tasks: proofs are reused across calls
    except AcpError as e:
        raise AcpError(f"{e}", where) from None


def builder(form: str, task: str):
    """The registered question builder of a form's task (acptools.kinds)."""
    return implementation(GENERATOR, kind_of(form, task))


def generate(
    domain,
    problems,
    options: Options | None = None,
    jobs: int = 1,
    backend: str = "local",
    address: str | None = None,
    done: dict | None = None,
    on_task=None,
    progress=None,
) -> Generated:
    """Records of one form for a domain and its problems (PDDL texts or Paths; one problem may be
    given alone), every answer proven. The work runs as independent units on `backend` with `jobs`
    workers (acptools.backends): first each problem's states, then each task's records; the output
    is the same bytes whichever backend and however many jobs. `done`: {task: its records} of an
    earlier run with the same options (not made again: each task's records depend only on the
    options); `on_task(task, records)` is called as each task's records are made. `progress` (an
    acptools.util.progress.Progress, or anything with its `note(text)` and `(done, total)`) hears of the
    states drawn, each record made (in this process; with several workers, each task finished)
    and each task finished."""
    done = dict(done or {})
    opt = options or Options()
    if isinstance(problems, (str, Path)):
        problems = [problems]
    tasks_wanted = check_tasks(opt.form, opt.tasks)
    if opt.n < 1:
        raise AcpError(f"-n must be at least 1, got {opt.n}", "-n")
    dtext, ptexts = read_texts(domain, problems)
    tasks = [_load(dtext, ptext, where) for ptext, where in ptexts]  # here too: bad PDDL fails early
    tasks_wanted, skipped = numeric_tasks(opt.form, tasks_wanted, tasks)
    marks: list = [None] * len(tasks)
    ramified = None
    if opt.ramifications:
        if opt.form != "arb":
            raise AcpError(
                "--ramifications is a variant of the ActionReasoningBench form", "--ramifications", "add --form arb"
            )
        dtext, ptexts, ramified = _ramify(tasks, ptexts)
        tasks = [_load(dtext, ptext, where) for ptext, where in ptexts]
    if opt.obfuscate:
        dtext, obfuscated, marks = obfuscated_texts(tasks, opt.seed)
        ptexts = [(ptext, where) for ptext, (_, where) in zip(obfuscated, ptexts, strict=True)]
        tasks = [_load(dtext, ptext, where) for ptext, where in ptexts]
        templates = [Templates(t.domain.name) for t in tasks]  # phrases would give the names away
        if ramified is not None:
            names = {kind: m for kind, m in marks[0].items() if kind != "seed"}
            ramified = {
                **ramified,
                "ramified": [rename(p, names) for p in ramified["ramified"]],
                "definitions": [_rename_atoms(t, names) for t in ramified["definitions"]],
            }
    else:
        templates = [for_domain(t.domain, opt.nl) for t in tasks]
    keys = [task_key(dtext, ptext) for ptext, _ in ptexts]
    count = states_per_problem(opt.n, len(tasks))
    order = sorted(range(len(tasks)), key=lambda k: -len(ptexts[k][0]))  # largest first
    pools: list = [None] * len(tasks)
    report = _Report(progress, opt.n * len(tasks_wanted), sum(len(made) for made in done.values()))
    for name, why in skipped.items():
        report.note(f"  {name}: skipped: {why}")
    report.note(
        f"drawing the states of {len(tasks)} problem(s), then {opt.n} {opt.form} records for each of "
        f"{len(tasks_wanted)} task(s)"
    )
    for k, pool in run_sharing_proofs(
        _states_unit,
        [(k, dtext, ptexts[k][0], count, opt) for k in order],
        [[keys[k]] for k in order],
        jobs,
        backend,
        address,
    ):
        pools[k] = pool
        report.note(f"states of problem {k + 1}/{len(tasks)}: {len(pool)} drawn")
    problem_texts = [ptext for ptext, _ in ptexts]
    order = sorted((t for t in tasks_wanted if t not in done), key=lambda name: -cost(kind_of(opt.form, name)))
    done = {name: (made, Counter(), 0.0, "") for name, made in done.items()}
    tick = report.tick if jobs <= 1 and backend == "local" else None  # a worker's records are seen as it ends
    for name, made, dropped, seconds, short in run_sharing_proofs(
        _records_unit,
        [(name, opt, dtext, problem_texts, templates, pools, marks, ramified, tick) for name in order],
        [keys] * len(order),
        jobs,
        backend,
        address,
    ):
        done[name] = made, dropped, seconds, short
        report.finished(name, len(made), sum(dropped.values()), seconds, short)
        if on_task:
            on_task(name, made)
    out = Generated([], {}, {}, {}, skipped=skipped)
    for name in tasks_wanted:  # the tasks' order, whichever unit finished first
        made, out.dropped[name], out.seconds[name], short = done[name]
        out.records.extend(made)
        out.made[name] = len(made)
        if short:
            out.short[name] = short
    return out


# a scheduling guess (largest first): the tasks that need optimal plans, then searches, then the rest


def _states_unit(args) -> tuple[int, list]:
    """One problem's states (a unit of work)."""
    k, dtext, ptext, count, opt = args
    return k, sample_states(
        _load(dtext, ptext), count, random.Random(f"{opt.seed}/states/{k}"), opt.difficulty, opt.budget
    )


def _records_unit(args) -> tuple[str, list[dict], Counter, float, str]:
    """One task's records over every problem (a unit of work): the records, the attempts dropped
    and why, the seconds it took, and why it fell short ('' when it did not)."""
    name, opt, dtext, problem_texts, templates, pools, marks, ramified, tick = args
    t0 = time.perf_counter()
    tasks = [_load(dtext, ptext) for ptext in problem_texts]
    renders = [Renderer(t, tpl) for t, tpl in zip(tasks, templates, strict=True)]
    made, dropped, short = _one_task(opt, name, tasks, renders, pools, marks, ramified, tick)
    return name, made, dropped, round(time.perf_counter() - t0, 3), short


def states_per_problem(n: int, problems: int) -> int:
    """States drawn per problem: twice the records each problem gives a task, and a few spare."""
    return 2 * math.ceil(n / problems) + 4


def ask_kind(item: Item, kinds, wanted, index: int, misses: int, family: str) -> None:
    """Set the fluent kind record `index` asks about: the wanted kinds the task has, in turn, two
    records each (one true, one false), asked positively and negatively in turn so that every 2K
    pairs ask each of the K kinds both ways (each family starts a pair further on, so a few records of
    every family together cover them; object tracking asks only about kinds with arguments); after every MISSES_PER_KIND
    failed attempts the next kind is tried (a state may offer nothing of a kind)."""
    hidden = item.render.templates.hidden
    available = tuple(
        k
        for k in kinds.available(wanted, about_objects=family == "object_tracking")
        if k != "static" or any(p not in hidden for p in kinds.predicates("static"))
    )
    if not available:
        raise Skip(NO_KIND)
    item.kinds = kinds
    pair, k = index // 2 + FLUENT_FAMILIES.index(family), len(available)
    item.fluent_kind = available[(pair + misses // MISSES_PER_KIND) % k]
    item.negative = (pair + (pair // k if k % 2 == 0 else 0)) % 2 == 1
    if item.fluent_kind == "constrained":
        item.notes = (
            "In every state these constraints hold: "
            + "; ".join(c.text(item.task.domain.predicates[p].params) for p, c in sorted(kinds.constraints.items()))
            + ".",
        )


def _ramify(tasks, ptexts) -> tuple[str, list[tuple[str, str]], dict]:
    """The domain and problems compiled with every proven definition, and what the records say of it."""
    defs = proven_definitions(tasks)
    if not defs:  # nothing to compile: the PDDL as it was given
        return tasks[0].domain_text, ptexts, {"ramified": [], "definitions": []}
    dtext = compile_domain(tasks[0].written_domain_text, defs)
    ptexts = [
        (compile_problem(t.problem_for(t.init), defs), where) for t, (_, where) in zip(tasks, ptexts, strict=True)
    ]
    return dtext, ptexts, {"ramified": [d.predicate for d in defs], "definitions": [d.text() for d in defs]}


def _rename_atoms(text: str, mapping: dict) -> str:
    """A definition's text with its PDDL atoms and variables obfuscated (the prose kept)."""
    return re.sub(r"\([^()]*\)|\?[^\s(),;]+", lambda m: rename(m.group(), mapping), text)


def _ramification_fields(draft, ramified) -> None:
    """The record says whether the domain was compiled, which fluents, and its context states how."""
    if draft.extra.get("form") != "arb":
        return
    draft.extra["ramifications"] = ramified is not None
    if ramified is not None:
        draft.extra["ramified"] = ramified["ramified"]
        if ramified["definitions"]:
            draft.context += (
                " Some facts follow from others in every state (they change only through them): "
                + "; ".join(ramified["definitions"])
                + "."
            )


class _Report:
    """What `generate` tells its `progress`: records made out of all wanted, as they come."""

    def __init__(self, progress, total: int, done: int):
        self.progress, self.total, self.done, self.current = progress, total, done, 0

    def note(self, text: str) -> None:
        """A line of text (states drawn, a task finished)."""
        if self.progress is not None:
            self.progress.note(text)

    def tick(self, made: int) -> None:
        """The task being made has `made` records so far."""
        self.current = made
        if self.progress is not None:
            self.progress(self.done + made, self.total)

    def finished(self, name: str, made: int, dropped: int, seconds: float, short: str = "") -> None:
        """A task's records are all made (or it fell short, and `short` says why)."""
        seen, self.current = self.current, 0
        self.done += made
        self.note(
            f"  {name}: {made} records in {seconds:.1f} s ({dropped} attempts dropped)"
            + (f"; SHORT: {short}" if short else "")
        )
        if self.progress is not None and seen != made:  # not told record by record (a worker made them)
            self.progress(self.done, self.total)


def _one_task(
    opt: Options, name: str, tasks, renders, pools, marks, ramified, tick=None
) -> tuple[list[dict], Counter, str]:
    """One task's records: attempts in states taken in turn (acptools.generate.attempts), until N
    records are made, the attempts run out or no state is left; with the attempts dropped (by
    reason) and, when the task fell short, why. Records passed over only because their answer
    would repeat too often (acptools.generate.spread) are kept aside and, when the states run out
    first, the least repeating of them complete the task."""
    build = builder(opt.form, name)
    kinds = [classify(t) for t in tasks] if opt.form == "arb" and name in FLUENT_FAMILIES else None
    far = opt.form == "hard" and name in BY_STATE
    states, ledger, spread = States(pools, tasks, name, opt, plans=far), Ledger(), Spread()
    made: list[dict] = []
    ids: set[int] = set()
    dropped: Counter = Counter()
    aside: list = []  # ((problem, draft), its right answers and chance) over the spread's limit
    misses, last = 0, -1  # failed attempts since the last record was made, and how many were made then
    yes_no, acted = 0, 0  # yes/no records made, and those of them about facts after some actions
    for attempt in range(ATTEMPTS_PER_RECORD * opt.n + 20):
        if len(made) >= opt.n or states.next() is None:
            break
        misses = misses + 1 if len(made) == last else 0
        last = len(made)
        k = states.current.problem
        item = _item(opt, name, tasks[k], states.current.state, renders[k], attempt, len(made), yes_no, acted)
        item.ledger, ledger.pending, item.spread, spread.pending = ledger, None, spread, None
        try:
            if kinds is not None:
                ask_kind(item, kinds[k], opt.fluents, len(made), misses, name)
            draft = build(item)
            _extra_fields(draft, item, ramified, marks[k])
            record = make_record(tasks[k], draft)
            if record["id"] in ids:
                raise Skip(DUPLICATE)
            if not spread.fits():
                aside.append(((k, draft), spread.pending))
                raise Skip(REPEATED)
        except Skip as e:
            dropped[e.reason] += 1
            states.failed(e.reason)
            continue
        states.made()
        ledger.commit()
        spread.commit()
        ids.add(record["id"])
        made.append(record)
        yes_no += _answers_yes_no(record)
        acted += _answers_yes_no(record) and _about_acted_facts(record)
        if tick is not None:
            tick(len(made))
    for k, draft in spread.least_repeating(aside, opt.n - len(made)):
        made.append(make_record(tasks[k], draft))
    return made, dropped, "" if len(made) >= opt.n else states.shortfall(len(made), opt.n)


def _answers_yes_no(record: dict) -> bool:
    """Is the record's answer yes/no (True/False)?"""
    spec = record.get("spec")
    return isinstance(spec, dict) and spec.get("answer_type") == "bool"


def _about_acted_facts(record: dict) -> bool:
    """Does the record's claim ask about facts after some actions (facts that may have changed:
    not static ones)?"""
    return without_actions(record["spec"].get("claim")) is not None and record.get("fluent_kind") != "static"


def _item(
    opt: Options, name: str, task, state: int, render, attempt: int, index: int, yes_no: int = 0, acted: int = 0
) -> Item:
    """The item of one attempt: its seeded generator, the answer a yes/no question should have (in
    turn over the task's `yes_no` records so far) and whether it asks about facts the actions left
    unchanged (two records in turn over the `acted` ones so far, those about facts after actions:
    every four of them ask both ways with both answers when they are all), the right option's
    letter, and the paraphrases drawn for it."""
    item = Item(
        task,
        state,
        random.Random(f"{opt.seed}/{opt.form}/{name}/{attempt}"),
        render,
        opt.budget,
        target=yes_no % 2 == 0,
        steps=opt.steps,
        slot=slot(f"{opt.seed}/{opt.form}/{name}", index),
        index=index,
        trivial_landmarks=opt.trivial_landmarks,
        unchanged=acted // 2 % 2 == 1,
    )
    if opt.paraphrase:
        templates, item.phrased = paraphrased(render.templates, random.Random(f"{opt.seed}/paraphrase/{attempt}"))
        item.render = Renderer(task, templates)
    return item


def _extra_fields(draft, item: Item, ramified, marks) -> None:
    """The fields a variant adds to every record: ramifications, paraphrases, obfuscation."""
    _ramification_fields(draft, ramified)
    if item.phrased is not None:
        draft.extra["paraphrase"] = item.phrased
    if marks is not None:
        draft.extra["obfuscation"] = marks
