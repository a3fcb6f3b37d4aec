"""The n-tuples and the board encoding: which cells each tuple reads, and what a cell's state is.

70 fixed 8-tuples over the 6x7 board, the number and length of Thill, Bagheri, Koch and Konen's Connect 4
agents (GBG, ``src/games/CFour``), and 70 more drawn the same way (a network reads the first n: ``tuple_set``). Like theirs, each tuple is a "snake": a random walk of 8 distinct cells, each
a neighbour (across a side or a corner) of the one before. These were drawn once (random walks, seed 20121;
a tuple equal to an earlier one or to its mirror image skipped) and are kept fixed here, so that every run and
every weights file speak of the same tuples.

A cell is named ``column * 6 + row`` with row 0 the bottom row. Its state is one of four:
``EMPTY`` (empty and not yet playable), ``FIRST`` (a stone of the player who moved first), ``SECOND`` (a stone
of the other player), ``PLAYABLE`` (empty, and a stone dropped into its column lands on it). The first player's
and the second's stones are told apart, not "mine" and "theirs" from the mover's side: in Connect 4 whose
threat sits on an odd or an even row decides games, and only the colours say whose it is. A tuple's index is
``sum(state(cell_j) * 4**j)``, one of 4**8 = 65,536 entries of its look-up table.

Mirror symmetry: every tuple is read twice, on the board and on its left-right mirror image, into the same
table; so ``slot_cells`` lists 2n slots for n tuples, the tuples then their mirror images (slot ``n + t`` reads
tuple ``t``'s table).
"""

from __future__ import annotations

import numpy as np

# The encoding's one home is the agent that reads it at play time.
from connectx_toolkit.agents.ntuple_engine.network import (CELLS, COLUMNS, EMPTY, FIRST, PLAYABLE, ROWS, SECOND, STATES,
                                            mirror_cell, slots)

__all__ = ["CELLS", "COLUMNS", "EMPTY", "FIRST", "PLAYABLE", "MORE_TUPLES", "MOST_TUPLES", "ROWS", "SECOND", "STATES",
           "TABLE_SIZE", "TUPLES", "mirror_cell", "slot_cells", "slot_tables", "tuple_set"]

TUPLE_LENGTH = 8
TABLE_SIZE = STATES ** TUPLE_LENGTH  # 65,536 entries a tuple

