"""`acptools generate`: questions with proven answers from PDDL (acptools.generate).

    acptools generate (--domain D --problem P [P ...] | --example NAME) [--form hard|bool|mcq|arb] [--tasks T,T,...] [-n N]
                      [--seed S] --out records.jsonl [--nl TEMPLATES.json] [--budget CPU_SECONDS]
                      [--walk MIN:MAX] [--plan-share F] [--steps 1,5,10] [--jobs N] [--backend local|ray]
                      [--address ADDR] [--obfuscate] [--fluents KINDS] [--ramifications] [--paraphrase]
                      [--trivial-landmarks] [--quiet] [--resume | --force]
    acptools generate (--domain D | --example NAME) --nl-template nl.json [--force]

Exit codes: 0 every task got N records; 1 some task got fewer (the summary says why: the states tried
and what retired them); 2 bad input;
130 interrupted (the finished tasks' records are in --out; the message gives the command that resumes).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .. import examples
from ..errors import AcpError
from ..generate.fluent_kinds import KINDS, check_kinds
from ..generate.output import RecordsOut, digest
from ..generate.records import dumps, write_jsonl
from ..generate.run import ALIASES, TASKS, Options, check_tasks, generate
from ..generate.states import Difficulty
from ..generate.templates import load as load_templates
from ..generate.templates import starter_for
from ..util.progress import Progress
from ..util.runfile import check_fresh, resume_command
from .common import backend_flags, check_resume, fail


def add_parser(sub):
    """Register `acptools generate`."""
    g = sub.add_parser(
        "generate",
        help="generate questions with proven answers from PDDL",
        description="Generate fresh questions with proven answers from a PDDL domain and problems, in "
        "the forms of ACPBench Hard (hard), ACPBench yes/no (bool) and 4-choice (mcq), or "
        "ActionReasoningBench (arb). Same seed, same bytes.",
    )
    g.add_argument("--domain", metavar="D", help="PDDL domain file")
    g.add_argument("--problem", nargs="+", action="extend", metavar="P", help="PDDL problem file(s)")
    g.add_argument(
        "--example",
        metavar="NAME",
        help=f"a bundled example's domain and problem instead of --domain and --problem: {', '.join(examples.names())}",
    )
    g.add_argument(
        "--nl-template",
        metavar="nl.json",
        help="write a first natural-language template file for the domain (a phrase per predicate and "
        "action naming each parameter with its type) to edit and pass as --nl, and stop",
    )
    g.add_argument("--form", choices=tuple(TASKS), default="hard", help="question form (default hard)")
    g.add_argument(
        "--tasks",
        nargs="+",
        action="extend",
        metavar="T",
        help="tasks of the form, comma or space separated (default all): "
        + "; ".join(f"{f}: {','.join(ts)}" for f, ts in TASKS.items())
        + f" (arb aliases: {', '.join(sorted(ALIASES))})",
    )
    g.add_argument("-n", type=int, default=10, metavar="N", help="records per task (default 10)")
    g.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    g.add_argument("--out", metavar="records.jsonl", help="output JSONL file ('-': standard output)")
    g.add_argument(
        "--obfuscate",
        action="store_true",
        help="seeded random names for the domain, types, objects, predicates and actions (PlanBench's "
        "mystery variant); questions are written generically and each record keeps the mapping",
    )
    g.add_argument(
        "--fluents",
        default=",".join(KINDS),
        metavar="KIND,KIND,...",
        help="arb: the fluent kinds questions about fluents ask about, in turn (default all: "
        f"{','.join(KINDS)}); each record says which ('fluent_kind') and whether asked negatively",
    )
    g.add_argument(
        "--ramifications",
        action="store_true",
        help="arb: compile the domain so that fluents with a proven definition by another fluent are "
        "derived (:derived axioms); each context states the definitions",
    )
    g.add_argument(
        "--paraphrase",
        action="store_true",
        help="phrase each record with one of the template's paraphrases per predicate and action (seeded; "
        "the record says which, 'paraphrase'); answers are the same as without",
    )
    g.add_argument(
        "--trivial-landmarks",
        action="store_true",
        help="bool/mcq: landmark questions may ask about goal facts, as ACPBench v1's do (for "
        "comparability; by default only facts that are neither goal facts nor true in the state "
        "are asked, so the answer cannot be copied from the goal)",
    )
    g.add_argument(
        "--nl",
        metavar="TEMPLATES.json",
        help="natural-language template file for the domain (default: the shipped one for a bundled "
        "domain, else generic phrases like at(c0, l1))",
    )
    g.add_argument(
        "--budget",
        type=float,
        default=10.0,
        metavar="CPU_SECONDS",
        help="CPU seconds per proof (default 10); an item whose proof does not finish is dropped",
    )
    g.add_argument("--walk", default="1:20", metavar="MIN:MAX", help="random-walk lengths of the states (default 1:20)")
    g.add_argument(
        "--plan-share",
        type=float,
        default=0.5,
        metavar="F",
        help="share of states on optimal plans instead of random walks (default 0.5)",
    )
    g.add_argument(
        "--steps",
        default="1,5,10",
        metavar="K,K,...",
        help="ActionReasoningBench action-sequence lengths (default 1,5,10; 0 asks about the initial state itself)",
    )
    g.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="workers (default 1): each problem's states, then each task's records, run side by side; "
        "the output is the same",
    )
    g.add_argument("--quiet", action="store_true", help="no summary")
    g.add_argument(
        "--resume",
        action="store_true",
        help="keep the tasks finished in --out and make only the rest (refused if a setting differs)",
    )
    g.add_argument("--force", action="store_true", help="overwrite an existing --out")
    backend_flags(g)
    return g


def _ints(text: str, sep: str, flag: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x) for x in text.split(sep) if x.strip())
    except ValueError:
        raise AcpError(f"expected integers separated by {sep!r}, got {text!r}", flag) from None
    if not values or any(v < 0 for v in values):
        raise AcpError(f"expected non-negative integers, got {text!r}", flag)
    return values


def options(args) -> Options:
    """The generation Options from the command line (each flag checked, with a clear error)."""
    walk = _ints(args.walk, ":", "--walk")
    if len(walk) != 2 or walk[0] > walk[1]:
        raise AcpError(f"expected MIN:MAX with MIN <= MAX, got {args.walk!r}", "--walk", "e.g. --walk 1:20")
    steps = _ints(args.steps, ",", "--steps")  # 0: a question about the initial state itself
    if not 0 <= args.plan_share <= 1:
        raise AcpError(f"--plan-share must be between 0 and 1, got {args.plan_share}", "--plan-share")
    if not args.budget > 0:
        raise AcpError(f"--budget must be a positive number of CPU seconds, got {args.budget}", "--budget")
    if args.jobs < 1:
        raise AcpError(f"--jobs must be at least 1, got {args.jobs}", "--jobs")
    tasks = tuple(t for part in args.tasks or () for t in part.split(",") if t.strip()) or None
    nl = Path(args.nl) if args.nl else None
    if nl and args.obfuscate:
        raise AcpError(
            "--nl and --obfuscate contradict each other",
            "--obfuscate",
            "obfuscated records are written with generic phrases: drop --nl",
        )
    if args.paraphrase and args.obfuscate:
        raise AcpError(
            "--paraphrase would change nothing: obfuscated records are written with generic phrases, "
            "which have no paraphrases",
            "--paraphrase",
            "drop --paraphrase or --obfuscate",
        )
    try:
        fluents = check_kinds(args.fluents)
    except ValueError as e:
        raise AcpError(str(e), "--fluents", f"e.g. --fluents {','.join(KINDS[:2])}") from None
    if args.ramifications and args.form != "arb":
        raise AcpError(
            "--ramifications is a variant of the ActionReasoningBench form", "--ramifications", "add --form arb"
        )
    return Options(
        form=args.form,
        tasks=tasks,
        n=args.n,
        seed=args.seed,
        budget=args.budget,
        difficulty=Difficulty(walk, args.plan_share),
        steps=steps,
        nl=nl,
        obfuscate=args.obfuscate,
        fluents=fluents,
        ramifications=args.ramifications,
        paraphrase=args.paraphrase,
        trivial_landmarks=args.trivial_landmarks,
    )


def _summary(out, opt: Options, path: str) -> str:
    lines = []
    for task, made in out.made.items():
        dropped = out.dropped[task]
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(dropped.items())) if dropped else "none"
        short = f"  (SHORT of {opt.n})" if made < opt.n else ""
        lines.append(f"  {task:22s} {made:4d} records in {out.seconds[task]:7.2f} s; dropped: {why}{short}")
        if out.short.get(task):
            lines.append(f"  {'':22s} SHORT: {out.short[task]}")
    lines.append(f"{len(out.records)} {opt.form} records -> {path}")
    return "\n".join(lines)


def _stream(records, out: str) -> None:
    if out == "-":
        for r in records:
            sys.stdout.write(dumps(r) + "\n")
    else:
        write_jsonl(records, out)


def _settings(args, opt: Options, domain: Path, problems: list[Path]) -> dict:
    """What changes the records, by flag (a resumed run must match): the PDDL and templates by content."""
    if args.nl:
        load_templates(args.nl)  # a missing or broken file is named before anything is written
    nl = Path(args.nl).read_text(encoding="utf-8") if args.nl else None
    return {
        "--domain sha256": digest(domain.read_text(encoding="utf-8")),
        "--problem sha256": [digest(p.read_text(encoding="utf-8")) for p in problems],
        "--form": opt.form,
        "--tasks": list(check_tasks(opt.form, opt.tasks)),
        "-n": opt.n,
        "--seed": opt.seed,
        "--budget": opt.budget,
        "--walk": list(opt.difficulty.walk),
        "--plan-share": opt.difficulty.plan_share,
        "--steps": list(opt.steps),
        "--nl sha256": digest(nl) if nl is not None else None,
        **({"--obfuscate": True} if opt.obfuscate else {}),
        **({"--fluents": list(opt.fluents)} if opt.fluents != KINDS else {}),
        **({"--ramifications": True} if opt.ramifications else {}),
        **({"--paraphrase": True} if opt.paraphrase else {}),
        **({"--trivial-landmarks": True} if opt.trivial_landmarks else {}),
    }


def run(args) -> int:
    """Returns the exit code: 0 all tasks complete, 1 some task short, 2 bad input."""
    try:
        return _generate(args)
    except AcpError as e:
        return fail(e, args)


def pddl_files(args) -> tuple[Path, list[Path]]:
    """The domain file and problem files: --example NAME's, or --domain and --problem (each a file)."""
    if args.example is not None:
        if args.domain or args.problem:
            raise AcpError(
                "--example gives the domain and the problem", "--example", "drop --domain and --problem, or --example"
            )
        if args.example not in examples.names():
            raise AcpError(
                f"no bundled example {args.example!r}", "--example", f"examples: {', '.join(examples.names())}"
            )
        folder = examples.ROOT / args.example
        return folder / "domain.pddl", [folder / "problem.pddl"]
    if not args.domain:
        raise AcpError("no PDDL given", "acptools generate", "pass --domain D --problem P, or --example NAME")
    if not args.problem and not args.nl_template:
        raise AcpError("no problem file", "--problem", "pass --problem P [P ...] with --domain")
    domain, problems = Path(args.domain), [Path(p) for p in args.problem or ()]
    for p in [domain] + problems:
        if not p.is_file():
            hint = f"--example {p} is the bundled example of that name" if str(p) in examples.names() else ""
            raise AcpError(f"no such file: {p}", "--domain" if p is domain else "--problem", hint)
    return domain, problems


