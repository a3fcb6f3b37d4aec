"""Bitboard negamax: the line heuristic by hand, iterative deepening under a deadline, forced wins."""

import random

import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import bitboard_minimax
from connectx_toolkit.agents.bitboard_minimax import WIN, search
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import MoveClock
from connectx_toolkit.agents.core.lines import windows
from connectx_toolkit.agents.heuristic_search.line_heuristic import line_heuristic
from tools.sample_positions import undecided_position


def test_line_heuristic_generalises_the_seeds_weights():
    pos = Position.from_moves([0, 6, 1, 6, 2])  # X: three on the bottom; O: two stacked in column 6
    x, o = pos.opponent, pos.current
    w = windows(pos.config)
    # X: window 0-3 holds three (1/10), 1-4 two (1/100); O: vertical window rows 0-3 holds two.
    assert line_heuristic(x, o, w, 4) == pytest.approx(0.1 + 0.01 - 0.01)
    assert line_heuristic(o, x, w, 4) == pytest.approx(-0.1)
    # Five in a row on 10x12: k-1 = 4 stones are worth 1/10, k-2 = 3 stones 1/100.
    big = Position.from_moves([3, 11, 4, 11, 5, 10, 6], Config(10, 12, 5))
    # X at columns 3-6: windows 2-6 and 3-7 hold four (k-1), 1-5 and 4-8 hold three (k-2).
    assert line_heuristic(big.opponent, big.current, windows(big.config), 5) == pytest.approx(
        2 * 0.1 + 2 * 0.01 - 0.01 * _o_pairs(big)
    )


def _o_pairs(pos):
    """Windows in which O holds exactly k-2 = 3 stones and X none (counted the slow way)."""
    return sum(
        1 for w in windows(pos.config) if not w & pos.opponent and (w & pos.current).bit_count() == 3
    )


def test_finds_a_forced_win_and_stops_deepening():
    # X to move with two on the bottom (columns 4-5): an open three wins by ply 3.
    pos = Position.from_string("4151")
    best, depth, negamax = search(pos, MoveClock(5.0))
    assert set(best) <= {2, 5}
    assert depth <= 4  # the forced result ends iterative deepening early
    _, value = negamax.root(pos, depth, None)
    assert value == WIN - (pos.moves + 3)  # X's second move after this one completes the line


def test_takes_a_win_and_blocks_a_loss():
    assert bitboard_minimax.choose(Position.from_string("121212"), MoveClock(1.0)) == 0
    assert bitboard_minimax.choose(Position.from_string("12131"), MoveClock(1.0)) == 0


@pytest.mark.parametrize("cfg,budget", [(Config(), 0.15), (Config(10, 12, 5), 0.15), (Config(10, 12, 5), 0.4)])
def test_iterative_deepening_respects_the_deadline(cfg, budget, search_clock):
    pos = undecided_position(random.Random(2), cfg, 10)
    deadline = MoveClock(budget)
    best, depth, negamax = search(pos, deadline)
    elapsed = deadline.elapsed()
    print(f"\n{cfg} budget {budget}s: depth {depth}, {negamax.nodes} nodes in {elapsed:.3f}s")
    assert depth >= 2 and best and all(pos.can_play(c) for c in best)
    assert elapsed < budget + 0.05


def test_no_time_still_gives_a_legal_column():
    pos = Position.from_moves([3, 3, 3, 3, 3, 3])  # the centre column is full
    best, depth, _ = search(pos, MoveClock(0.0))
    assert depth <= 1 and best and pos.can_play(best[0])  # only the few root nodes run before a check


def test_agent_returns_plain_ints_on_odd_configs():
    for rows, columns, inarow in [(6, 7, 4), (1, 1, 1), (3, 9, 5), (10, 12, 5), (2, 2, 3)]:
        board = [0] * (rows * columns)
        move = bitboard_minimax.agent(Struct(board=board, mark=1), Struct(rows=rows, columns=columns, inarow=inarow))
        assert type(move) is int and 0 <= move < columns
