"""The solver's time manager: normal and hard budgets from Kaggle's actTimeout and overage bank."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import solver
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import MoveClock
from connectx_toolkit.agents.solver_engine import time_manager as tm
from connectx_toolkit.agents.solver_engine.depth_search import DepthSearch
from connectx_toolkit.agents.solver_engine.opening_book import book_move, outcome_book_proves_lost, outcome_move
from connectx_toolkit.agents.solver_engine.time_manager import hard_budget, move_clock, normal_budget
from connectx_toolkit.evaluation.referees.bank import Bank

acts = st.floats(min_value=0.05, max_value=20.0, allow_nan=False)
banks = st.floats(min_value=0.0, max_value=600.0, allow_nan=False)
boards = st.sampled_from([(6, 7), (5, 6), (7, 8), (10, 12), (20, 20), (1, 1), (4, 4)])


def observation(position: Position, bank: float | None = 60.0) -> Struct:
    obs = Struct(board=position.to_board(), mark=1 if position.moves % 2 == 0 else 2)
    if bank is not None:
        obs.remainingOverageTime = bank
    return obs


def configuration(config: Config, act: float = 2.0) -> Struct:
    return Struct(rows=config.rows, columns=config.columns, inarow=config.inarow, actTimeout=act)


def test_normal_budget_is_unchanged(monkeypatch):
    monkeypatch.setattr(tm, "_first_move", False)

    def normal(obs: Struct, config: Struct) -> float:
        clock = move_clock(obs, config)
        return clock.end - clock.start

    assert normal(Struct(remainingOverageTime=60), Struct(actTimeout=2)) == pytest.approx(0.8)
    assert normal(Struct(remainingOverageTime=60), Struct(actTimeout=1)) == pytest.approx(0.4)
    assert normal(Struct(remainingOverageTime=3), Struct(actTimeout=2)) == pytest.approx(0.4)
    assert normal(Struct(), Struct()) == pytest.approx(0.8)  # missing fields: Kaggle's defaults


def test_hard_budget_on_kaggle_clock_spends_the_bank_and_keeps_the_reserve():
    # Ply 4 of 6x7 with a full bank: 2 s - 0.3 s margin + (60 - 15) / 9 planned moves.
    assert hard_budget(2.0, 60.0, 4, 42) == pytest.approx(2.0 - 0.3 + 45 / 9)
    # Late in the game the share is capped, the reserve never planned into.
    assert hard_budget(2.0, 60.0, 40, 42) == pytest.approx(2.0 - 0.3 + 0.25 * 45)
    assert hard_budget(2.0, tm.BANK_RESERVE, 4, 42) == pytest.approx(2.0 - 0.3)
    # The first move of a process leaves room for loading.
    assert hard_budget(2.0, 60.0, 4, 42, first_move=True) == pytest.approx(2.0 - 0.8 + 45 / 9)


def test_a_drained_bank_gives_fast_moves():
    for bank in (0.0, 1.0, tm.LOW_BANK_SECONDS - 0.01):
        assert hard_budget(2.0, bank, 4, 42) == normal_budget(2.0, bank) == pytest.approx(0.4)


@settings(max_examples=300, deadline=None)
@given(act=acts, bank=banks, board=boards, fill=st.floats(0, 1), first=st.booleans())
def test_budget_never_exceeds_act_timeout_minus_margin_plus_planned_share(act, bank, board, fill, first):
    cells = board[0] * board[1]
    stones = int(fill * (cells - 1))
    normal, hard = normal_budget(act, bank), hard_budget(act, bank, stones, cells, first)
    assert tm.MINIMUM_SECONDS <= normal <= hard
    assert normal <= max(tm.MINIMUM_SECONDS, 0.4 * act)
    share = max(0.0, bank - tm.BANK_RESERVE) / tm.planned_moves(stones, cells)
    assert hard <= max(normal, act - tm.safety_margin(act, first) + share) + 1e-9
    assert hard <= max(normal, act - tm.safety_margin(act, first) + tm.MAX_BANK_SHARE * max(0.0, bank - tm.BANK_RESERVE)) + 1e-9


@settings(max_examples=200, deadline=None)
@given(act=acts, bank=banks, smaller_act=st.floats(0.0, 1.0), smaller_bank=st.floats(0.0, 1.0), board=boards,
       fill=st.floats(0, 1))
def test_a_slower_act_timeout_or_a_smaller_bank_never_gives_more(act, bank, smaller_act, smaller_bank, board, fill):
    cells = board[0] * board[1]
    stones = int(fill * (cells - 1))
    hard = hard_budget(act, bank, stones, cells)
    assert hard_budget(act * smaller_act, bank, stones, cells) <= hard + 1e-9
    assert hard_budget(act, bank * smaller_bank, stones, cells) <= hard + 1e-9
    assert normal_budget(act * smaller_act, bank) <= normal_budget(act, bank)


@settings(max_examples=100, deadline=None)
@given(act=st.floats(0.5, 5.0), overshoot=st.floats(0.0, 1.0), board=boards, start=st.integers(0, 6))
def test_a_game_of_hard_moves_never_empties_the_bank(act, overshoot, board, start):
    """Every own move hard and late by up to the whole margin: the bank never goes below the reserve."""
    cells = board[0] * board[1]
    bank = Bank(act, 60.0)  # Kaggle's rule, as the toolkit's referees apply it
    for stones in range(start, cells, 2):
        spent = hard_budget(act, bank.left, stones, cells) + overshoot * tm.safety_margin(act)
        assert not bank.times_out(spent)
        bank.charge(spent)
        assert bank.left >= min(60.0, tm.BANK_RESERVE) - 1e-6


def test_move_clock_reads_the_observation(monkeypatch):
    monkeypatch.setattr(tm, "_first_move", False)
    position = Position.from_moves([3, 3, 2, 4])
    clock = move_clock(observation(position, 60.0), configuration(position.config))
    assert clock.end - clock.start == pytest.approx(0.8)
    assert clock.hard_end - clock.start == pytest.approx(hard_budget(2.0, 60.0, 4, 42))
    drained = move_clock(observation(position, 2.0), configuration(position.config))
    assert not drained.extensible and drained.end - drained.start == pytest.approx(0.4)


def test_first_move_of_a_process_keeps_a_larger_margin(monkeypatch):
    monkeypatch.setattr(tm, "_first_move", True)
    position = Position.from_moves([3, 3, 2, 4])
    first = move_clock(observation(position), configuration(position.config))
    second = move_clock(observation(position), configuration(position.config))
    assert (second.hard_end - second.start) - (first.hard_end - first.start) == pytest.approx(tm.FIRST_MOVE_MARGIN)


def test_move_clock_extends_only_when_asked(search_clock):
    clock = MoveClock(0.1, 0.5)
    assert clock.extensible and clock.remaining() <= 0.1
    clock.extend()
    assert 0.4 < clock.remaining() <= 0.5 and not clock.extensible
    fixed = MoveClock(0.1)
    fixed.extend()
    assert fixed.remaining() <= 0.1


def timed_agent(position: Position, bank: float, act: float) -> tuple[int, float]:
    """The solver's move and the CPU seconds this thread spent on it.

    CPU time, not wall time: the searches stop at wall-clock deadlines, so a move's CPU time is at most its
    wall time, while a loaded machine (a full-suite run beside other work) can stretch the wall time of a
    move many times over. A search that ignored its deadline would still burn CPU far past these bounds.
    """
    obs, config = observation(position, bank), configuration(position.config, act)
    cpu = time.thread_time()
    move = solver.agent(obs, config)
    return move, time.thread_time() - cpu


@pytest.fixture
def extensions(monkeypatch) -> list[bool]:
    """Records each ``MoveClock.extend`` call (a move judged hard and given more time)."""
    calls: list[bool] = []
    original = MoveClock.extend

    def spy(clock: MoveClock) -> None:
        calls.append(clock.extensible)
        original(clock)

    monkeypatch.setattr(MoveClock, "extend", spy)
    return calls


def test_a_hard_move_spends_more_and_an_easy_one_does_not(monkeypatch, extensions):
    monkeypatch.setattr(tm, "_first_move", False)
    solver._engines.clear()
    act, bank = 0.5, 20.0  # a small clock keeps the test short: normal 0.2 s, hard about 1 s at ply 10
    hard = hard_budget(act, bank, 10, 42)
    # Off the books and past the ply-8 table, at ply 10, a draw only by column 4 (bitbully): the exact search
    # does not finish in the normal budget and the candidates' values disagree, so the move is hard. (A ply-8
    # position will not do: the table has the move of most of them.)
    drawn = Position.from_moves([c - 1 for c in (3, 3, 5, 4, 5, 5, 1, 6, 5, 7)])
    assert book_move(drawn) is None and outcome_move(drawn) is None
    move, seconds = timed_agent(drawn, bank, act)
    assert extensions == [True] and seconds < hard + 0.15
    extensions.clear()
    move, seconds = timed_agent(Position.from_moves([3, 3, 3, 3]), bank, act)  # the book's
    assert extensions == [] and seconds < 0.1
    solver._engines.clear()
    _, seconds = timed_agent(drawn, 1.0, act)  # the same hard move, bank drained: nothing to extend into
    assert extensions == [] and seconds < normal_budget(act, 1.0) + 0.1


def test_a_proven_loss_off_the_books_is_not_hard(monkeypatch, extensions):
    """Early and off the books, a position is hard, unless the complete outcome book proves it lost:
    every move loses, so no candidates' values disagree and the bank is kept for later."""
    monkeypatch.setattr(tm, "_first_move", False)
    hard_deadlines: list[float | None] = []
    best_move = DepthSearch.best_move

    def spy(search, *args, hard_deadline=None, **kwargs):
        hard_deadlines.append(hard_deadline)
        return best_move(search, *args, hard_deadline=hard_deadline, **kwargs)

    monkeypatch.setattr(DepthSearch, "best_move", spy)
    act, bank = 0.5, 20.0
    lost = Position.from_moves([0, 0, 0, 2])  # ply 4, lost for the mover
    assert book_move(lost) is None and outcome_move(lost) is None and outcome_book_proves_lost(lost)
    for _ in range(2):  # the second time the heuristic's caches are warm and the search goes deeper
        solver._engines.clear()
        _, seconds = timed_agent(lost, bank, act)
        # Neither the clock nor the depth search may reach into the bank: once, the search went on to the
        # hard deadline by itself (its best move unsettled) and spent 0.8 s of a 0.2 s budget.
        assert extensions == [] and hard_deadlines[-1] is None and seconds < normal_budget(act, bank) + 0.1
    monkeypatch.setattr(solver, "outcome_book_proves_lost", lambda position: False)  # as if it were not proven
    solver._engines.clear()
    _, seconds = timed_agent(lost, bank, act)
    assert extensions == [True] and hard_deadlines[-1] is not None and seconds < hard_budget(act, bank, 4, 42) + 0.15


def test_depth_search_goes_past_its_deadline_only_until_the_hard_one():
    """The search stops at its deadline, or at the hard one, within one clock-check interval.

    The deadlines are wall-clock, but the overrun is measured in this thread's CPU time: on this board
    a node costs about 0.3 ms, so the 64 nodes between two clock checks are ~20 ms of CPU, and a
    process given a small share of a loaded machine can take ten times that in wall time (this test
    once failed that way in a full-suite run). A search that ignored its deadline would still burn
    CPU far past these bounds.
    """
    config = Config(10, 12, 5)
    search = DepthSearch(config)
    position = Position.from_moves([5, 6, 5, 7], config)
    start, cpu = time.perf_counter(), time.thread_time()
    search.best_move(position, position.legal_moves(), start + 0.1, hard_deadline=start + 0.4)
    assert time.thread_time() - cpu < 0.4 + 0.1
    start, cpu = time.perf_counter(), time.thread_time()
    search.best_move(position, position.legal_moves(), start + 0.1)
    assert time.thread_time() - cpu < 0.1 + 0.1 and not search.extended
