"""ConnectX's drop and win rules on any board, as Kaggle's interpreter applies them.

Kaggle's layout: a flat list of ``rows * columns`` cells, row 0 the top row, 0 an empty cell and 1/2 the
marks. A stone falls to the lowest empty cell of its column; it wins when it completes ``inarow`` stones
of its mark in a line (a row, a column or a diagonal) through it. The native referee applies them on every
move (``referees.native``, proven identical to Kaggle's referee), and so does the board's game
(``board.game``). The agents keep their own bitboard rules (``agents/core``): those are embedded into every
submission, which imports nothing of the toolkit.
"""

from __future__ import annotations

__all__ = ["drop", "winning_line"]


def drop(board: list[int], column: int, rows: int, columns: int, mark: int) -> int:
    """Put ``mark`` into the lowest empty cell of ``column``, which must have one (its top cell empty), and
    return that cell's row."""
    row = rows - 1
    while board[column + row * columns] != 0:
        row -= 1
    board[column + row * columns] = mark
    return row


def winning_line(board: list[int], row: int, column: int, rows: int, columns: int,
                 inarow: int) -> tuple[tuple[int, int], ...]:
    """The cells ``(row, column)``, sorted, of a line of at least ``inarow`` stones of the mark at
    (``row``, ``column``) that runs through it (along a row, a column, then the two diagonals: the first
    found); ``()`` when there is none. Not empty: the stone just dropped there won."""
    mark = board[column + row * columns]
    need = inarow - 1
    # The referee asks after every move: the count alone, the directions a literal (a constant, not a global)
    for d_row, d_column in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count, r, c = 0, row + d_row, column + d_column
        while 0 <= r < rows and 0 <= c < columns and board[c + r * columns] == mark:
            count, r, c = count + 1, r + d_row, c + d_column
        r, c = row - d_row, column - d_column
        while 0 <= r < rows and 0 <= c < columns and board[c + r * columns] == mark:
            count, r, c = count + 1, r - d_row, c - d_column
        if count >= need:
            # (r, c) is the first cell past the run's far end behind the stone: walk the run forward from there
            line = []
            r, c = r + d_row, c + d_column
            while 0 <= r < rows and 0 <= c < columns and board[c + r * columns] == mark:
                line.append((r, c))
                r, c = r + d_row, c + d_column
            return tuple(sorted(line))
    return ()
