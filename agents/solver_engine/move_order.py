"""Search the most promising moves first: those creating the most cells that would win.

Pons' ordering: a move's score is the number of empty cells where the mover would then complete
a line; ties go to the more central column. Good ordering is what keeps alpha-beta's node counts
low, which matters more in Python than raw speed.

The candidates are scored all at once: Python integers have no size limit, so
the boards after each candidate move are laid side by side in one integer ("lanes", with enough
empty bits between them that no shift carries a stone from one lane into another) and one pass
of the threat shifts scores them all. That costs about twice one board, not once per move.
"""

from __future__ import annotations

from typing import Callable

from ..core.position import Geometry
from ..core.winning_cells import WinningCells, any_in_a_row, four_in_a_row

MoveOrderer = Callable[[int, int, int], "list[int]"]

TIE_BITS = 8  # low bits of a sort key: the rank of the column from the centre


def move_orderer(geometry: Geometry, winning_cells: WinningCells) -> MoveOrderer:
    """``f(current, mask, candidates)``: the move bits in ``candidates``, best first."""
    if geometry.columns < 1 << TIE_BITS:
        return _lane_orderer(geometry)
    columns = [geometry.column_masks[c] for c in geometry.center_order]
    shift = max(TIE_BITS, len(columns).bit_length())
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


def _lane_orderer(geometry: Geometry) -> MoveOrderer:
    columns = [geometry.column_masks[c] for c in geometry.center_order]
    k = geometry.inarow
    lane = geometry.columns * geometry.height + (k - 1) * (geometry.height + 1) + 1
    lane_mask = (1 << lane) - 1
    # repeat[n] copies a board into n lanes by one multiplication.
    repeat = [sum(1 << (lane * i) for i in range(n)) for n in range(len(columns) + 1)]
    if k == 4:
        threats_in_lanes = [four_in_a_row(geometry.height, geometry.board * r) for r in repeat]
    else:
        threats_in_lanes = [any_in_a_row(geometry.height, geometry.board * r, k) for r in repeat]
    offsets = [lane * i for i in range(len(columns))]
    low = (1 << TIE_BITS) - 1

    def ordered(current: int, mask: int, candidates: int) -> list[int]:
        if not candidates & (candidates - 1):
            return [candidates]
        moves = [candidates & column for column in columns if candidates & column]
        n = len(moves)
        boards = current * repeat[n]
        for move, offset in zip(moves, offsets):
            boards |= move << offset
        cells = threats_in_lanes[n](boards, mask * repeat[n])
        keys = [(((cells >> offsets[i]) & lane_mask).bit_count() << TIE_BITS) | (low - i) for i in range(n)]
        keys.sort(reverse=True)
        return [moves[low - (k & low)] for k in keys]

    return ordered
