"""The truth service (acptools.truth): one object per task answers about its states, keeps what it
proves, and reads and writes its own proof store."""

from __future__ import annotations

from acptools import examples, truth
from acptools.proofs import store
from acptools.truth import TruthService
from acptools.verdict import Proof, chained


def test_a_task_is_asked_through_the_service_that_holds_it(tmp_path) -> None:
    d, p = examples.texts("ferry")
    bound = TruthService(store.ProofStore(tmp_path / "a.sqlite"))
    task = bound.task(d, p)
    assert truth.truth_for(task, task.init) is bound.truth(task, task.init)  # not the process's service
    assert truth.service() is not bound and not truth.service().holds(task, task.init)
    previous = truth.use_service(bound)
    try:
        assert truth.task_for(d, p) is task  # the installed service answers by PDDL text too
    finally:
        truth.use_service(previous)
    assert truth.service() is previous


def test_what_a_service_proves_goes_to_its_own_store_and_comes_back_marked(tmp_path) -> None:
    d, p = examples.texts("ferry")
    first = TruthService(store.ProofStore(tmp_path / "a.sqlite"))
    task = first.task(d, p)
    proved = first.truth(task, task.init).unreachable_actions(30)
    assert proved.complete and not proved.from_store
    elsewhere = TruthService(store.ProofStore(tmp_path / "b.sqlite"))  # another store: nothing to read
    other = elsewhere.task(d, p)
    assert not elsewhere.truth(other, other.init).unreachable_actions(30).from_store
    again = TruthService(store.ProofStore(tmp_path / "a.sqlite"))
    read = again.task(d, p)
    served = again.truth(read, read.init).unreachable_actions(30, limit=1)
    assert served.from_store and served.total == proved.total and len(served.items) == min(1, proved.total)
    assert [i.name for i in served.items] == [i.name for i in proved.items][:1]


def test_forgetting_a_task_frees_its_truths() -> None:
    service = TruthService(None)
    task = service.task(*examples.texts("ferry"))
    for action in task.applicable(task.init):
        service.truth(task, task.apply_op(task.op_for(action, task.init), task.init))
    service.truth(task, task.init)
    assert service.sizes() == {"tasks": 1, "truths": 4}
    service.forget(task)
    assert service.sizes() == {"tasks": 0, "truths": 0}


def test_a_chained_proof_names_each_step_once_in_order() -> None:
    """A proof built on another reads as its steps joined by '+', each once: an optimal step after a plan
    replay ends the chain once however often it is chained, and no empty step appears."""
    replayed = chained(Proof.PLAN_REPLAY, Proof.ASTAR)
    assert replayed == "plan-replay+astar-hmax"
    stepped = chained(replayed, Proof.OPTIMAL_STEP)
    assert stepped == "plan-replay+astar-hmax+optimal-step"
    assert chained(stepped, Proof.OPTIMAL_STEP) == stepped
    assert chained("", Proof.SYMK, "symk-bidirectional+") == "symk-bidirectional"
