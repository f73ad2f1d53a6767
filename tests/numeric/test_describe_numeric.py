"""A numeric task's summary (what the MCP `load_task` returns) shows each action's numeric effects as
PDDL: the text of every schema, read back as a domain by acptools' parser, is the schema it shows;
and a domain written for outside planners still refuses numeric effects instead of dropping them."""

from __future__ import annotations

import pytest

from acptools import AcpError, load_task
from acptools.describe import describe
from acptools.pddl.parser import parse_domain
from tests.support.numeric_corpus import CORPUS, families, problems


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("ACPTOOLS_CACHE", "off")


def _domain_of(summary_domain, schemas) -> str:
    """The domain's own head with the summary's schemas as its actions."""
    head = summary_domain[: summary_domain.lower().index("(:action")]
    actions = "".join(
        f"(:action {s.name} :parameters ({' '.join(p.name + ' - ' + p.type for p in s.parameters)})"
        f" :precondition {s.precondition} :effect {s.effect})"
        for s in schemas
    )
    return head + actions + ")"


@pytest.mark.parametrize("family", families())
def test_every_schemas_text_reads_back_as_the_schema(family):
    text = (CORPUS / family / "domain.pddl").read_text()
    task = load_task(text, problems(family)[0].read_text())
    summary = describe(task)
    assert all(s.effect is not None and s.precondition is not None for s in summary.action_schemas)
    again = parse_domain(_domain_of(text, summary.action_schemas))
    for name, schema in task.domain.actions.items():
        assert again.actions[name].effect == schema.effect, name
        assert again.actions[name].precondition == schema.precondition, name


def test_outside_planners_never_get_a_domain_without_its_numeric_effects():
    task = load_task(
        (CORPUS / "zenotravel" / "domain.pddl").read_text(), (CORPUS / "zenotravel" / "p01.pddl").read_text()
    )
    with pytest.raises((AcpError, ValueError)):
        _ = task.grounded.written_domain_text
