"""Connect 4's rules (6x7, four in a row) compiled with numba, for the n-tuple learner's self-play.

The self-play loop runs inside one compiled function, where the game core (``agents.core.Position``, Python
integers) cannot be called. These kernels are the core's bitboards as ``uint64``: the same bit layout (column c
owns bits 7c .. 7c + 5, bit 7c + 6 an always-empty sentinel), the same drop (``mask + bottom of the column``)
and the same line test (``Geometry.has_line``: a shift per direction). ``tests/training/test_ntuple_rules.py``
plays random games with them beside Kaggle's own Environment and compares every board, every legal move and
every game's end and rewards, field for field.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ROWS, COLUMNS = 6, 7
HEIGHT = ROWS + 1
CELLS = ROWS * COLUMNS
BOTTOM = np.uint64(sum(1 << (c * HEIGHT) for c in range(COLUMNS)))
BOARD = np.uint64(sum(((1 << ROWS) - 1) << (c * HEIGHT) for c in range(COLUMNS)))


@njit(inline="always")
def top_bit(column):
    return np.uint64(1) << np.uint64(ROWS - 1 + column * HEIGHT)


@njit(inline="always")
def bottom_bit(column):
    return np.uint64(1) << np.uint64(column * HEIGHT)


@njit(inline="always")
def column_bits(column):
    return np.uint64((1 << ROWS) - 1) << np.uint64(column * HEIGHT)


@njit
def can_play(mask, column):
    """Is ``column`` (0..6) not full?"""
    return (mask & top_bit(column)) == np.uint64(0)


@njit
def move_bit(mask, column):
    """The cell a stone dropped into ``column`` lands on."""
    return (mask + bottom_bit(column)) & column_bits(column)


@njit
def possible(mask):
    """The cells a stone can be dropped on now."""
    return (mask + BOTTOM) & BOARD


@njit
def has_four(stones):
    """Four of ``stones`` in a row: vertically, horizontally or on either diagonal."""
    for shift in (1, HEIGHT, HEIGHT - 1, HEIGHT + 1):
        s = np.uint64(shift)
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (s + s)):
            return True
    return False


@njit
def wins_now(stones, mask):
    """Can the player owning ``stones`` win with one move (``mask``: every stone on the board)?"""
    for column in range(COLUMNS):
        if can_play(mask, column) and has_four(stones | move_bit(mask, column)):
            return True
    return False


@njit
def winning_cells(stones, mask):
    """The empty cells where one more of ``stones`` completes four in a row (``mask``: every stone on the board):
    the core's ``winning_cells.four_in_a_row`` (Pons' shifts), as ``uint64``."""
    p = stones
    r = (p << np.uint64(1)) & (p << np.uint64(2)) & (p << np.uint64(3))
    for step in (HEIGHT, HEIGHT - 1, HEIGHT + 1):
        s = np.uint64(step)
        q = (p << s) & (p << (s + s))
        r |= q & (p << (s + s + s))
        r |= q & (p >> s)
        q = (p >> s) & (p >> (s + s))
        r |= q & (p << s)
        r |= q & (p >> (s + s + s))
    return r & (BOARD ^ mask)
