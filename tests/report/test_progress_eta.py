"""The progress bar's time left (acptools.util.progress), driven by a fake clock: estimated from the
measured cost per kind of item, so a prior that is far off for one kind stops mattering."""

from __future__ import annotations

import io

import pytest

from acptools.util.progress import CostModel, Progress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _run(units, true_cost, jobs=1):
    """Finish `units` ((kind, prior weight) pairs, largest prior first) `jobs` at a time, each taking
    true_cost[kind] seconds; returns (done, eta shown, true time left, share-of-prior estimate) after each."""
    clock = Clock()
    bar = Progress(stream=io.StringIO(), clock=clock)
    bar.expect(units)
    total_weight = sum(w for _, w in units)
    out, done_weight = [], 0.0
    ends = [0.0] * jobs  # each worker takes the next unit when it is free
    times = []
    for i, (kind, _) in enumerate(units):
        lane = min(range(jobs), key=lambda j: ends[j])
        ends[lane] += true_cost[kind]
        times.append(ends[lane])
    order = sorted(range(len(units)), key=lambda i: times[i])  # the order units finish in
    end_all = max(times)
    for n, i in enumerate(order, 1):
        clock.now = times[i]
        kind, weight = units[i]
        done_weight += weight
        bar(n, len(units), done_weight / total_weight, cost=(kind, weight, true_cost[kind]))
        if n < len(units):
            share = done_weight / total_weight
            out.append((n, bar._eta[0], end_all - clock.now, clock.now / share - clock.now))
    return out


def test_eta_follows_the_measured_cost_not_the_prior():
    # the prior says a nexta item is 100x an app item; measured, it is 2x
    units = [("nexta", 100.0)] * 10 + [("app", 1.0)] * 40
    rows = _run(units, {"nexta": 2.0, "app": 1.0})
    late = [r for r in rows if r[0] >= 16]  # a few app items measured
    assert late and all(abs(eta - truth) <= 0.15 * truth + 1 for _, eta, truth, _ in late)
    n, eta, truth, by_prior = next(r for r in rows if r[0] == 16)
    assert by_prior < truth / 10  # the share of prior weight says "almost done"


def test_eta_counts_parallel_workers():
    units = [("reach", 5.0)] * 40
    rows = _run(units, {"reach": 3.0}, jobs=4)
    for n, eta, truth, _ in rows[11::4]:  # after each round of 4 (they finish together)
        assert abs(eta - truth) <= 0.15 * truth + 3.0


def test_cost_model_guesses_kinds_not_seen_yet_between_the_prior_and_no_prior():
    model = CostModel([("a", 2.0), ("b", 4.0), ("b", 4.0)])
    assert model.work_left() is None
    model.finished("a", 2.0, 10.0)  # 5 s per weight unit; 10 s per unit
    # b: by the prior 8 weight units x 5 s = 40 s; without it 2 units x 10 s = 20 s; geometric mean
    assert model.work_left() == pytest.approx((40.0 * 20.0) ** 0.5)
    model.finished("b", 4.0, 1.0)  # measured: b is cheap
    assert model.work_left() == pytest.approx(1.0)


def test_shown_line_has_the_time_left():
    clock = Clock()
    out = io.StringIO()
    bar = Progress(stream=out, clock=clock, unit="episodes")
    bar.expect([("d", 1.0)] * 4)
    clock.now = 10.0
    bar(1, 4, cost=("d", 1.0, 10.0))
    assert "1/4 episodes" in out.getvalue() and "~30s left" in out.getvalue()
