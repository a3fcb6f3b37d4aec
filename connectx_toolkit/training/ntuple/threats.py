"""The threat tables' entries, compiled: each column's empty cells read as whose winning cell each is, and the
count of columns whose lowest winning cell is each player's on an odd or an even row.

Connect 4's long games are decided by zugzwang: which player's winning cells sit on odd rows and which on even
ones, and who must move under whose. No 8-tuple sees a threat (it needs the three stones that make it) and its
row's parity at once; these features do: for each column, the pattern of its empty cells, each coded by whose
winning cell it is (the rules' ``winning_cells``), in a table shared with its mirror column; and for the board,
how many columns' lowest winning cell is of each kind (whose, which row parity); one set of tables for each side
to move. The encoding's one home is the agent that reads it at play time
(``agents.ntuple_engine.network.threat_entries``, numpy); ``tests/training/test_ntuple_threats.py`` proves the two
equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from connectx_toolkit.agents.ntuple_engine.network import (COLUMN_BASE, COLUMN_SIZE, COLUMN_TABLES, LOWEST_BASE,
                                                           THREAT_SHAPE, THREAT_SIDE, THREAT_SLOTS)

from . import rules

__all__ = ["THREAT_SHAPE", "THREAT_SIZE", "THREAT_SLOTS", "threat_entries"]

THREAT_SIZE = int(np.prod(THREAT_SHAPE))  # entries in all: 2 sides x (4 tables x 5,461 + 162)
_BASE = np.array(COLUMN_BASE, dtype=np.int64)
_OFFSETS = np.array(COLUMN_TABLES, dtype=np.int64) * COLUMN_SIZE


@njit
def threat_entries(first, mask, stones, base, out, offset):
    """Write the position's ``THREAT_SLOTS`` entries (the threat tables starting ``base`` entries on) into
    ``out[offset:offset + 8]``: ``first`` the first player's stones, ``mask`` all, ``stones`` their count."""
    own = rules.winning_cells(first, mask)
    their = rules.winning_cells(first ^ mask, mask)
    side = base + (stones % 2) * THREAT_SIDE
    kinds = np.zeros(6, dtype=np.int64)  # columns by their lowest winning cell's kind (network.column_lookup's)
    for column in range(rules.COLUMNS):
        height = 0
        while height < rules.ROWS and (mask >> np.uint64(column * rules.HEIGHT + height)) & np.uint64(1):
            height += 1
        pattern = 0
        place = 1
        kind = 0
        for row in range(height, rules.ROWS):
            bit = np.uint64(1) << np.uint64(column * rules.HEIGHT + row)
            code = (1 if own & bit else 0) + (2 if their & bit else 0)
            pattern += code * place
            place *= 4
            if kind == 0 and code != 0:
                kind = 5 if code == 3 else 1 + 2 * (code - 1) + row % 2
        out[offset + column] = side + _OFFSETS[column] + _BASE[height] + pattern
        kinds[kind] += 1
    lowest = 1 if kinds[5] > 0 else 0
    for kind, scale in ((1, 54), (2, 18), (3, 6), (4, 2)):
        lowest += min(kinds[kind], 2) * scale
    out[offset + rules.COLUMNS] = side + LOWEST_BASE + lowest
