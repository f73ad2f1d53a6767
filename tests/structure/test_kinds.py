"""The registry of question kinds (acptools.kinds) is complete: every kind has its builder, every
ACPBench Hard kind its graders, every tool a kind names exists in the server, and every layer reads
the registry's names instead of a table of its own."""

from __future__ import annotations

import subprocess
import sys

import pytest
from acptools_server.config import ANSWERS, TOOL_NAMES

from acptools import answers, dataset, kinds
from acptools.generate import TASKS as GENERATE_TASKS


@pytest.mark.parametrize("name", sorted(kinds.KINDS))
def test_every_kind_has_a_generator_and_a_group_that_names_it(name: str) -> None:
    kind = kinds.KINDS[name]
    assert name in kinds.registered(kinds.GENERATOR)
    assert kinds.GROUP_TO_KIND[kind.group] == name
    assert answers.canonical_task(kind.group) == name
    assert kind.form in kinds.FORMS and kind.cost > 0


@pytest.mark.parametrize("name", kinds.HARD)
def test_every_hard_kind_has_both_graders_tools_and_answer_rules(name: str) -> None:
    kind = kinds.KINDS[name]
    assert name in kinds.registered(kinds.GRADER) and name in kinds.registered(kinds.REFERENCE)
    assert kind.tools and set(kind.tools) <= set(TOOL_NAMES)
    assert kind.stored is not None
    assert all(name in ANSWERS[tool] for tool in kind.tools)


def test_the_layers_read_the_registry() -> None:
    assert dataset.TASKS == answers.TASKS == kinds.HARD
    assert set(dataset.GROUP_TO_TASK) == {kinds.KINDS[t].group for t in kinds.HARD}
    generated = {kinds.kind_of(form, task) for form, tasks in GENERATE_TASKS.items() for task in tasks}
    assert generated == set(kinds.KINDS)
    assert ANSWERS["score_answer"] == frozenset(kinds.HARD)


def test_a_kind_without_an_implementation_is_refused() -> None:
    with pytest.raises(KeyError, match="no grader is registered"):
        kinds.implementation(kinds.GRADER, "arb_effects")
    with pytest.raises(KeyError, match="no generator is registered"):
        kinds.implementation(kinds.GENERATOR, "no_such_kind")


@pytest.mark.parametrize("role, kind", sorted(kinds.IMPLEMENTATIONS))
def test_every_named_implementation_resolves_in_a_fresh_interpreter_order(role: str, kind: str) -> None:
    """Each "module:attribute" names a callable, found without importing anything first."""
    assert callable(kinds.implementation(role, kind))


def test_the_registry_needs_no_import_order() -> None:
    """A fresh interpreter asks for a grader and a builder before importing scoring or generate."""
    code = (
        "from acptools import kinds; g = kinds.implementation(kinds.GRADER, 'nexta'); "
        "b = kinds.implementation(kinds.GENERATOR, 'land_mcq'); print(g.__module__, b.func.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["acptools.scoring.exact", "acptools.generate.acp"]
