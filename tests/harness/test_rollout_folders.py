"""A rollout task folder: only problem files are problems; a stray domain file is named as such."""

from __future__ import annotations

import pytest

from acptools.errors import AcpError
from acptools.examples import texts
from acptools.rollout import load_tasks


def test_a_stray_domain_file_in_a_task_folder_is_named(tmp_path):
    domain, problem = texts("ferry")
    (tmp_path / "domain.pddl").write_text(domain)
    (tmp_path / "p1.pddl").write_text(problem)
    (tmp_path / "old-domain.pddl").write_text("; an older copy\n" + domain)
    with pytest.raises(AcpError) as e:
        load_tasks(str(tmp_path))
    msg = str(e.value)
    assert "old-domain.pddl is a domain file" in msg and "swap" not in msg and "domain.pddl" in msg
    (tmp_path / "old-domain.pddl").unlink()
    assert [t.id for t in load_tasks(str(tmp_path))] == [f"{tmp_path.name}/p1"]


def test_a_domain_file_given_as_a_problem_is_named(tmp_path):
    domain, problem = texts("ferry")
    (tmp_path / "domain.pddl").write_text(domain)
    (tmp_path / "ferry.pddl").write_text(domain)
    with pytest.raises(AcpError, match="ferry.pddl is a domain file"):
        load_tasks(str(tmp_path / "ferry.pddl"))
