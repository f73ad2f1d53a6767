"""Budget's accounting, shares and children, checked directly (the searches reach them only when a
budget runs out): what a share or a child may spend, that charges climb the chain of parents, that
the tightest limit along the chain binds, and that a cancel anywhere above stops a child.

CPU charges are made with `charge()`, so nothing here depends on the machine's speed or load."""

from __future__ import annotations

import threading
import time

import pytest

from acptools.budget import Budget
from acptools.errors import BudgetExceeded


def _full_check(b: Budget) -> None:
    """check() walks the limits at most every CHECK_EVERY seconds; force the walk."""
    b._next_check = 0.0
    b.check()


def test_a_share_gets_its_fraction_of_the_cpu_left():
    parent = Budget(None, cpu=10)
    parent.charge(4)
    share = parent.share(0.5)
    assert share.cpu == pytest.approx(3.0)
    assert share.seconds is None and share.parent is parent


def test_a_share_takes_the_tightest_cpu_limit_along_the_chain():
    grand = Budget(None, cpu=10)
    mid = grand.child(cap=20)
    mid.charge(2)  # charged to both: mid has 18 left, grand 8
    assert mid.share(0.5).cpu == pytest.approx(4.0)
    roomy = Budget(None, cpu=100).child(cap=6)
    assert roomy.share(0.5).cpu == pytest.approx(3.0)


def test_a_share_of_wall_time_is_a_fraction_of_what_is_left():
    share = Budget(100).share(0.25)
    assert share.cpu is None
    assert share.seconds is not None and 20 < share.seconds <= 25


def test_an_unlimited_budgets_share_is_unlimited():
    share = Budget(None).share(0.3)
    assert share.seconds is None and share.cpu is None and share.left() is None


def test_a_spent_parent_leaves_a_share_nothing():
    parent = Budget(None, cpu=1)
    parent.charge(5)
    assert parent.share(0.5).cpu == 0.0
    assert parent.left() == 0.0


def test_charges_climb_the_chain_of_parents():
    grand = Budget(None)
    child = grand.child().share(0.5).child(cap=3)
    child.charge(1.5)
    b: Budget | None = child
    while b is not None:
        assert b.cpu_used == pytest.approx(1.5)
        b = b.parent


def test_a_parents_spent_effort_stops_its_child():
    parent = Budget(None, cpu=1)
    child = parent.child()
    _full_check(child)  # nothing spent yet
    parent.charge(2)
    with pytest.raises(BudgetExceeded, match="effort budget of 1 CPU seconds spent"):
        _full_check(child)


def test_a_childs_cap_binds_before_its_parent_does():
    parent = Budget(None, cpu=100)
    child = parent.child(cap=1)
    child.charge(1.5)
    with pytest.raises(BudgetExceeded, match="effort budget of 1 CPU seconds"):
        _full_check(child)
    _full_check(parent)  # the parent still has 98.5 s


def test_a_parents_spent_wall_time_stops_its_share():
    parent = Budget(0.0)
    time.sleep(0.01)
    with pytest.raises(BudgetExceeded, match="time budget of 0 s spent"):
        _full_check(parent.child())


def test_the_state_budget_counts_every_unit_spent():
    b = Budget(None, states=5)
    b.spend(3)
    b.spend(2)
    assert b.expanded == 5
    with pytest.raises(BudgetExceeded, match="state budget of 5 spent"):
        b.spend()


def test_a_cancel_above_stops_every_child_at_once():
    event = threading.Event()
    parent = Budget(None, cancel=event)
    child = parent.share(0.5).child(cap=10)
    assert not child.cancelled() and child.left() == pytest.approx(10.0)
    event.set()
    assert child.cancelled() and child.left() == 0.0
    with pytest.raises(BudgetExceeded, match="cancelled"):
        child.check()


def test_a_childs_own_cancel_does_not_stop_its_parent():
    mine = threading.Event()
    parent = Budget(None)
    child = parent.child(cancel=mine)
    mine.set()
    assert child.cancelled() and not parent.cancelled()
    _full_check(parent)


def test_left_is_the_tightest_limit_and_wall_its_default_when_unlimited():
    assert Budget(None).left() is None
    assert Budget(None).wall(default=7.0) == 7.0
    assert Budget(None, cpu=2).child(cap=5).left() == pytest.approx(2.0)
    b = Budget(None, cpu=10).child(cap=3)
    b.charge(1)
    assert b.left() == pytest.approx(2.0) and b.wall() == pytest.approx(2.0)


def test_a_threads_first_charge_only_sets_its_mark():
    b = Budget(None)
    b.charge_thread()
    assert b.cpu_used == 0.0
    end = time.thread_time() + 0.02
    while time.thread_time() < end:  # CPU spent by this thread, not waiting
        pass
    b.charge_thread()
    assert b.cpu_used >= 0.02


def test_a_pause_ends_with_the_budget_and_says_so():
    assert Budget(None).pause(0.01) is False  # waited its time, budget left
    assert Budget(0.05).pause(60) is True  # the budget ran out first
    event = threading.Event()
    threading.Timer(0.05, event.set).start()
    assert Budget(None).child(cancel=event).pause(60) is True  # its own cancel wakes it
