"""How good a position looks when the search cannot see to the end.

For each player, every window of ``inarow`` cells still free of the opponent counts, the more of
the player's stones it holds the more (weights grow fourfold per stone); each empty cell that
would complete a line counts extra, and more on the rows where the player can expect to get it
(Allis' parity rule: on 6x7 odd rows for the first player, even rows for the second; reversed on
boards whose other columns hold an odd number of cells, see ``good_rows_of_first_player``). Windows are
counted on bitboards, one direction at a time, so the cost grows with ``inarow``, not with the
board's size.
"""

from __future__ import annotations

from typing import Callable

from ..core.position import Geometry
from ..core.winning_cells import WinningCells

Evaluation = Callable[[int, int, int], int]

THREAT = 24  # per cell that completes a line
PARITY_THREAT = 16  # extra when that cell lies on the player's good rows


def good_rows_of_first_player(rows: int, columns: int) -> range:
    """Rows (0 = bottom) whose cells fall to the first player when the board fills up to the end.

    If one column is left when the others are full, its cell on row ``i`` is the move of ply
    ``rows * (columns - 1) + i`` (from 0), and the first player makes the even plies. With an even
    number of cells in the other columns (6x7: 36) that is rows 0, 2, 4 (Allis' odd rows, counted
    from 1); with an odd number (5x6: 25, 7x8: 49) it is rows 1, 3: the rule is reversed.
    """
    return range((rows * (columns - 1)) % 2, rows, 2)


def evaluation(geometry: Geometry, winning_cells: WinningCells) -> Evaluation:
    """``f(current, mask, moves)``: the position's value for the player to move (no side has won)."""
    board, k = geometry.board, geometry.inarow
    shifts = [[i * d for i in range(k)] for d in geometry.directions]
    weights = [0] + [4 ** j for j in range(k - 1)]  # by number of own stones in a free window
    first_rows = 0  # cells the first player can expect to get: see good_rows_of_first_player
    for column in range(geometry.columns):
        for row in good_rows_of_first_player(geometry.rows, geometry.columns):
            first_rows |= geometry.bit(column, row)
    second_rows = board & ~first_rows

    def windows(own: int, free: int) -> int:
        if k == 4:
            return four_windows(own, free)
        total = 0
        for offsets in shifts:
            open_starts = free
            for s in offsets[1:]:
                open_starts &= free >> s
            if not open_starts:
                continue
            # at_least[j]: window starts holding at least j own stones, built one cell at a time.
            at_least = [open_starts] + [0] * (k - 1)
            for i, s in enumerate(offsets):
                stones = (own >> s) & open_starts
                for j in range(min(i + 1, k - 1), 0, -1):
                    at_least[j] |= at_least[j - 1] & stones
            for j in range(1, k):
                total += (weights[j] - weights[j - 1]) * at_least[j].bit_count()
        return total

    steps = [(d, 2 * d, 3 * d) for d in geometry.directions]
    w1, w2, w3 = (weights[j] - weights[j - 1] for j in (1, 2, 3)) if k == 4 else (0, 0, 0)

    def four_windows(own: int, free: int) -> int:
        """The same count unrolled for four in a row: at least 1, 2, 3 own stones by boolean algebra."""
        total = 0
        for s1, s2, s3 in steps:
            open_starts = free & (free >> s1) & (free >> s2) & (free >> s3)
            if not open_starts:
                continue
            a, b, c, e = own & open_starts, (own >> s1) & open_starts, (own >> s2) & open_starts, (own >> s3) & open_starts
            ab_any, ab_both, ce_any, ce_both = a | b, a & b, c | e, c & e
            total += (w1 * (ab_any | ce_any).bit_count()
                      + w2 * (ab_both | ce_both | (ab_any & ce_any)).bit_count()
                      + w3 * ((ab_both & ce_any) | (ce_both & ab_any)).bit_count())
        return total

    def evaluate(current: int, mask: int, moves: int) -> int:
        opponent = current ^ mask
        score = windows(current, board & ~opponent) - windows(opponent, board & ~current)
        mine, theirs = winning_cells(current, mask), winning_cells(opponent, mask)
        my_rows, their_rows = (first_rows, second_rows) if moves % 2 == 0 else (second_rows, first_rows)
        score += THREAT * (mine.bit_count() - theirs.bit_count())
        score += PARITY_THREAT * ((mine & my_rows).bit_count() - (theirs & their_rows).bit_count())
        return score

    return evaluate