TUPLES: tuple[tuple[int, ...], ...] = (
    (41, 34, 35, 28, 21, 22, 23, 29), (13, 8, 15, 22, 21, 27, 32, 37), (29, 35, 34, 41, 40, 39, 32, 38),
    (8, 13, 18, 25, 20, 27, 34, 28), (36, 31, 26, 19, 25, 20, 27, 32), (6, 7, 1, 8, 3, 2, 9, 16),
    (24, 18, 19, 20, 21, 26, 32, 31), (12, 13, 6, 1, 2, 8, 3, 9), (17, 23, 22, 15, 14, 9, 4, 5),
    (10, 4, 5, 11, 16, 23, 29, 35), (13, 20, 15, 22, 21, 16, 9, 8), (31, 26, 33, 38, 37, 32, 39, 40),
    (25, 24, 18, 12, 6, 13, 8, 9), (4, 10, 3, 2, 8, 1, 6, 7), (17, 23, 28, 29, 22, 27, 21, 20),
    (13, 12, 6, 1, 7, 14, 19, 26), (2, 7, 6, 0, 1, 8, 14, 21), (3, 8, 7, 6, 0, 1, 2, 9),
    (26, 31, 24, 19, 18, 12, 7, 8), (19, 20, 25, 24, 18, 13, 6, 7), (36, 30, 24, 19, 20, 13, 12, 18),
    (10, 9, 15, 21, 16, 22, 28, 27), (7, 8, 14, 21, 15, 22, 27, 26), (38, 39, 33, 40, 34, 41, 35, 29),
    (33, 40, 39, 34, 27, 32, 26, 25), (10, 3, 4, 5, 11, 16, 15, 21), (11, 17, 16, 10, 3, 9, 15, 8),
    (12, 18, 25, 26, 21, 28, 33, 34), (12, 19, 14, 9, 10, 5, 4, 11), (41, 35, 29, 28, 22, 16, 15, 10),
    (41, 35, 28, 21, 22, 16, 17, 10), (21, 14, 9, 3, 8, 15, 16, 10), (14, 9, 8, 7, 0, 6, 12, 19),
    (8, 2, 9, 4, 3, 10, 16, 22), (12, 13, 19, 14, 20, 25, 32, 26), (18, 19, 26, 25, 20, 15, 14, 21),
    (24, 30, 36, 31, 25, 18, 19, 13), (6, 7, 14, 13, 8, 9, 3, 2), (32, 26, 31, 37, 38, 39, 34, 40),
    (11, 4, 3, 9, 16, 23, 22, 27), (23, 17, 10, 3, 2, 9, 14, 19), (5, 10, 11, 16, 21, 22, 28, 35),
    (0, 7, 1, 2, 3, 8, 15, 16), (20, 13, 19, 24, 25, 26, 27, 34), (21, 16, 23, 28, 29, 34, 33, 26),
    (38, 32, 31, 24, 25, 19, 26, 20), (9, 14, 15, 22, 16, 23, 29, 35), (26, 25, 31, 30, 24, 19, 14, 13),
    (0, 1, 2, 7, 13, 18, 19, 20), (9, 2, 3, 4, 10, 16, 15, 22), (22, 23, 16, 21, 26, 19, 14, 8),
    (41, 34, 33, 32, 31, 26, 19, 18), (28, 22, 17, 23, 29, 34, 27, 21), (19, 12, 7, 13, 14, 8, 9, 15),
    (34, 28, 21, 16, 17, 10, 5, 11), (25, 32, 37, 30, 36, 31, 24, 19), (41, 35, 40, 34, 27, 33, 39, 32),
    (30, 37, 38, 33, 28, 23, 16, 21), (39, 33, 40, 41, 35, 29, 22, 23), (15, 14, 9, 10, 11, 5, 4, 3),
    (30, 37, 31, 32, 38, 39, 34, 41), (21, 22, 17, 10, 16, 9, 15, 14), (10, 5, 4, 3, 2, 1, 7, 13),
    (40, 35, 41, 34, 28, 21, 14, 13), (6, 13, 20, 27, 34, 33, 28, 22), (12, 19, 18, 24, 30, 25, 20, 14),
    (20, 26, 21, 16, 11, 17, 23, 29), (17, 16, 21, 26, 32, 27, 34, 29), (24, 30, 36, 31, 37, 32, 26, 21),
    (0, 1, 7, 2, 3, 4, 11, 16),
)

