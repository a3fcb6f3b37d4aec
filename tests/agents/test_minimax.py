"""The course's N-step minimax on bitboards scores every move exactly as the course notebook does."""

import random
import time

import numpy as np
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import minimax
from connectx_toolkit.agents.core import Config, Position
from tools.sample_positions import undecided_position

# --- The course notebook's code, transcribed as written (list board, numpy grid windows). ---------
# Only change: np.Inf is spelled np.inf (numpy 2 removed the alias).


def drop_piece(grid, col, mark, config):
    next_grid = grid.copy()
    for row in range(config.rows - 1, -1, -1):
        if next_grid[row][col] == 0:
            break
    next_grid[row][col] = mark
    return next_grid


def check_window(window, num_discs, piece, config):
    return window.count(piece) == num_discs and window.count(0) == config.inarow - num_discs


def count_windows(grid, num_discs, piece, config):
    num_windows = 0
    for row in range(config.rows):
        for col in range(config.columns - (config.inarow - 1)):
            window = list(grid[row, col:col + config.inarow])
            if check_window(window, num_discs, piece, config):
                num_windows += 1
    for row in range(config.rows - (config.inarow - 1)):
        for col in range(config.columns):
            window = list(grid[row:row + config.inarow, col])
            if check_window(window, num_discs, piece, config):
                num_windows += 1
    for row in range(config.rows - (config.inarow - 1)):
        for col in range(config.columns - (config.inarow - 1)):
            window = list(grid[range(row, row + config.inarow), range(col, col + config.inarow)])
            if check_window(window, num_discs, piece, config):
                num_windows += 1
    for row in range(config.inarow - 1, config.rows):
        for col in range(config.columns - (config.inarow - 1)):
            window = list(grid[range(row, row - config.inarow, -1), range(col, col + config.inarow)])
            if check_window(window, num_discs, piece, config):
                num_windows += 1
    return num_windows


def get_heuristic(grid, mark, config):
    num_threes = count_windows(grid, 3, mark, config)
    num_fours = count_windows(grid, 4, mark, config)
    num_threes_opp = count_windows(grid, 3, mark % 2 + 1, config)
    num_fours_opp = count_windows(grid, 4, mark % 2 + 1, config)
    score = num_threes - 1e2 * num_threes_opp - 1e4 * num_fours_opp + 1e6 * num_fours
    return score


def score_move(grid, col, mark, config, nsteps):
    next_grid = drop_piece(grid, col, mark, config)
    score = course_minimax(next_grid, nsteps - 1, False, mark, config)
    return score


def is_terminal_window(window, config):
    return window.count(1) == config.inarow or window.count(2) == config.inarow


def is_terminal_node(grid, config):
    if list(grid[0, :]).count(0) == 0:
        return True
    for row in range(config.rows):
        for col in range(config.columns - (config.inarow - 1)):
            window = list(grid[row, col:col + config.inarow])
            if is_terminal_window(window, config):
                return True
    for row in range(config.rows - (config.inarow - 1)):
        for col in range(config.columns):
            window = list(grid[row:row + config.inarow, col])
            if is_terminal_window(window, config):
                return True
    for row in range(config.rows - (config.inarow - 1)):
        for col in range(config.columns - (config.inarow - 1)):
            window = list(grid[range(row, row + config.inarow), range(col, col + config.inarow)])
            if is_terminal_window(window, config):
                return True
    for row in range(config.inarow - 1, config.rows):
        for col in range(config.columns - (config.inarow - 1)):
            window = list(grid[range(row, row - config.inarow, -1), range(col, col + config.inarow)])
            if is_terminal_window(window, config):
                return True
    return False


def course_minimax(node, depth, maximizingPlayer, mark, config):
    is_terminal = is_terminal_node(node, config)
    valid_moves = [c for c in range(config.columns) if node[0][c] == 0]
    if depth == 0 or is_terminal:
        return get_heuristic(node, mark, config)
    if maximizingPlayer:
        value = -np.inf
        for col in valid_moves:
            child = drop_piece(node, col, mark, config)
            value = max(value, course_minimax(child, depth - 1, False, mark, config))
        return value
    else:
        value = np.inf
        for col in valid_moves:
            child = drop_piece(node, col, mark % 2 + 1, config)
            value = min(value, course_minimax(child, depth - 1, True, mark, config))
        return value


def course_scores(obs, config, nsteps):
    valid_moves = [c for c in range(config.columns) if obs.board[c] == 0]
    grid = np.asarray(obs.board).reshape(config.rows, config.columns)
    return dict(zip(valid_moves, [score_move(grid, col, obs.mark, config, nsteps) for col in valid_moves]))


# --- Tests ----------------------------------------------------------------------------------------

CONFIG = Struct(rows=6, columns=7, inarow=4)


def sample_positions(count, seed):
    """Positions from random games, 0..24 plies deep, none already decided."""
    rng = random.Random(seed)
    return [undecided_position(rng, Config(), rng.randrange(0, 25)) for _ in range(count)]


def obs_of(pos):
    mark = 1 if pos.moves % 2 == 0 else 2
    return Struct(board=pos.to_board(mark), mark=mark)


def test_same_scores_as_the_course_notebook_and_faster():
    ours_s = course_s = 0.0
    for pos in sample_positions(8, seed=3):
        obs = obs_of(pos)
        t0 = time.perf_counter()
        expected = course_scores(obs, CONFIG, 3)
        t1 = time.perf_counter()
        got = minimax.score_moves(Position.from_kaggle(obs, CONFIG), 3)
        t2 = time.perf_counter()
        course_s += t1 - t0
        ours_s += t2 - t1
        assert got == expected, str(pos)
    print(f"\ncourse notebook {course_s:.2f} s, bitboard {ours_s:.3f} s: {course_s / ours_s:.0f}x faster")


def test_heuristic_counts_course_windows_on_a_hand_made_position():
    # X (to move) has 3 in a row on the bottom at columns 0-2; O has 2 stacked in column 6.
    pos = Position.from_moves([0, 6, 1, 6, 2])  # O to move now
    x, o = pos.opponent, pos.current
    g = pos.geometry
    # X's three: window cols 0-3 holds 3 X + 1 empty; cols 1-4 holds only 2. O has no three.
    assert minimax.heuristic(x, o, g) == 1.0
    # From O's side: one X three counts -100.
    assert minimax.heuristic(o, x, g) == -100.0
    # After X completes the line: 1 four (+1e6); window 1-4 now holds three X and one empty (+1).
    won = x | pos.move_bit(3)
    assert minimax.heuristic(won, o, g) == 1e6 + 1


def test_takes_a_win_and_blocks_a_loss():
    assert minimax.choose(Position.from_string("121212")) == 0  # X wins in column 1
    assert minimax.choose(Position.from_string("12131")) == 0  # O must block column 1


def test_agent_plays_large_boards_with_plain_ints():
    cfg = Struct(rows=10, columns=12, inarow=5)
    pos = Position(Config(10, 12, 5))
    for _ in range(6):
        move = minimax.agent(Struct(board=pos.to_board(), mark=1 + pos.moves % 2), cfg)
        assert type(move) is int and pos.can_play(move)
        pos.play(move)
