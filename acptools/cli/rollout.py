"""`acptools rollout`: evaluate a policy over a set of tasks, every step graded against h*.

    acptools rollout --tasks PATH... --policy POLICY [--base-url URL] [--limit N [--per-domain]] [--show-applicable]
                     [--max-steps N] [--max-invalid K] [--max-errors K] [--out traces.jsonl] [--report report.json] [--plots DIR] [--html FILE] [--jobs N]
                     [--resume] [--seed S] [--budget CPU_SECONDS] [--prompts DIR] [--max-tokens N]
                     [--temperature T] [--timeout S] [--backend local|ray] [--address ADDR] [--quiet]

Exit codes: 0 every episode ran (to the goal, a dead end or a limit); 1 some episode ended by a policy error
or a task that did not load (--resume tries them again); 2 bad input, or a policy that cannot work at all
(a rejected key).
"""

from __future__ import annotations

import json
import sys
import time

from ..errors import AcpError
from ..rollout import defaults as D
from ..util.progress import Progress
from .common import (
    backend_flags,
    cache_flags,
    check_outputs,
    check_sample,
    fail,
    html_flag,
    interrupted,
    open_cache,
    write_html,
)

EXIT_OK, EXIT_INCOMPLETE, EXIT_INPUT = 0, 1, 2


