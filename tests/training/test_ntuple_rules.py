"""The n-tuple learner's compiled rules (``training/ntuple/rules.py``) against Kaggle's own Environment.

Random games (6x7, four in a row: the only board the learner plays) are played on
``kaggle_environments.make("connectx")``; at every step the kernels are asked what Kaggle shows: which columns
are playable, whether the mover can win with one move (Kaggle's ``is_win`` for each column), the board
after the move (rebuilt from the kernels' bitboards), whether the move won, whether the game is over, and the
rewards; field for field. Also: the network's incremental evaluation (the kernels) against
the agent's numpy evaluation from scratch, position for position.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("numba")

from kaggle_environments import make  # noqa: E402
from kaggle_environments.envs.connectx.connectx import is_win  # noqa: E402

from connectx_toolkit.agents import ntuple as agent  # noqa: E402
from connectx_toolkit.agents.core import Position  # noqa: E402
from connectx_toolkit.training.ntuple import rules  # noqa: E402
from connectx_toolkit.training.ntuple import tuples as tp  # noqa: E402
from connectx_toolkit.training.ntuple.network import (  # noqa: E402
    apply_move, make_layout, moved_sum, slot_indices, table_sum)

ROWS, COLUMNS = 6, 7
GAMES = 60


def kaggle_board(first: int, mask: int) -> list[int]:
    """Kaggle's flat board (row 0 the top) from the kernels' bitboards (mark 1 moved first)."""
    board = [0] * (ROWS * COLUMNS)
    for column in range(COLUMNS):
        for row in range(ROWS):
            bit = 1 << (column * (ROWS + 1) + row)
            if mask & bit:
                board[(ROWS - 1 - row) * COLUMNS + column] = 1 if first & bit else 2
    return board


def wins_at_once(board: list[int], mark: int, column: int) -> bool:
    """Does ``column`` win at once for ``mark``? Kaggle's own rule (its connectx module's ``is_win``)."""
    return is_win(board, column, mark, SimpleNamespace(rows=ROWS, columns=COLUMNS, inarow=4), has_played=False)


@pytest.mark.parametrize("seed", range(3))
def test_the_kernels_play_as_kaggle_does(seed):
    rng = random.Random(seed)
    env = make("connectx", configuration={"rows": ROWS, "columns": COLUMNS, "inarow": 4})
    ends = {"win": 0, "draw": 0}
    for _ in range(GAMES // 3):
        env.reset()
        first = mask = np.uint64(0)
        moves = 0
        while not env.done:
            board = env.state[0].observation.board
            assert kaggle_board(int(first), int(mask)) == board
            playable = [c for c in range(COLUMNS) if rules.can_play(mask, c)]
            assert playable == [c for c in range(COLUMNS) if board[c] == 0]
            assert int(rules.possible(mask)) == sum(int(rules.move_bit(mask, c)) for c in playable)
            column = rng.choice(playable)
            seat = moves % 2
            mover = first if seat == 0 else first ^ mask
            # Can the mover win with one move? Kaggle's own rule for each playable column.
            assert rules.wins_now(mover, mask) == any(wins_at_once(board, seat + 1, c) for c in playable)
            bit = rules.move_bit(mask, column)
            won = rules.has_four(mover | bit)
            actions = [0, 0]
            actions[seat] = column
            env.step(actions)
            if seat == 0:
                first |= bit
            mask |= bit
            moves += 1
            assert kaggle_board(int(first), int(mask)) == env.state[0].observation.board
            assert env.done == (won or moves == ROWS * COLUMNS)
            if env.done:
                winner = [1, -1] if seat == 0 else [-1, 1]
                assert [s.reward for s in env.state] == (winner if won else [0, 0])
                ends["win" if won else "draw"] += 1
    assert ends["win"] > 0


def test_the_line_test_sees_every_four_and_nothing_else():
    """Every one of the 69 lines of four is four; no three-stone subset of one is; no line wraps a column."""
    from connectx_toolkit.agents.core import Config
    from connectx_toolkit.agents.core.lines import windows

    lines = windows(Config())
    assert len(lines) == 69
    for line in lines:
        assert rules.has_four(np.uint64(line))
        bits = [1 << b for b in range(64) if line >> b & 1]
        for dropped in bits:
            assert not rules.has_four(np.uint64(line ^ dropped))
    # Column 0's top three cells and column 1's bottom one: adjacent bits, split by the always-empty sentinel.
    assert not rules.has_four(np.uint64(0b111 << 3 | 1 << 7))


@pytest.mark.parametrize("sets", [1, 2])
def test_the_kernels_value_positions_as_the_agent_does(sets):
    """The trainer's incremental sums (``moved_sum``, ``apply_move``) equal the agent's numpy values from scratch,
    with one set of tables and with a set for each side to move (the odd positions' set ``stride`` entries on)."""
    layout = make_layout()
    rng = np.random.default_rng(5)
    stride = layout.tables * tp.TABLE_SIZE if sets == 2 else 0
    weights = rng.normal(0, 0.05, sets * layout.tables * tp.TABLE_SIZE)
    network = agent.network_from(tp.TUPLES, weights.reshape(-1, tp.TABLE_SIZE), {})
    change = np.zeros(layout.slots, dtype=np.int64)
    for game in range(20):
        position = Position()
        indices = layout.empty_indices.copy()
        heights = [0] * COLUMNS
        while not position.is_full():
            assert (indices == slot_indices(agent.cell_states(position), layout.slot_cells)).all()
            shift, child_shift = (position.moves % 2) * stride, ((position.moves + 1) % 2) * stride
            total = table_sum(weights.astype(np.float32).astype(np.float64), layout.slot_offsets, indices, shift)
            here = agent.cell_states(position)
            assert np.isclose(np.tanh(total), network.values(here[None, :])[0], atol=1e-6)
            colour = 1 if position.moves % 2 == 0 else 2
            for column in position.legal_moves():
                cell = column * ROWS + heights[column]
                above = cell + 1 if heights[column] + 1 < ROWS else -1
                moved = moved_sum(weights, layout.slot_offsets, indices,
                                  table_sum(weights, layout.slot_offsets, indices, child_shift),
                                  cell, colour, above, layout.cell_slots, layout.cell_powers, change, child_shift)
                assert not change.any()
                after = agent.cell_states(position.played(column))
                assert np.isclose(np.tanh(moved), float(np.tanh(weights[
                    (after[layout.slot_cells] * 4 ** np.arange(8)).sum(axis=1) + layout.slot_offsets
                    + child_shift].sum())))
            column = int(rng.choice(position.legal_moves()))
            won = position.is_winning_move(column)
            cell = column * ROWS + heights[column]
            above = cell + 1 if heights[column] + 1 < ROWS else -1
            apply_move(indices, cell, colour, above, layout.cell_slots, layout.cell_powers)
            heights[column] += 1
            position.play(column)
            if won:
                break
