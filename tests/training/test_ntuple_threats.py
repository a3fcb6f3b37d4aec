"""The threat tables' entries: the compiled kernel (``training/ntuple/threats.py``) against the agent's numpy
(``agents.ntuple.threat_entries``, the encoding's home), and the compiled ``winning_cells`` against the core's."""

from __future__ import annotations

import random
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("numba")

from kaggle_environments.envs.connectx.connectx import is_win  # noqa: E402

from connectx_toolkit.agents import ntuple as agent  # noqa: E402
from connectx_toolkit.agents.core import Position  # noqa: E402
from connectx_toolkit.training.ntuple import rules, threats  # noqa: E402

ROWS, COLUMNS = 6, 7


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions of random games (no game over yet), from the empty board to nearly full ones."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = Position()
        for _ in range(rng.randrange(42)):
            legal = [c for c in range(COLUMNS) if position.can_play(c)]
            column = rng.choice(legal)
            if position.is_winning_move(column):
                break
            position.play(column)
        found.append(position)
    return found


def first_player(position: Position) -> int:
    return position.current if position.moves % 2 == 0 else position.current ^ position.mask


def by_brute_force(position: Position) -> list[int]:
    """The eight entries as the encoding's comment defines them, cell by cell (Kaggle's ``is_win`` asked of
    every empty cell for each player, as if a stone could be dropped there)."""
    board = [0] * (ROWS * COLUMNS)
    first = first_player(position)
    for column in range(COLUMNS):
        for row in range(ROWS):
            bit = 1 << (column * (ROWS + 1) + row)
            if position.mask & bit:
                board[(ROWS - 1 - row) * COLUMNS + column] = 1 if first & bit else 2
    config = SimpleNamespace(rows=ROWS, columns=COLUMNS, inarow=4)
    entries, kinds = [], []
    side = position.moves % 2
    for column in range(COLUMNS):
        height = sum(1 for row in range(ROWS) if position.mask & (1 << (column * (ROWS + 1) + row)))
        pattern, kind = 0, "none"
        for row in range(height, ROWS):
            code = 0
            for mark, value in ((1, 1), (2, 2)):
                trial = list(board)
                trial[(ROWS - 1 - row) * COLUMNS + column] = mark
                if is_win(trial, column, mark, config, has_played=True):
                    code += value
            pattern += code * 4 ** (row - height)
            if kind == "none" and code:
                kind = "both" if code == 3 else ("first" if code == 1 else "second", row % 2)
        kinds.append(kind)
        entries.append(side * agent.THREAT_SIDE + agent.COLUMN_TABLES[column] * agent.COLUMN_SIZE
                       + agent.COLUMN_BASE[height] + pattern)
    counts = [min(kinds.count(k), 2) for k in (("first", 0), ("first", 1), ("second", 0), ("second", 1))]
    lowest = (((counts[0] * 3 + counts[1]) * 3 + counts[2]) * 3 + counts[3]) * 2 + ("both" in kinds)
    return entries + [side * agent.THREAT_SIDE + agent.LOWEST_BASE + lowest]


def test_the_agents_threat_entries_are_the_encodings_cell_by_cell():
    positions = random_positions(150, seed=1)
    found = np.array([agent.threat_entries(first_player(p), p.mask, p.moves) for p in positions])
    assert found.tolist() == [by_brute_force(p) for p in positions]
    assert (found >= 0).all() and (found < threats.THREAT_SIZE).all()
    assert len({tuple(row) for row in found.tolist()}) > 100  # the positions are told apart
    assert len(set(found[:, -1].tolist())) > 10  # and their lowest winning cells


def test_the_compiled_entries_equal_the_agents():
    out = np.zeros(threats.THREAT_SLOTS + 3, dtype=np.int64)
    for position in random_positions(400, seed=2):
        first = first_player(position)
        threats.threat_entries(np.uint64(first), np.uint64(position.mask), position.moves, 1000, out, 3)
        assert out[3:].tolist() == [e + 1000 for e in agent.threat_entries(first, position.mask, position.moves)]


def test_the_compiled_winning_cells_are_the_cores():
    for position in random_positions(300, seed=3):
        for stones in (position.current, position.current ^ position.mask):
            expected = position.geometry.winning_cells(stones, position.mask)
            assert int(rules.winning_cells(np.uint64(stones), np.uint64(position.mask))) == expected
