"""Threat-space pattern scoring: hand-counted cell values, gravity awareness, wins and blocks."""

import random

from kaggle_environments.utils import Struct

from connectx_toolkit.agents import threats
from connectx_toolkit.agents.core import Config, Position


def test_cell_score_counts_live_windows_by_hand():
    # One row of 5 cells, 3 in a row: windows are columns 0-2, 1-3 and 2-4 only.
    cfg = Config(rows=1, columns=5, inarow=3)
    pos = Position.from_moves([1, 4], cfg)  # X at 1, O at 4; X to move
    # Column 2: extends X in 0-2 and 1-3 (2 X stones after the move: 10^2 each) and blocks O's 2-4
    # (O would hold 2 stones there: 0.7 * 10^2).
    assert threats.cell_score(pos, 2) == 100 + 100 + 70
    # Column 3: extends X in 1-3 only (2-4 holds O), blocks O in 2-4; 3-5 does not exist.
    assert threats.cell_score(pos, 3) == 100 + 70
    # Column 0: one window, 0-2, with X's stone.
    assert threats.cell_score(pos, 0) == 100


def test_open_lines_outscore_closed_ones():
    # X to move; bottom row: X X at columns 2-3. Column 4 makes .XXX. (open), column 1 too, but
    # with an O at column 0 the left extension is closed.
    pos = Position.from_moves([2, 0, 3, 6])
    assert threats.cell_score(pos, 4) > threats.cell_score(pos, 1)


def test_never_plays_under_the_opponents_winning_cell():
    # O has three on the second row (columns 1-3): cells (0, row 1) and (4, row 1) win for O, and
    # dropping a stone into column 0 or 4 would make them playable.
    pos = Position.from_moves([1, 2, 3, 1, 6, 2, 6, 3])
    assert pos.opponent_threats() == []
    scored = threats.scores(pos, random.Random(0))
    assert max(scored, key=scored.get) not in (0, 4)
    assert scored[0] < 0 and scored[4] < 0
    for seed in range(20):
        assert threats.choose(pos, random.Random(seed)) not in (0, 4)


def test_takes_a_win_and_blocks_a_loss():
    assert threats.choose(Position.from_string("121212")) == 0
    assert threats.choose(Position.from_string("12131")) == 0


def test_centre_preference_and_noise_on_the_empty_board():
    picks = {threats.choose(Position(Config(10, 12, 5)), random.Random(seed)) for seed in range(30)}
    assert picks <= {5, 6} and len(picks) == 2


def test_beats_random_on_a_large_board_with_five_in_a_row():
    cfg = Config(10, 12, 5)
    rng = random.Random(5)
    wins = 0
    for game in range(10):
        pos = Position(cfg)
        ours = game % 2  # both seats
        while not pos.is_full():
            if pos.moves % 2 == ours:
                column = threats.agent(Struct(board=pos.to_board(), mark=1 + pos.moves % 2), Struct(rows=10, columns=12, inarow=5))
                assert type(column) is int and pos.can_play(column)
            else:
                column = rng.choice(pos.legal_moves())
            pos.play(column)
            if pos.last_player_won():
                wins += (pos.moves - 1) % 2 == ours
                break
    assert wins == 10