def nl_template(args, domain: Path) -> int:
    """--nl-template: write a first template file for the domain (refusing to overwrite one without --force)."""
    text = starter_for(domain.read_text(encoding="utf-8"))
    if args.nl_template == "-":
        sys.stdout.write(text)
        return 0
    check_fresh(args.nl_template, False, args.force, "--nl-template", resumable=False)
    Path(args.nl_template).write_text(text, encoding="utf-8")
    print(
        f"template -> {args.nl_template}: edit the description and the phrases ({{name}} is the parameter "
        f"?name), then pass --nl {args.nl_template}",
        file=sys.stderr,
    )
    return 0


def _generate(args) -> int:
    domain, problems = pddl_files(args)
    if args.nl_template:
        return nl_template(args, domain)
    if not args.out:
        raise AcpError("no output file", "--out", "pass --out records.jsonl ('-' for standard output)")
    opt = options(args)
    folder = Path(args.out).resolve().parent
    if args.out != "-" and not folder.is_dir():
        raise AcpError(f"folder {folder} does not exist", f"--out {args.out}", "create it first")
    check_resume(args, "generate")
    progress = Progress(enabled=not args.quiet, unit="records")
    if args.out == "-" or not Path(args.out).is_file() and Path(args.out).exists():  # '-', /dev/null: a stream
        out = generate(domain, problems, opt, args.jobs, args.backend, args.address, progress=progress)
        _stream(out.records, args.out)
    else:
        file = RecordsOut(args.out, _settings(args, opt, domain, problems), args.resume, args.force)
        try:
            out = generate(
                domain,
                problems,
                opt,
                args.jobs,
                args.backend,
                args.address,
                done=file.done,
                on_task=file.add,
                progress=progress,
            )
        except KeyboardInterrupt:
            file.close()
            print(
                f"interrupted: the records of {len(file.done)} finished task(s) are in {args.out}\n"
                f"resume with: {resume_command(args)}",
                file=sys.stderr,
            )
            return 130
        file.finish(out.records)
    if not args.quiet:
        sys.stderr.write(_summary(out, opt, args.out) + "\n")
    return 1 if any(m < opt.n for m in out.made.values()) else 0
