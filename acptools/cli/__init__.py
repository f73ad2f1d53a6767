"""The `acptools` command line: one module per subcommand, each with `add_parser(sub)` and `run(args)`.

    acptools eval ...       ask a model every question of a record set, graded (acptools.cli.eval)
    acptools score ...      grade free-text answers (acptools.cli.score)
    acptools cache ...      the proof store: stats, verify, clear (acptools.cli.cache)
    acptools rollout ...    a policy's episodes, graded step by step (acptools.cli.rollout)
    acptools report ...     one HTML page from their outputs (acptools.cli.report)
    acptools export ...     lm-eval task configs for any record file (acptools.cli.export)
    acptools generate ...   questions with proven answers from PDDL (acptools.cli.generate)
    acptools audit ...      trivial answerers scored beside chance on a record set (acptools.cli.audit)
    acptools serve ...      the MCP server, as acptools-server (acptools.cli.serve)
    acptools demo           all eight questions about a bundled example (acptools.cli.demo)
    acptools examples       the bundled example tasks (acptools.cli.demo)

Exit codes: 0 done; 1 a check failed or some item ended unknown, in error or short (each command
says which); 2 bad input (the message says what, where, and what to do); 130 interrupted.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys

from .. import __version__
from .common import EXIT_INPUT, EXIT_OK, Parser

# subcommand name -> the module (":attribute") that registers and runs it; the order is the order of
# `acptools --help`. Modules are imported only when their command is run (or all of them are listed),
# so a quick command does not pay for every other command's imports.
COMMANDS = {
    "eval": "eval",
    "score": "score",
    "cache": "cache",
    "rollout": "rollout",
    "generate": "generate",
    "audit": "audit",
    "report": "report",
    "export": "export",
    "serve": "serve",
    "demo": "demo",
    "examples": "demo:Examples",
}


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def command(name: str):
    """The module (or class) of one subcommand: it has `add_parser(sub)` and `run(args)`."""
    module, _, attribute = COMMANDS[name].partition(":")
    loaded = importlib.import_module(f".{module}", __name__)
    return getattr(loaded, attribute) if attribute else loaded


def parser(only: str | None = None) -> Parser:
    """The command line: every subcommand's parser, registered by its own module (just `only`'s when
    that names a subcommand)."""
    p = Parser(prog="acptools", description="Proven answers about PDDL planning tasks; a scorer for model answers.")
    p.add_argument("--version", action="version", version=f"acptools {__version__}")
    p.add_argument(
        "--log-level",
        type=str.upper,
        choices=LOG_LEVELS,
        default=None,
        help="log to stderr from this level on (DEBUG: each grounding step and search, timed)",
    )
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    for name in [only] if only in COMMANDS else COMMANDS:
        command(name).add_parser(sub)
    return p


def main(argv=None) -> int:
    """Run one subcommand; returns its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:  # every later word is the server's, whatever it looks like
        return command("serve").start(argv[1:])
    args = parser(argv[0] if argv else None).parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # what --resume hints repeat
    if args.command is None:
        parser().print_help()
        return EXIT_INPUT
    if args.log_level is not None:
        logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(name)s %(levelname)s: %(message)s")
    try:
        return command(args.command).run(args)
    except KeyboardInterrupt:
        sys.stderr.write("acptools: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `acptools demo | head`: the reader left, nothing more to say
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
