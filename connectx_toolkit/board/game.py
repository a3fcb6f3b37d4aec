"""The board's game: moves on any rows x columns board, whose turn it is, and how the game ended.

Kaggle's layout throughout: a flat list of ``rows * columns`` cells, row 0 the top row, 0 empty and 1/2 the
marks (mark 1 moves first). The game ends with ``inarow`` marks in a line, a full board, or a forfeit. Stones
fall and win by the native referee's rules (``evaluation.referees.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.rules import drop, winning_line

__all__ = ["BoardGame", "Ending"]

@dataclass(frozen=True)
class Ending:
    """How a game ended: the winning seat (None for a draw), the cells of the winning line, and why."""

    winner: int | None
    line: tuple[tuple[int, int], ...] = ()
    reason: str = ""


@dataclass
class BoardGame:
    """A game in progress on ``config``; ``moves`` are 0-based columns from the empty board."""

    config: Config
    moves: list[int] = field(default_factory=list)
    forfeit: Ending | None = None  # set when a seat lost by an invalid move, an error or a timeout

    @property
    def to_move(self) -> int:
        """The seat to move (0 = mark 1, the first mover)."""
        return len(self.moves) % 2

    def board(self, moves: list[int] | None = None) -> list[int]:
        rows, columns = self.config.rows, self.config.columns
        cells = [0] * self.config.cells
        for ply, column in enumerate(self.moves if moves is None else moves):
            if cells[column] != 0:
                raise ValueError(f"column {column} is full")
            drop(cells, column, rows, columns, ply % 2 + 1)
        return cells

    def can_play(self, column: int) -> bool:
        return self.ending() is None and 0 <= column < self.config.columns and self.board()[column] == 0

    def play(self, column: int) -> None:
        if not self.can_play(column):
            raise ValueError(f"column {column} cannot be played here")
        self.moves.append(column)

    def ending(self) -> Ending | None:
        """The end of the game, None while it goes on."""
        if self.forfeit is not None:
            return self.forfeit
        if not self.moves:
            return None
        cells = self.board()
        rows, columns = self.config.rows, self.config.columns
        column = self.moves[-1]
        row = next(r for r in range(rows) if cells[r * columns + column])  # the last stone is its column's top
        line = winning_line(cells, row, column, rows, columns, self.config.inarow)
        if line:
            return Ending((len(self.moves) - 1) % 2, line, "four in a row" if self.config.inarow == 4 else
                          f"{self.config.inarow} in a row")
        if all(cells[:self.config.columns]):
            return Ending(None, (), "the board is full")
        return None
