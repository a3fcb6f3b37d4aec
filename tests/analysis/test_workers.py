"""The analysis worker pool: a position's budget is CPU time of the searching process, not wall time."""

from __future__ import annotations

import os
import time

import pytest

from connectx_toolkit.analysis import solving
from connectx_toolkit.analysis.values import Value
from connectx_toolkit.analysis.workers import Job, SolverPool, process_cpu_seconds

BUDGET = 0.3


class _SleepingSolver:
    """Takes three budgets of wall time but almost no CPU: what a search looks like on a crowded machine."""

    def __init__(self, compiled: bool) -> None:
        pass

    def solve(self, moves, budget, report=None):
        time.sleep(3 * budget)
        return Value.exact_score(1, "compiled", 0.0)


class _SpinningSolver(_SleepingSolver):
    """Uses three budgets of CPU time: must be stopped and its position left unknown."""

    def solve(self, moves, budget, report=None):
        end = time.process_time() + 3 * budget
        while time.process_time() < end:
            pass
        return Value.exact_score(1, "compiled", 0.0)


class _ReportingSolver(_SleepingSolver):
    """Proves a win (bounds 1..5) at once, then searches on for three budgets of CPU time."""

    def solve(self, moves, budget, report=None):
        report(-3, 5)
        report(1, 5)
        return _SpinningSolver.solve(self, moves, budget)


def _solve_one(monkeypatch, solver_class) -> tuple[Value, SolverPool]:
    monkeypatch.setattr(solving, "PositionSolver", solver_class)  # the forked workers see it
    pool = SolverPool(1, compiled=True, budget=BUDGET)
    answers: list[Value] = []
    pool.run([[Job(1, (3, 3))]], lambda job, value: answers.append(value), known=lambda key: False)
    assert len(answers) == 1
    return answers[0], pool


@pytest.mark.skipif(process_cpu_seconds(os.getpid()) is None, reason="no /proc: the budget is wall time here")
def test_a_search_waiting_for_a_core_is_not_cut_off_by_the_wall_clock(monkeypatch):
    value, pool = _solve_one(monkeypatch, _SleepingSolver)
    assert not value.timed_out and value.low == value.high == 1
    assert pool.killed == 0


def test_a_search_over_its_cpu_budget_is_stopped_and_unknown(monkeypatch):
    started = time.monotonic()
    value, pool = _solve_one(monkeypatch, _SpinningSolver)
    assert value.timed_out and pool.killed == 1
    assert time.monotonic() - started < 3 * BUDGET + 5  # stopped near its budget, not after the whole search


def test_a_stopped_search_keeps_the_bounds_it_reported(monkeypatch):
    value, pool = _solve_one(monkeypatch, _ReportingSolver)
    assert pool.killed == 1
    assert (value.low, value.high, value.outcome, value.timed_out) == (1, 5, "win", True)


def test_process_cpu_seconds_counts_work_not_waiting():
    before = process_cpu_seconds(os.getpid())
    if before is None:
        pytest.skip("no /proc")
    time.sleep(0.2)
    slept = process_cpu_seconds(os.getpid())
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    worked = process_cpu_seconds(os.getpid())
    assert slept - before < 0.1
    assert worked - slept >= 0.25


def test_the_compiled_solver_reports_bounds_that_hold_the_score():
    pytest.importorskip("numba")
    from connectx_toolkit.analysis.solving import PositionSolver

    solver = PositionSolver(compiled=True)
    moves = tuple(int(c) - 1 for c in "4453322662")  # ply 10: a few null windows to settle
    reported: list[tuple[int, int]] = []
    value = solver.solve(moves, 30.0, lambda low, high: reported.append((low, high)))
    assert value.exact and reported
    assert all(low <= value.score <= high and low < high for low, high in reported)
    assert reported[min(1, len(reported) - 1)][0] > 0 or reported[min(1, len(reported) - 1)][1] <= 0  # class first


class _QuickSolver(_SleepingSolver):
    """Answers at once: the worker's own start is all there is to a run."""

    def solve(self, moves, budget, report=None):
        return Value.exact_score(len(moves), "compiled", 0.0)


def test_kept_workers_serve_run_after_run_until_closed(monkeypatch):
    monkeypatch.setattr(solving, "PositionSolver", _QuickSolver)
    pool = SolverPool(1, compiled=True, budget=BUDGET, keep_workers=True)
    answers: list[int | None] = []
    try:
        for moves in ((3,), (3, 3), (3, 3, 3)):
            pool.run([[Job(len(moves), moves)]], lambda job, value: answers.append(value.score), known=lambda key: False)
        assert answers == [1, 2, 3]
        assert pool.started == 1  # one worker answered the three runs
        kept = list(pool._idle)
        assert len(kept) == 1 and kept[0].process.is_alive()
    finally:
        pool.close()
    assert not kept[0].process.is_alive()


def test_a_kept_worker_stopped_at_its_budget_is_replaced_for_the_next_run(monkeypatch):
    monkeypatch.setattr(solving, "PositionSolver", _SpinningSolver)
    pool = SolverPool(1, compiled=True, budget=BUDGET, keep_workers=True)
    answers: list[Value] = []
    try:
        for key in (1, 2):
            pool.run([[Job(key, (3, 3))]], lambda job, value: answers.append(value), known=lambda key: False)
        assert [value.timed_out for value in answers] == [True, True] and pool.killed == 2
    finally:
        pool.close()


def test_without_kept_workers_a_run_leaves_no_process(monkeypatch):
    monkeypatch.setattr(solving, "PositionSolver", _QuickSolver)
    pool = SolverPool(1, compiled=True, budget=BUDGET)
    pool.run([[Job(1, (3,))]], lambda job, value: None, known=lambda key: False)
    pool.run([[Job(2, (3, 3))]], lambda job, value: None, known=lambda key: False)
    assert pool.started == 2 and pool._idle == [] and pool._spare is None
