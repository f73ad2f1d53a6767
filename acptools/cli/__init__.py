"""The `acptools` command line: one module per subcommand, each with `add_parser(sub)` and `run(args)`.

    acptools eval ...       ask a model every question of a record set, graded (acptools.cli.eval)
    acptools score ...      grade free-text answers (acptools.cli.score)
    acptools cache ...      the proof store: stats, verify, clear (acptools.cli.cache)
    acptools rollout ...    a policy's episodes, graded step by step (acptools.cli.rollout)
    acptools report ...     one HTML page from their outputs (acptools.cli.report)
    acptools export ...     lm-eval task configs for any record file (acptools.cli.export)
    acptools generate ...   questions with proven answers from PDDL (acptools.cli.generate)
    acptools serve ...      the MCP server, as acptools-server (acptools.cli.serve)
    acptools demo           all eight questions about a bundled example (acptools.cli.demo)
    acptools examples       the bundled example tasks (acptools.cli.demo)

Exit codes: 0 done; 1 a check failed or some item ended unknown, in error or short (each command
says which); 2 bad input (the message says what, where, and what to do); 130 interrupted.
"""

from __future__ import annotations

import os
import sys

from .. import __version__
from . import cache, demo, export, generate, report, rollout, score, serve
from . import eval as eval_cmd
from .common import EXIT_INPUT, EXIT_OK, Parser

# subcommand name -> its module; the order is the order of `acptools --help`
COMMANDS = {"eval": eval_cmd, "score": score, "cache": cache, "rollout": rollout, "generate": generate, "report": report,
            "export": export, "serve": serve, "demo": demo, "examples": demo.Examples}


def parser() -> Parser:
    """The whole command line: every subcommand's parser, registered by its own module."""
    p = Parser(prog="acptools", description="Proven answers about PDDL planning tasks; a scorer for model answers.")
    p.add_argument("--version", action="version", version=f"acptools {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    for module in COMMANDS.values():
        module.add_parser(sub)
    return p


def main(argv=None) -> int:
    """Run one subcommand; returns its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:  # every later word is the server's, whatever it looks like
        return serve.start(argv[1:])
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # what --resume hints repeat
    if args.command is None:
        parser().print_help()
        return EXIT_INPUT
    try:
        return COMMANDS[args.command].run(args)
    except KeyboardInterrupt:
        sys.stderr.write("acptools: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `acptools demo | head`: the reader left, nothing more to say
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
