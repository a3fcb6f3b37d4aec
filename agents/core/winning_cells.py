"""Cells that would complete a line: the basis of win tests, move ordering, pruning and evaluation.

Pascal Pons' ``compute_winning_position`` for four in a row needs only a handful of shifts per
direction; that specialisation is what makes the pure-Python search fast on Connect 4. Other
``inarow`` values use :func:`any_in_a_row` (tested against a brute force over every window in
tests/test_core.py). The bit layout is the core's (see position.py): ``height`` bits per column.
"""

from __future__ import annotations

from typing import Callable

WinningCells = Callable[[int, int], int]


def winning_cells_function(height: int, board: int, inarow: int) -> WinningCells:
    """``f(stones, mask)``: the empty cells where one more stone completes a line for ``stones``."""
    if inarow == 4:
        return four_in_a_row(height, board)
    return any_in_a_row(height, board, inarow)


def any_in_a_row(height: int, board: int, inarow: int) -> WinningCells:
    """The same for any ``inarow``: a cell completes a line if ``a`` stones lie next to it on one side
    and ``inarow - 1 - a`` on the other; runs on each side grow one shift at a time."""
    steps = [[j * d for j in range(1, inarow)] for d in (1, height, height - 1, height + 1)]
    sides = range(inarow)

    def winning_cells(p: int, mask: int) -> int:
        cells = 0
        for shifts in steps:
            below, above = [board], [board]  # below[j]: the j nearest cells on that side are stones
            for s in shifts:
                below.append(below[-1] & (p << s))
                above.append(above[-1] & (p >> s))
            for a in sides:
                cells |= below[a] & above[-1 - a]
        return cells & (board ^ mask)

    return winning_cells


def four_in_a_row(height: int, board: int) -> WinningCells:
    """Pons' shifts for ``inarow == 4``; ``board`` may hold several boards side by side (see move_order)."""
    h, d1, d2 = height, height - 1, height + 1
    h2, h3, a2, a3, b2, b3 = 2 * h, 3 * h, 2 * d1, 3 * d1, 2 * d2, 3 * d2

    def winning_cells(p: int, mask: int) -> int:
        # Vertical: only three stones below an empty cell count.
        r = (p << 1) & (p << 2) & (p << 3)
        # Each other direction: the empty cell is at one of the four places of a window.
        q = (p << h) & (p << h2)
        r |= q & (p << h3)
        r |= q & (p >> h)
        q = (p >> h) & (p >> h2)
        r |= q & (p << h)
        r |= q & (p >> h3)
        q = (p << d1) & (p << a2)
        r |= q & (p << a3)
        r |= q & (p >> d1)
        q = (p >> d1) & (p >> a2)
        r |= q & (p << d1)
        r |= q & (p >> a3)
        q = (p << d2) & (p << b2)
        r |= q & (p << b3)
        r |= q & (p >> d2)
        q = (p >> d2) & (p >> b2)
        r |= q & (p << d2)
        r |= q & (p >> b3)
        return r & (board ^ mask)

    return winning_cells
