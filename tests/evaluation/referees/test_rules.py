"""evaluation.referees.rules: the drop and win rules the native referee and the board's game share, checked
against the agents' own bitboard rules (agents/core, written apart) on random games of several shapes."""

import random

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.evaluation.referees.rules import drop, winning_line


@pytest.mark.parametrize("rows, columns, inarow", [(6, 7, 4), (5, 4, 3), (7, 8, 5), (4, 9, 4), (3, 3, 2)])
def test_every_move_wins_exactly_when_the_bitboards_say_so(rows, columns, inarow):
    rng = random.Random(rows * 100 + columns * 10 + inarow)
    wins = 0
    for _ in range(300):
        board, position, mark = [0] * (rows * columns), Position(Config(rows, columns, inarow)), 1
        while any(board[c] == 0 for c in range(columns)):
            column = rng.choice([c for c in range(columns) if board[c] == 0])
            assert [column for column in range(columns) if board[column] == 0] == \
                [column for column in range(columns) if position.can_play(column)]
            row = drop(board, column, rows, columns, mark)
            position.play(column)
            assert board[column + row * columns] == mark and (row == rows - 1 or board[column + (row + 1) * columns])
            line = winning_line(board, row, column, rows, columns, inarow)
            assert bool(line) == position.last_player_won()
            if line:
                wins += 1
                assert (row, column) in line and len(line) >= inarow
                assert all(board[c + r * columns] == mark for r, c in line)
                break
            mark = 3 - mark
    assert wins > 100  # most random games end in a win: the check saw many


def test_the_line_is_the_whole_run_through_the_stone_sorted():
    rows, columns = 6, 7
    board = [0] * (rows * columns)
    for column in (0, 1, 3, 4):  # the bottom row: 1 1 . 1 1, then the gap filled
        drop(board, column, rows, columns, 1)
    assert winning_line(board, 5, 4, rows, columns, 4) == ()
    row = drop(board, 2, rows, columns, 1)
    assert winning_line(board, row, 2, rows, columns, 4) == ((5, 0), (5, 1), (5, 2), (5, 3), (5, 4))
    assert winning_line(board, row, 2, rows, columns, 6) == ()


def test_a_stone_completing_two_lines_gives_its_row():
    """The board's game highlights the row when the last stone completes a row and a column."""
    rows, columns = 6, 7
    board = [0] * (rows * columns)
    for row, column in [(2, 0), (2, 1), (2, 2), (5, 3), (4, 3), (3, 3), (2, 3)]:
        board[column + row * columns] = 1
    for row in (3, 4, 5):
        for column in (0, 1, 2):
            board[column + row * columns] = 2
    assert winning_line(board, 2, 3, rows, columns, 4) == ((2, 0), (2, 1), (2, 2), (2, 3))
