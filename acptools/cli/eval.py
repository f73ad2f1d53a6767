"""`acptools eval`: ask a model every question of a record set and grade its replies.

    acptools eval --data SOURCE... --policy POLICY [--base-url URL] [--with-pddl] [--limit N [--per-domain] [--seed S]]
                  [--jobs N] [--max-errors K]
                  [--out items.jsonl] [--report report.json] [--html report.html] [--resume | --force] [--semantics exact|reference]
                  [--budget CPU_SECONDS] [--max-tokens N] [--temperature T] [--timeout S] [--price IN,OUT] [--quiet]
    (SOURCE as for `acptools score`: acpbench-hard[:dev|test][:TASK], hf:acpbench-hard[...], or files and
     folders of records, those of `acptools generate` in every form included)

Exit codes: 0 every item graded; 1 some item ended unknown or in error (a reply that could not be had:
--resume asks it again); 2 bad input, or a policy that cannot work at all; 130 interrupted (the items
graded so far are in --out; the message gives the command that resumes).
"""

from __future__ import annotations

import json
import time

from ..errors import AcpError
from ..rollout.defaults import MAX_ERRORS, MAX_ERRORS_HELP, TIMEOUT
from ..util.progress import Progress
from .common import (
    EXIT_CHECK,
    EXIT_OK,
    cache_flags,
    check_outputs,
    check_resume,
    check_sample,
    fail,
    html_flag,
    open_cache,
    write_html,
)
from .common import interrupted as common_interrupted


def add_parser(sub):
    """Register `acptools eval`."""
    e = sub.add_parser(
        "eval",
        help="ask a model every question of a record set and grade its replies",
        description="Ask a model (an API, a command or a Python function) every question of ACPBench "
        "Hard or of generated records, with the benchmark's own prompts, and grade each "
        "reply exactly; prints accuracy, mean IoU and unknowns per task x domain.",
    )
    e.add_argument(
        "--data",
        nargs="+",
        action="extend",
        required=True,
        metavar="SOURCE",
        help="acpbench-hard[:dev|test][:TASK] (bundled), hf:acpbench-hard[...] (pip install "
        "'acptools[hf]'), or files or folders of records (acptools generate output in any form)",
    )
    e.add_argument(
        "--policy",
        required=True,
        help="openai:MODEL, anthropic:MODEL, cmd:COMMAND or python:MODULE:FUNCTION (as for acptools rollout)",
    )
    e.add_argument(
        "--base-url",
        metavar="URL",
        help="the API endpoint of an openai: or anthropic: policy, e.g. "
        "http://localhost:8000/v1 (vLLM, Ollama, llama.cpp server)",
    )
    e.add_argument(
        "--with-pddl",
        action="store_true",
        dest="pddl",
        help="ACPBench Hard's _with_pddl prompts (the PDDL domain and problem before the question)",
    )
    e.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="a sample: N records of each task, drawn at random (--seed) and spread over the task's "
        "domains; the tasks start at different domains, so all of them are covered",
    )
    e.add_argument(
        "--per-domain", action="store_true", help="with --limit: N records of each task in each domain (an even split)"
    )
    e.add_argument("--seed", type=int, default=0, metavar="S", help="the --limit sample's seed (default 0)")
    e.add_argument("--jobs", type=int, default=4, metavar="N", help="questions in flight at once (default 4)")
    e.add_argument("--max-errors", type=int, default=MAX_ERRORS, metavar="K", help=MAX_ERRORS_HELP)
    e.add_argument(
        "--out",
        metavar="items.jsonl",
        help="one JSON row per graded item, written as each is graded (its settings in items.jsonl.run.json)",
    )
    e.add_argument("--report", metavar="report.json", help="summary per model x task x domain, tokens and cost")
    e.add_argument(
        "--resume",
        action="store_true",
        help="keep the items graded in --out and ask only the rest (refused if a setting differs)",
    )
    e.add_argument("--force", action="store_true", help="overwrite an existing --out")
    e.add_argument(
        "--semantics",
        choices=("exact", "reference"),
        default="exact",
        help="exact: computed from the PDDL (default); reference: the published lm-eval scorer",
    )
    e.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="CPU_SECONDS",
        help="CPU seconds per proof when grading (default 60); an item still unknown is graded once "
        "more with 4x the effort",
    )
    e.add_argument("--max-tokens", type=int, metavar="N", help="reply token limit for API policies")
    e.add_argument("--temperature", type=float, metavar="T", help="sampling temperature for API policies")
    e.add_argument(
        "--price",
        metavar="IN,OUT",
        help="what a million input and output tokens cost, e.g. 0.15,0.60: each item's cost from its "
        "tokens where the API reports no cost of its own (the items say which: cost_from)",
    )
    e.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="S",
        help="seconds an API request or a cmd: reply may take (default %(default)g)",
    )
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    html_flag(e)
    cache_flags(e)
    return e


