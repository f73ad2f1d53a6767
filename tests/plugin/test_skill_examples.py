"""The skills' worked examples, read from the skill files, so that the docs cannot drift from the tools:
every tool call runs as written against the real server and returns what it shows (or the error it
shows); every shell command parses with acptools' own command line and is one the skill's allowed-tools
let run. With -m slow every command runs, a model's endpoint served by a scripted model."""

from __future__ import annotations

import gzip
import json
import os
import shlex
import subprocess
from pathlib import Path

import anyio
import pytest
from acptools_server import ServerConfig
from acptools_server.app import build_server
from mcp import Client

from acptools.cli import parser as cli_parser
from tests.support.load import slack
from tests.support.plugin_files import REPO, SKILLS, frontmatter, venv_script
from tests.support.scripted_api import ScriptedModel
from tests.support.skill_examples import Field, allowed_by, commands, mismatches, tool_examples

PLUGIN_ACPTOOLS = "${CLAUDE_PLUGIN_DATA}/venv/bin/acptools"
SKILL_IDS = [s.parent.name for s in SKILLS]


def resolved(arguments: dict[str, object], fields: dict[str, object]) -> dict[str, object]:
    missing = [v for v in arguments.values() if isinstance(v, Field) and v not in fields]
    assert not missing, f"{missing} name no field of an earlier result in the block"
    return {k: fields[v] if isinstance(v, Field) else v for k, v in arguments.items()}


def example_problems(text: str) -> list[str]:
    """What differs between the examples of a skill's text and what the server answers them."""

    async def run() -> list[str]:
        problems: list[str] = []
        async with Client(build_server(ServerConfig())) as client:
            for block in tool_examples(text):
                fields: dict[str, object] = {}
                for example in block:
                    where = f"line {example.line} {example.tool}"
                    assert example.shows or example.error, f"{where}: the example shows no result (`-> ...`)"
                    result = await client.call_tool(example.tool, resolved(example.arguments, fields))
                    said = "".join(getattr(c, "text", "") for c in result.content)
                    if example.error is not None:
                        if not result.is_error or example.error not in said:
                            problems.append(f"{where}: shown the error {example.error!r}, got {said!r}")
                    elif result.is_error:
                        problems.append(f"{where}: shown a result, got the error {said!r}")
                    else:
                        answer = json.loads(said)
                        problems += [f"{where}: {m}" for m in mismatches(example.shows, answer)]
                        fields.update(answer)
        return problems

    return anyio.run(run)


@pytest.mark.parametrize("skill", SKILLS, ids=SKILL_IDS)
def test_every_worked_example_returns_what_it_shows(skill: Path) -> None:
    text = skill.read_text(encoding="utf-8")
    assert sum(map(len, tool_examples(text))) >= 2, f"{skill}: no worked examples found"
    assert example_problems(text) == []


def test_the_check_catches_an_example_the_tools_do_not_match() -> None:
    stale = (
        '```\noptimal_next_action(task_id="example:ferry")\n'
        '  -> h_star: 4, optimal_actions: ["(sail l0 l1)"], known: true,\n'
        '     actions: [{"action": "(board c0 l0)", "regret": 2}, ...]\n'
        'validate_plan(task_id="example:ferry", plan=["(sail l0 l1)"])\n'
        "  -> error: no such plan\n"
        'plan(task_id="example:ferry")\n'
        '  -> plan: ["(sail l0 l1)", ...], length: 5\n```\n'
    )
    problems = example_problems(stale)
    assert len(problems) == 3, problems
    assert "line 2 optimal_next_action: .actions: {'action': '(board c0 l0)', 'regret': 2} is not among" in problems[0]
    assert "shown the error 'no such plan'" in problems[1]
    assert problems[2].startswith("line 7 plan: .length: shown 5, got 4")


def bash_rules(skill: Path) -> list[str]:
    fields, _ = frontmatter(skill.read_text(encoding="utf-8"))
    return [rule for rule in fields["allowed-tools"] if rule.startswith("Bash(")]


def taught(skill: Path) -> list[str]:
    """The commands a skill teaches, as written (the plugin's acptools) and with a pip-installed one."""
    written = commands(skill.read_text(encoding="utf-8"))
    return written + [c.replace(PLUGIN_ACPTOOLS, "acptools", 1) for c in written if c.startswith(PLUGIN_ACPTOOLS)]


@pytest.mark.parametrize("skill", SKILLS, ids=SKILL_IDS)
def test_every_command_a_skill_teaches_parses_and_is_allowed(skill: Path) -> None:
    rules, ran = bash_rules(skill), taught(skill)
    assert bool(rules) == bool(ran), f"{skill}: Bash rules {rules} for the commands {ran}"
    for command in ran:
        assert any(allowed_by(command, rule) for rule in rules), f"no allowed-tools rule lets `{command}` run"
        argv = shlex.split(command.replace(PLUGIN_ACPTOOLS, "acptools"))
        assert argv[0] == "acptools", command
        try:
            cli_parser(argv[1]).parse_args(argv[1:])
        except SystemExit as exc:
            pytest.fail(f"`{command}` does not parse: acptools {argv[1]} exits {exc.code}")
    for rule in rules:
        assert any(allowed_by(c, rule) for c in ran), f"{rule} lets no command of the skill run"


def test_the_rule_check_is_claude_codes_wildcard() -> None:
    rule = f"Bash({PLUGIN_ACPTOOLS} eval *)"
    assert allowed_by(f"{PLUGIN_ACPTOOLS} eval --data x", rule)
    assert not allowed_by("acptools eval --data x", rule)
    assert not allowed_by(f"{PLUGIN_ACPTOOLS} evaluate --data x", rule)
    assert not allowed_by(f"{PLUGIN_ACPTOOLS} rollout --tasks x", rule)


def answers_file(folder: Path) -> None:
    """answers.jsonl for the score example: replies to the first records of the dev nexta split."""
    path = REPO / "acptools" / "data" / "acpbench_hard" / "dev" / "nexta.jsonl.gz"
    records = [json.loads(line) for line in gzip.open(path, "rt")][:3]
    (folder / "answers.jsonl").write_text(
        "".join(json.dumps({"id": r["id"], "response": "(noop)"}) + "\n" for r in records)
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "skill", [s for s in SKILLS if commands(s.read_text(encoding="utf-8"))], ids=lambda s: s.parent.name
)
def test_every_command_a_skill_teaches_runs(skill: Path, tmp_path: Path) -> None:
    """Each command as written, the plugin's acptools being this test run's and the model under test a
    scripted one on a local endpoint (it answers every question and step with an unknown action)."""
    answers_file(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACPTOOLS_", "OPENAI_"))}
    env.update(ACPTOOLS_CACHE="off", OPENAI_API_KEY="sk-test")
    with ScriptedModel(lambda api, body: "(noop)") as model:
        for command in commands(skill.read_text(encoding="utf-8")):
            argv = shlex.split(command.replace(PLUGIN_ACPTOOLS, str(venv_script("acptools"))))
            argv = [model.openai_url if a == "http://localhost:11434/v1" else a for a in argv]
            done = subprocess.run(
                argv + ["--quiet"],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=slack(600),
                stdin=subprocess.DEVNULL,
            )
            assert done.returncode == 0, (
                f"`{command}` exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
    assert model.requests, "no command asked the scripted model"
