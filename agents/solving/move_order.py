"""Search the most promising moves first: those creating the most cells that would win.

Pons' ordering: a move's score is the number of empty cells where the mover would then complete
a line; ties go to the more central column. Good ordering is what keeps alpha-beta's node counts
low, which matters more in Python than raw speed.
"""

from __future__ import annotations

from typing import Callable

from agents.core.position import Geometry
from agents.solving.threats import WinningCells

MoveOrderer = Callable[[int, int, int], "list[int]"]


def move_orderer(geometry: Geometry, winning_cells: WinningCells) -> MoveOrderer:
    """``f(current, mask, candidates)``: the move bits in ``candidates``, best first."""
    columns = [geometry.column_masks[c] for c in geometry.center_order]
    shift = max(8, len(columns).bit_length())
    low = (1 << shift) - 1

    def ordered(current: int, mask: int, candidates: int) -> list[int]:
        if not candidates & (candidates - 1):
            return [candidates]
        keys = []
        for rank, column in enumerate(columns):
            move = candidates & column
            if move:
                # Higher threat count first, then the lower rank (the more central column).
                keys.append((winning_cells(current | move, mask).bit_count() << shift) | (low - rank))
        keys.sort(reverse=True)
        return [candidates & columns[low - (k & low)] for k in keys]

    return ordered
