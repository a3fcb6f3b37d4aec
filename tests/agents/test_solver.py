"""The solver agent: tactics, time management, and any configuration Kaggle accepts."""

from __future__ import annotations

import random
import time

import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import solver
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import MoveClock
from connectx_toolkit.agents.solver_engine import time_manager
from tools.oracle import Oracle
from tools.sample_positions import quiet_game


def kaggle_call(position: Position, **timing) -> tuple[int, float]:
    """The agent called as Kaggle calls it; by default with a 1 s act timeout and a bank at the
    time manager's reserve, so that a hard move may take up to the act timeout less the margin."""
    cfg = position.config
    obs = Struct(board=position.to_board(), mark=1 if position.moves % 2 == 0 else 2,
                 remainingOverageTime=timing.get("bank", time_manager.BANK_RESERVE))
    config = Struct(rows=cfg.rows, columns=cfg.columns, inarow=cfg.inarow, actTimeout=timing.get("act", 1))
    start = time.perf_counter()
    move = solver.agent(obs, config)
    return move, time.perf_counter() - start


def test_takes_an_immediate_win_and_blocks_one():
    assert solver.choose(Position.from_string("121212"), MoveClock(0.5)) == 0
    assert solver.choose(Position.from_string("12131"), MoveClock(0.5)) == 0


def test_keeps_the_outcome_class_in_random_middle_and_late_positions():
    rng = random.Random(5)
    oracle = Oracle(book=False)
    for _ in range(30):
        history, position = quiet_game(rng, rng.randrange(20, 34))
        if position.is_full() or any(position.is_winning_move(c) for c in position.legal_moves()):
            continue
        scores = oracle.scores(history)
        move = solver.choose(position, MoveClock(0.5))
        best = max(scores.values())
        assert (scores[move] > 0) == (best > 0) and (scores[move] >= 0) == (best >= 0), (history, scores, move)


def test_a_slow_clock_cuts_the_search_short(monkeypatch):
    """Time passes 10 times faster than this thread's CPU time: the agent must still answer within its (fake)
    budget. (CPU time, not wall time: a loaded machine preempting the process would move a wall clock sped up
    ten times past any bound.)"""
    origin, cpu = time.perf_counter(), time.thread_time()
    monkeypatch.setattr(time, "perf_counter", lambda: origin + (time.thread_time() - cpu) * 10)
    solver._engines.clear()  # the searches read the clock they were built with
    try:
        for config, history in [(Config(), [3, 3, 2]), (Config(), []), (Config(10, 12, 5), [5, 6, 5])]:
            position = Position.from_moves(history, config)
            clock = MoveClock(0.4, 0.8)  # a hard move may extend to 0.8
            move = solver.choose(position, clock)
            assert position.can_play(move) and type(move) is int
            assert clock.elapsed() < 0.8 + 0.4  # fake seconds: a few clock checks late
    finally:
        solver._engines.clear()


@pytest.mark.parametrize("rows,columns,inarow", [
    (1, 1, 1), (1, 1, 2), (2, 2, 5), (3, 3, 5), (6, 7, 1), (6, 7, 2), (4, 4, 3), (5, 4, 3), (7, 3, 4),
    (10, 12, 5), (20, 20, 5), (6, 7, 5), (12, 2, 4)])
def test_any_configuration_gets_a_legal_move_in_time(rows, columns, inarow, search_clock):
    config = Config(rows, columns, inarow)
    rng = random.Random(rows * 100 + columns)
    position = random_position_without_line(config, rng)
    if position is None:
        pytest.skip("no such position")
    move, seconds = kaggle_call(position)
    assert type(move) is int and position.can_play(move)
    assert seconds < 1.0  # the act timeout: nothing of the bank is plannable


def random_position_without_line(config: Config, rng: random.Random) -> Position | None:
    position = Position(config)
    for _ in range(rng.randrange(config.cells)):
        options = [c for c in position.legal_moves() if not position.is_winning_move(c)]
        if not options or len(position.legal_moves()) == 1:
            break
        position.play(rng.choice(options))
    return None if position.is_full() else position


def test_big_boards_keep_the_budget_with_a_low_bank(search_clock):
    position = Position.from_moves([5, 6, 5, 7], Config(20, 20, 5))
    move, seconds = kaggle_call(position, bank=2)
    assert position.can_play(move) and seconds < 0.6


def test_solves_late_positions_exactly():
    # Random 26-ply positions: the exact search finishes, so the move has the oracle's best score.
    rng, oracle, checked = random.Random(26), Oracle(book=False), 0
    while checked < 8:
        history, position = quiet_game(rng, 26)
        if len(history) < 26:
            continue
        scores = oracle.scores(history)
        assert scores[solver.choose(position, MoveClock(0.8))] == max(scores.values()), history
        checked += 1