def _check(args) -> None:
    check_resume(args, "eval")
    check_sample(args)
    args.price = price(args.price)
    if args.timeout <= 0:
        raise AcpError(f"--timeout must be positive, got {args.timeout}", "--timeout")
    if args.policy in ("optimal", "random"):
        raise AcpError(
            f"the {args.policy} policy chooses actions in rollouts; it answers no questions",
            f"--policy {args.policy}",
            "use openai:MODEL, anthropic:MODEL, cmd:COMMAND or python:MODULE:FUNCTION",
        )


def price(text: str | None) -> tuple[float, float] | None:
    """--price IN,OUT as two non-negative numbers."""
    if text is None:
        return None
    parts = text.split(",")
    try:
        values = tuple(float(x) for x in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or not all(v >= 0 for v in values):
        raise AcpError(
            f"expected two non-negative numbers IN,OUT, got {text!r}",
            "--price",
            "the price of a million input and of a million output tokens, e.g. --price 0.15,0.60",
        )
    return values


def records_of(args) -> list[dict]:
    """The records --data names; with --limit, the seeded sample of each task (acptools.dataset.sample)."""
    from ..dataset import load_records, sample

    records = load_records(*args.data)
    if not records:
        raise AcpError(
            "no records found",
            "--data " + " ".join(args.data),
            "pass acpbench-hard:test (the bundled copy), or record files or folders",
        )
    if args.limit is None:
        return records
    return sample(records, args.limit, seed=args.seed, per_domain=args.per_domain)


def run(args) -> int:
    """Ask, grade, print the table, write --out and --report; on Ctrl-C the summary so far and the
    command that resumes."""
    from ..evaluation import EvalConfig, evaluate
    from ..rollout.policies import make_policy

    t0 = time.perf_counter()
    try:
        check_outputs(args)
        _check(args)
        records = records_of(args)
        policy = make_policy(
            args.policy,
            base_url=args.base_url,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            timeout=args.timeout,
            max_errors=args.max_errors,
        )
        config = EvalConfig(
            pddl=args.pddl, semantics=args.semantics, budget=args.budget, jobs=args.jobs, price=args.price
        )
        settings = config.settings(policy, args.data, args.limit, args.per_domain, args.seed)
        open_cache(args)
        progress = Progress(enabled=not args.quiet, unit="questions")
        items = evaluate(
            records,
            policy,
            config,
            out=args.out,
            settings=settings,
            resume=args.resume,
            force=args.force,
            progress=progress,
        )
    except AcpError as e:  # FatalPolicyError included: the run cannot go on (EndpointDown: say how to resume)
        return fail(e, args)
    except KeyboardInterrupt:
        return interrupted(args, _items_so_far(args), len(records), t0)
    return finish(args, items, records, t0)


def _items_so_far(args) -> list[dict]:
    from ..util.runfile import read_jsonl

    if not args.out:
        return []
    try:
        return read_jsonl(args.out)
    except (OSError, AcpError):
        return []


def interrupted(args, items: list[dict], total: int, t0: float) -> int:
    """Ctrl-C: the summary of what was graded, and the exact command that goes on from there."""
    from ..scoring import score_report

    table = score_report.table(score_report.summarize(items)) if items else ""
    return common_interrupted(args, table, len(items), total, "questions graded", "items", t0)


def usage_totals(items: list[dict]) -> dict:
    """Tokens and cost summed over the items whose API reported them, and how many did."""
    out = {}
    for key in ("input_tokens", "output_tokens", "cost"):
        values = [it[key] for it in items if isinstance(it.get(key), (int, float))]
        out[key] = (round(sum(values), 6) if key == "cost" else sum(values)) if values else None
        out[f"{key}_reported"] = len(values)
    return out


def sample_note(args) -> str:
    """What --limit drew: 'a sample of 3 records per task (seed 0)'."""
    per = "per task and domain" if args.per_domain else "per task"
    return f"a sample of {_count(args.limit, 'record')} {per} (seed {args.seed})"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def finish(args, items: list[dict], records: list[dict], t0: float) -> int:
    """Print the summary table and totals of an eval run, write --report if asked; EXIT_CHECK when
    some answer is unknown or an item failed, else EXIT_OK."""
    from ..scoring import score_report
    from ..verdict import Grade

    wall = time.perf_counter() - t0
    summary = score_report.summarize(items)
    print(score_report.table(summary))
    usage = usage_totals(items)
    unknown = sum(1 for it in items if it["verdict"] == "unknown")
    errors = [it for it in items if it["verdict"] == Grade.ERROR]
    print(
        f"\n{len(items)} questions of {len(records)} asked of {args.policy} and graded with {args.semantics} "
        f"semantics in {wall:.1f} s (--jobs {args.jobs}); unknown: {unknown}; errors: {len(errors)}"
        + (
            f"; tokens in/out: {usage['input_tokens']}/{usage['output_tokens']}"
            if usage["input_tokens_reported"]
            else ""
        )
        + (f"; cost: {usage['cost']}" if usage["cost_reported"] else "")
    )
    promised = sum(1 for it in items if it.get("with_pddl")) if not args.pddl else 0
    if promised:
        print(f"{promised} records say their PDDL is given with the question: they were asked with it")
    if args.limit is not None:
        print(
            f"{sample_note(args)} over {_count(len({it.get('domain') for it in items}), 'domain')}, not the whole set"
        )
    for it in errors[:10]:
        print(f"  error: {it['task']}/{it['id']}: {it['reason']}")
    if any(it.get("reply_error") for it in errors):
        print("  (--resume asks the questions without a reply again)")
    if args.out:
        print(f"items -> {args.out}")
    if args.report:
        doc = score_report.json_report(
            summary,
            items,
            semantics=args.semantics,
            budget=args.budget,
            jobs=args.jobs,
            data=args.data,
            responses=args.policy,
            seconds=wall,
        )
        doc.update(
            command="eval",
            policy=args.policy,
            with_pddl=args.pddl,
            usage=usage,
            out=args.out,
            sample=None
            if args.limit is None
            else {"limit": args.limit, "per_domain": args.per_domain, "seed": args.seed},
        )
        try:
            with open(args.report, "w", encoding="utf-8") as fh:
                json.dump(doc, fh, indent=1, default=str)
        except OSError as e:
            return fail(AcpError(f"cannot write: {e.strerror or e}", f"--report {args.report}"))
        print(f"report -> {args.report}")
    try:
        write_html(args, items=items, source=args.out or "")
    except OSError as e:
        return fail(AcpError(f"cannot write: {e.strerror or e}", f"--html {args.html}"))
    return EXIT_CHECK if unknown or errors else EXIT_OK
