"""Mutation testing of the core on the modules a change touches: `python scripts/mutate.py acptools/episode.py`.

mutmut 3 (the `test` extra) copies the project into `mutants/`, plants one small bug at a time in the modules
named here and runs the tests that reach each mutated function; a mutant no test notices is a bug the suite
would let through. Each core module is mapped below to the fast test files that bear on it, so a run takes
minutes; the full suite would take hours per module. Results stay in `mutants/` (delete it to start afresh):
`mutmut results` lists the survivors, `mutmut show NAME` the change (docs/testing.md, "Mutation testing").
"""

import argparse
import dataclasses
import fnmatch
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

EPISODE_TESTS = ["tests/core/test_episode.py", "tests/environments/test_policy_session.py"]
STORE_TESTS = ["tests/core/test_store.py", "tests/core/test_store_security.py", "tests/core/test_task_store.py"]
QUESTION_TESTS = [
    "tests/core/test_core.py",
    "tests/core/test_partial_lists.py",
    "tests/core/test_nexta_bounds.py",
    "tests/core/test_reach_inherit.py",
    "tests/core/test_properties.py",
]
GRADER_TESTS = ["tests/scoring/test_scoring.py", "tests/scoring/test_answers.py", "tests/scoring/test_plan_credit.py"]
ENGINE_TESTS = [
    "tests/core/test_core.py",
    "tests/core/test_properties.py",
    "tests/core/test_lmcut.py",
    "tests/core/test_h2_exact.py",
    "tests/core/test_literal_h2.py",
    "tests/core/test_symmetry.py",
    "tests/core/test_nexta_table.py",
]
GROUND_TESTS = [
    "tests/core/test_core.py",
    "tests/core/test_derived.py",
    "tests/core/test_conditional.py",
    "tests/core/test_grounding_steps.py",
    "tests/core/test_lazy_grounding.py",
    "tests/core/test_effect_simplify.py",
    "tests/core/test_footprint.py",
    "tests/core/test_properties.py",
]

# Core modules (glob patterns, first match wins) -> the fast test files that bear on them.
TESTS_BY_MODULE = {
    "acptools/verdict.py": [
        "tests/core/test_nexta_bounds.py",
        "tests/core/test_truth_service.py",
        "tests/core/test_episode.py",
    ],
    "acptools/budget.py": [
        "tests/core/test_budget_accounting.py",
        "tests/core/test_budgets.py",
        "tests/core/test_reach_walks.py",
        "tests/core/test_partial_lists.py",
    ],
    "acptools/episode.py": EPISODE_TESTS,
    "acptools/proofs/grade_memo.py": ["tests/scoring/test_grade_memo.py"],
    "acptools/proofs/*.py": STORE_TESTS,
    "acptools/questions/*.py": QUESTION_TESTS,
    "acptools/scoring/exact.py": GRADER_TESTS,
    "acptools/scoring/reference.py": GRADER_TESTS,
    "acptools/scoring/plan_credit.py": ["tests/scoring/test_plan_credit.py"],
    "acptools/scoring/*.py": GRADER_TESTS + ["tests/scoring/test_cli.py"],
    "acptools/pddl/*.py": ["tests/core/test_pddl_errors.py", "tests/core/test_core.py", "tests/core/test_derived.py"],
    "acptools/ground/*.py": GROUND_TESTS,
    "acptools/engine/*.py": ENGINE_TESTS,
    "server/tools/*.py": [
        "tests/server/test_server_tools.py",
        "tests/server/test_server_states.py",
        "tests/server/test_server_inputs.py",
    ],
}

# One process, a fixed order; `mutants/` first on the path, so the tests import the mutated copy, not the checkout.
PYTEST_ARGS = ["-q", "-x", "-n", "0", "-p", "no:randomly", "-p", "no:cacheprovider", "-o", "pythonpath=mutants"]


def tests_for(module: str) -> list[str]:
    """The test files mapped to a core module; a module outside the core is refused by name."""
    for pattern, tests in TESTS_BY_MODULE.items():
        if fnmatch.fnmatch(module, pattern):
            return tests
    core = ", ".join(TESTS_BY_MODULE)
    raise SystemExit(f"mutate.py: {module} is not a core module (one of {core}); name a .py file of the core")


def mutant_pattern(module: str) -> str:
    """mutmut's name for the mutants of one file: its dotted path, then the mutated function."""
    return module.removesuffix(".py").removesuffix("/__init__").replace("/", ".") + ".*"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+", help="core .py files to mutate, e.g. acptools/episode.py")
    parser.add_argument("--workers", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--tests", nargs="*", help="test files to run instead of the mapped ones")
    parser.add_argument("--again", action="store_true", help="run every mutant again (after adding tests)")
    parser.add_argument("--mutant", action="append", default=[], help="run this mutant (a name or glob) again")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "mutation", help="where the runs live")
    return parser.parse_args(argv)


MUTMUT_INPUTS = ("acptools", "server", "tests", "pyproject.toml")  # what mutmut copies into mutants/
NOT_LINKED = MUTMUT_INPUTS + ("build", "mutants")


def scratch_root(modules: list[str], work: Path) -> Path:
    """A folder of its own per selection: mutmut keeps its copy and results in `mutants/` under the current
    folder and mutates a file only once per copy, so each selection gets one (kept, so a rerun resumes)."""
    root = work / "+".join(m.removesuffix(".py").replace("/", ".") for m in modules)
    (root / "mutants").mkdir(parents=True, exist_ok=True)
    for name in MUTMUT_INPUTS:
        if not (root / name).exists():
            (root / name).symlink_to(ROOT / name)
    # the server's folder is the package acptools_server: import it from the mutated copy too; the tests read
    # the rest of the checkout (benchmarks/, docs/, ...) beside their own copy, as they do beside the original
    links = {"acptools_server": "server"} | {
        p.name: p for p in ROOT.iterdir() if p.is_dir() and p.name[0] != "." and p.name not in NOT_LINKED
    }
    for name, target in links.items():
        if not (root / "mutants" / name).exists():
            (root / "mutants" / name).symlink_to(target)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    modules = [str(Path(m).resolve().relative_to(ROOT)) for m in args.modules]
    missing = [m for m in modules if not (ROOT / m).is_file()]
    if missing:
        raise SystemExit(f"mutate.py: no such file: {', '.join(missing)}")
    tests = args.tests or sorted({test for m in modules for test in tests_for(m)})
    root = scratch_root(modules, args.work.resolve())
    os.chdir(root)
    from mutmut import configuration
    from mutmut.__main__ import cli

    configuration._config = dataclasses.replace(
        configuration._load_config(),
        only_mutate=modules,
        pytest_add_cli_args=PYTEST_ARGS,
        pytest_add_cli_args_test_selection=tests,
    )
    print(f"mutating {', '.join(modules)} in {root} against {' '.join(tests)}", flush=True)
    # named mutants are run even when they have a result; unnamed, only those without one (new or changed code)
    again = [mutant_pattern(m) for m in modules] if args.again else args.mutant
    run = ["run", "--max-children", str(args.workers), *again]
    return cli.main(run, standalone_mode=False) or 0


if __name__ == "__main__":
    sys.exit(main())
