"""One ConnectX game as the environments keep it: the core's bitboards, Kaggle's flat board and the numpy
buffers observations are copied from, all updated by one drop (``Game.play``), nothing allocated per move.

Seat 0 moves first and plays mark 1, as on Kaggle. ``planes`` holds each seat's stones in a plane of its own,
``(2, rows, columns)`` (``layout="seat_first"``) or ``(rows, columns, 2)`` (``"seat_last"``, PettingZoo's
``connect_four_v3``); row 0 is the top row, as in Kaggle's board. ``marks`` is Kaggle's board as int8, ``legal``
the non-full columns (1) as int8.
"""

from __future__ import annotations

import numpy as np

from connectx_toolkit.agents.core import Config
from connectx_toolkit.agents.core.position import geometry

SEAT_FIRST, SEAT_LAST = "seat_first", "seat_last"


class Game:
    __slots__ = ("config", "rows", "columns", "cells", "has_line", "bottom_masks", "column_masks", "top_masks",
                 "stones", "mask", "moves", "heights", "board", "marks", "planes", "legal", "_plane_cells")

    def __init__(self, config: Config, layout: str = SEAT_FIRST) -> None:
        if layout not in (SEAT_FIRST, SEAT_LAST):
            raise ValueError(f"layout must be {SEAT_FIRST!r} or {SEAT_LAST!r}, got {layout!r}")
        g = geometry(config)
        self.config = config
        self.rows, self.columns, self.cells = config.rows, config.columns, config.cells
        self.has_line = g.has_line
        self.bottom_masks, self.column_masks, self.top_masks = g.bottom_masks, g.column_masks, g.top_masks
        self.marks = np.zeros(self.cells, np.int8)
        shape = (2, self.rows, self.columns) if layout == SEAT_FIRST else (self.rows, self.columns, 2)
        self.planes = np.zeros(shape, np.int8)
        self.legal = np.ones(self.columns, np.int8)
        # the flat index in ``planes`` of (seat, Kaggle's cell index): one item set per drop
        cells = np.arange(self.cells)
        self._plane_cells = [[int(i) for i in (seat * self.cells + cells if layout == SEAT_FIRST else cells * 2 + seat)]
                             for seat in (0, 1)]
        self.stones = [0, 0]
        self.mask = self.moves = 0
        self.heights = [0] * self.columns
        self.board = [0] * self.cells

    def reset(self) -> None:
        self.stones[0] = self.stones[1] = 0
        self.mask = self.moves = 0
        self.heights = [0] * self.columns
        self.board = [0] * self.cells
        self.marks.fill(0)
        self.planes.fill(0)
        self.legal.fill(1)

    def can_play(self, column: int) -> bool:
        return 0 <= column < self.columns and not self.mask & self.top_masks[column]

    def play(self, seat: int, column: int) -> bool:
        """Drop ``seat``'s stone into ``column`` (which must be playable); True if it completes a line."""
        bit = (self.mask + self.bottom_masks[column]) & self.column_masks[column]
        self.mask |= bit
        stones = self.stones[seat] | bit
        self.stones[seat] = stones
        self.moves += 1
        height = self.heights[column] + 1
        self.heights[column] = height
        cell = (self.rows - height) * self.columns + column
        self.board[cell] = seat + 1
        self.marks[cell] = seat + 1
        self.planes.flat[self._plane_cells[seat][cell]] = 1
        if height == self.rows:
            self.legal[column] = 0
        return self.has_line(stones)

    def is_full(self) -> bool:
        return self.moves == self.cells

    def render(self, mode: str | None) -> str | None:
        """What the environments' ``render`` does in ``mode``: ``"human"`` prints the board, anything else returns
        its text."""
        text = self.text()
        if mode == "human":
            print(text + "\n")
            return None
        return text

    def text(self) -> str:
        """The board as text, row 0 on top: ``X`` mark 1 (seat 0), ``O`` mark 2, ``.`` empty; columns numbered."""
        symbols = ".XO"
        lines = [" ".join(symbols[self.board[r * self.columns + c]] for c in range(self.columns))
                 for r in range(self.rows)]
        lines.append(" ".join(str(c % 10) for c in range(self.columns)))
        return "\n".join(lines)