# 70 more, drawn the same way after the 70 (random walks, numpy's default_rng(20122); a tuple whose cells are an
# earlier one's, or its mirror image's, skipped): a network of n tuples reads the first n of the 140
# (``tuple_set``; ``NTupleSettings.tuples``). Twice the tuples see twice the patterns, at about half the games a
# CPU-second.
MORE_TUPLES: tuple[tuple[int, ...], ...] = (
    (41, 35, 28, 33, 40, 39, 34, 29), (27, 34, 29, 23, 22, 28, 21, 16), (17, 23, 22, 21, 16, 11, 5, 4),
    (40, 41, 35, 34, 28, 33, 39, 32), (21, 22, 17, 10, 9, 14, 15, 20), (35, 34, 29, 23, 28, 27, 20, 13),
    (22, 21, 26, 33, 39, 34, 27, 28), (28, 33, 40, 41, 34, 35, 29, 23), (28, 33, 38, 31, 30, 37, 32, 27),
    (14, 9, 16, 23, 22, 17, 11, 5), (13, 18, 25, 19, 14, 8, 15, 10), (12, 13, 6, 1, 2, 8, 14, 19),
    (11, 10, 5, 4, 3, 2, 9, 8), (26, 33, 34, 39, 32, 25, 19, 13), (38, 39, 34, 40, 33, 26, 21, 28),
    (26, 25, 30, 36, 37, 38, 31, 24), (34, 27, 33, 38, 37, 31, 32, 26), (10, 17, 23, 22, 29, 28, 21, 20),
    (23, 17, 16, 10, 3, 4, 9, 8), (18, 24, 25, 32, 37, 38, 33, 28), (35, 28, 27, 34, 41, 40, 33, 39),
    (13, 12, 19, 25, 18, 24, 31, 32), (32, 37, 38, 39, 33, 28, 35, 40), (24, 19, 20, 25, 26, 33, 38, 31),
    (38, 33, 27, 22, 23, 29, 28, 35), (36, 30, 31, 38, 33, 39, 32, 26), (31, 37, 36, 30, 25, 19, 20, 14),
    (38, 31, 37, 30, 24, 19, 13, 12), (21, 20, 13, 7, 14, 15, 8, 1), (36, 30, 24, 25, 18, 19, 26, 27),
    (14, 13, 20, 19, 24, 30, 31, 26), (15, 10, 16, 11, 4, 3, 2, 1), (40, 41, 35, 29, 23, 22, 15, 14),
    (10, 4, 9, 16, 21, 27, 32, 33), (25, 32, 26, 20, 15, 22, 21, 27), (24, 19, 14, 21, 22, 28, 23, 17),
    (39, 33, 28, 27, 26, 32, 31, 24), (41, 35, 40, 39, 32, 37, 36, 31), (25, 30, 36, 31, 32, 26, 21, 20),
    (8, 13, 12, 18, 19, 24, 25, 31), (30, 25, 18, 12, 6, 1, 0, 7), (6, 0, 1, 2, 8, 13, 19, 25),
    (11, 17, 22, 23, 29, 28, 33, 26), (4, 11, 10, 15, 21, 28, 27, 20), (28, 34, 35, 41, 40, 39, 32, 26),
    (27, 32, 25, 18, 13, 8, 2, 9), (11, 10, 15, 14, 20, 21, 22, 29), (26, 20, 13, 12, 6, 7, 1, 0),
    (22, 27, 21, 26, 33, 39, 40, 41), (32, 39, 34, 27, 33, 26, 21, 22), (7, 14, 9, 4, 3, 10, 11, 17),
    (11, 17, 23, 29, 22, 16, 21, 28), (16, 22, 27, 34, 35, 40, 39, 33), (26, 19, 24, 25, 30, 36, 37, 38),
    (4, 9, 2, 1, 8, 15, 14, 21), (24, 31, 25, 19, 13, 6, 7, 2), (15, 22, 16, 9, 3, 2, 8, 14),
    (14, 15, 8, 1, 2, 9, 16, 11), (10, 4, 5, 11, 17, 16, 21, 15), (4, 3, 8, 9, 14, 20, 25, 30),
    (38, 33, 39, 32, 27, 26, 21, 28), (30, 31, 24, 25, 19, 12, 13, 14), (24, 18, 19, 25, 32, 38, 37, 36),
    (18, 12, 7, 6, 13, 19, 26, 32), (20, 15, 21, 22, 23, 17, 11, 10), (18, 24, 19, 13, 8, 14, 15, 20),
    (19, 13, 18, 25, 30, 24, 31, 26), (34, 28, 21, 15, 9, 14, 13, 19), (18, 25, 30, 36, 37, 31, 38, 39),
    (8, 13, 19, 25, 30, 31, 38, 32),
)
MOST_TUPLES = len(TUPLES) + len(MORE_TUPLES)


def tuple_set(count: int) -> tuple[tuple[int, ...], ...]:
    """The tuples of a network of ``count`` (1 .. 140, checked by ``NTupleSettings``): the 70 fixed ones, then the
    70 more, the first ``count``."""
    return (TUPLES + MORE_TUPLES)[:count]


def slot_cells(tuples: tuple[tuple[int, ...], ...] = TUPLES) -> np.ndarray:
    """The cells each of the 2 x len(tuples) slots reads: the tuples, then their mirror images (int64)."""
    return slots(tuples)[0]


def slot_tables(tuples: tuple[tuple[int, ...], ...] = TUPLES) -> np.ndarray:
    """The look-up table each slot reads (slot s and slot len(tuples) + s share table s)."""
    return slots(tuples)[1]