def add_parser(sub):
    """Register `acptools rollout`."""
    r = sub.add_parser(
        "rollout",
        help="evaluate a model or agent as a policy: episodes graded step by step",
        description="Run a policy on planning tasks, one action per step, and grade every step "
        "against h*: applied or why not, optimal, regret. Prints solved rate, "
        "optimal-step rate, regret, plan length / h* and invalid replies per domain.",
    )
    r.add_argument("--tasks", nargs="+", action="extend", required=True, metavar="PATH", help=D.TASKS_HELP)
    r.add_argument("--policy", required=True, help=f"one of: {D.POLICY_FORMS}")
    r.add_argument(
        "--base-url",
        metavar="URL",
        help="the API endpoint of an openai: or anthropic: policy, e.g. "
        "http://localhost:8000/v1 (vLLM, Ollama, llama.cpp server)",
    )
    r.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="a sample: N tasks of each record task kind (tasks from PDDL files count as one kind), "
        "drawn with --seed and spread over the domains",
    )
    r.add_argument("--per-domain", action="store_true", help="with --limit: N per task kind in each domain")
    r.add_argument(
        "--show-applicable",
        action="store_true",
        help="list the applicable actions in each observation (an easier test)",
    )
    r.add_argument(
        "--max-steps",
        type=int,
        metavar="N",
        help=f"steps per episode, invalid replies included (default 2*h*+10; {D.MAX_STEPS_UNKNOWN} "
        "when h* of the start is unknown)",
    )
    r.add_argument(
        "--max-invalid",
        type=int,
        default=D.MAX_INVALID_REPLIES,
        metavar="K",
        help="end an episode after K invalid replies in a row (default %(default)s; 0: never)",
    )
    r.add_argument("--max-errors", type=int, default=D.MAX_ERRORS, metavar="K", help=D.MAX_ERRORS_HELP)
    r.add_argument("--out", metavar="traces.jsonl", help="one JSON row per step (and per episode)")
    r.add_argument("--report", metavar="report.json", help="figures overall and per domain")
    r.add_argument("--plots", metavar="DIR", help="PNG charts (needs matplotlib)")
    html_flag(r)
    r.add_argument("--jobs", type=int, default=1, metavar="N", help="episodes in flight at once (default 1)")
    r.add_argument(
        "--resume",
        action="store_true",
        help="skip the episodes already finished in --out (refused if a setting differs)",
    )
    r.add_argument("--force", action="store_true", help="overwrite an existing --out")
    r.add_argument(
        "--seed", type=int, default=0, help="seed of the random policy and of the --limit sample (default 0)"
    )
    r.add_argument(
        "--budget",
        type=float,
        default=D.BUDGET,
        metavar="CPU_SECONDS",
        help="CPU seconds to grade one step (h* searches; default %(default)g); a step not graded in time "
        "counts as unknown",
    )
    r.add_argument("--prompts", metavar="DIR", help="a folder with your own prompt templates (see docs/evaluating.md)")
    r.add_argument("--max-tokens", type=int, metavar="N", help="reply token limit for API policies")
    r.add_argument("--temperature", type=float, metavar="T", help="sampling temperature for API policies")
    r.add_argument(
        "--timeout",
        type=float,
        default=D.TIMEOUT,
        metavar="S",
        help="seconds an API request or a cmd: reply may take (default %(default)g)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    cache_flags(r)
    backend_flags(r)
    return r


def _check(args) -> None:
    if args.max_steps is not None and args.max_steps < 1:
        raise AcpError(f"--max-steps must be at least 1, got {args.max_steps}", "--max-steps")
    if args.max_invalid < 0:
        raise AcpError(f"--max-invalid must be 0 (no limit) or more, got {args.max_invalid}", "--max-invalid")
    if args.timeout <= 0:
        raise AcpError(f"--timeout must be positive, got {args.timeout}", "--timeout")
    check_sample(args)


def run(args) -> int:
    """Run `acptools rollout`. The engines load here, not when the parser is built."""
    from ..rollout.observations import Prompts
    from ..rollout.policies import make_policy
    from ..rollout.rollout_report import json_report, summarize, table, write_plots
    from ..rollout.run_episodes import RolloutConfig
    from ..rollout.run_episodes import run as run_episodes
    from ..rollout.start_states import load_tasks
    from ..rollout.traces import ERROR, POLICY_ERROR

    t0 = time.perf_counter()
    try:
        check_outputs(args)
        _check(args)
        config = RolloutConfig(
            show_applicable=args.show_applicable,
            max_steps=args.max_steps,
            max_invalid=args.max_invalid,
            budget=args.budget,
            jobs=args.jobs,
            seed=args.seed,
            prompts=Prompts.load(args.prompts),
            backend=args.backend,
            address=args.address,
            limit=args.limit,
            per_domain=args.per_domain,
        )
        tasks = config.select(load_tasks(*args.tasks))
        policy = make_policy(
            args.policy,
            base_url=args.base_url,
            seed=args.seed,
            budget=args.budget,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            timeout=args.timeout,
            max_errors=args.max_errors,
        )
        open_cache(args)
        result = run_episodes(
            tasks,
            policy,
            config,
            out=args.out,
            resume=args.resume,
            force=args.force,
            progress=Progress(enabled=not args.quiet, unit="episodes"),
        )
    except AcpError as e:  # FatalPolicyError included: the run cannot go on
        return fail(e, args)
    except KeyboardInterrupt:
        return _interrupted(args, len(tasks), t0)
    summary = summarize(result.rows)
    print(table(summary))
    failed = [e for e in result.episodes if e["ended"] in (POLICY_ERROR, ERROR)]
    print(
        f"\n{len(result.episodes)} episodes of {policy.name} on {len(tasks)} tasks in "
        f"{time.perf_counter() - t0:.1f} s (--jobs {args.jobs}); steps: {summary['overall']['steps']}; "
        f"unknown steps: {summary['overall']['unknown_steps']}; dead ends: {summary['overall']['dead_end_episodes']}; "
        f"failed episodes: {len(failed)}"
    )
    for e in failed[:10]:
        print(f"  {e['ended']}: {e['episode']} ({e['domain']}): {e['error']}")
    if failed:
        print("  (--resume runs the failed episodes again)")
    try:
        if args.out:
            print(f"traces -> {args.out}")
        if args.report:
            with open(args.report, "w", encoding="utf-8") as fh:
                json.dump(
                    json_report(summary, config.settings(policy), args.tasks, time.perf_counter() - t0), fh, indent=1
                )
            print(f"report -> {args.report}")
        if args.plots:
            print(f"plots -> {', '.join(write_plots(summary, result.rows, args.plots))}")
        write_html(args, rows=result.rows, source=args.out or "")
    except OSError as e:
        sys.stderr.write(f"acptools: error: cannot write {e.filename}: {e.strerror or e}\n")
        return EXIT_INPUT
    return EXIT_INCOMPLETE if failed else EXIT_OK


def _interrupted(args, total: int, t0: float) -> int:
    """Ctrl-C: the figures of the episodes that finished, and the exact command that goes on."""
    from ..rollout.rollout_report import summarize, table
    from ..rollout.traces import FINISHED, read_rows

    rows = []
    if args.out:
        try:
            rows = read_rows(args.out)
        except (OSError, AcpError):
            rows = []
    done = {r["episode"] for r in rows if r.get("kind") == "episode" and r.get("ended") in FINISHED}
    rows = [r for r in rows if r.get("kind") == "run" or r.get("episode") in done]
    return interrupted(
        args, table(summarize(rows)) if done else "", len(done), total, "episodes finished", "traces", t0
    )
