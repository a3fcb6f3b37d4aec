"""A ConnectX position as two bitboards, for any rows x columns and any k in a row.

Bit layout (Pascal Pons' layout, generalised): column ``c`` owns bits ``c*H .. c*H + rows``
where ``H = rows + 1``; the extra top bit of every column is a sentinel that is always 0, so a
line never wraps from one column into the next. For 6 rows x 7 columns:

     6 13 20 27 34 41 48    <- sentinel row (always 0)
     5 12 19 26 33 40 47    <- top row    (Kaggle's row 0)
     4 11 18 25 32 39 46
     3 10 17 24 31 38 45
     2  9 16 23 30 37 44
     1  8 15 22 29 36 43
     0  7 14 21 28 35 42    <- bottom row (Kaggle's row rows-1)

``mask`` has a 1 for every stone, ``current`` for the stones of the player to move. Python
integers are unbounded, so the same code serves a 10 x 12 board. The four line directions are
shifts by 1 (vertical), H (horizontal), H - 1 and H + 1 (the diagonals).

Rules that search loops inline for speed (each copy says which method it copies, and
tests/test_core.py checks that the copies agree): ``Geometry.move_bit`` and
``Position.non_losing_moves``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from .config import Config, field
from .winning_cells import winning_cells_function


class Geometry:
    """Masks and shifts that depend only on the configuration (computed once per config)."""

    __slots__ = (
        "config", "rows", "columns", "inarow", "height", "bottom", "board", "column_masks",
        "bottom_masks", "top_masks", "directions", "center_order", "winning_cells",
    )

    def __init__(self, config: Config) -> None:
        self.config = config
        self.rows, self.columns, self.inarow = config.rows, config.columns, config.inarow
        h = self.height = config.rows + 1
        one_column = (1 << config.rows) - 1
        self.column_masks = [one_column << (c * h) for c in range(config.columns)]
        self.bottom_masks = [1 << (c * h) for c in range(config.columns)]
        self.top_masks = [1 << (config.rows - 1 + c * h) for c in range(config.columns)]
        self.bottom = sum(self.bottom_masks)
        self.board = sum(self.column_masks)
        self.directions = (1, h, h - 1, h + 1)
        middle = (config.columns - 1) / 2
        self.center_order = tuple(sorted(range(config.columns), key=lambda c: (abs(c - middle), c)))
        # winning_cells(stones, mask): the cells outside ``mask`` where one more stone of ``stones``
        # completes a line. A plain function, not a method: search loops call it millions of times.
        self.winning_cells = winning_cells_function(h, self.board, config.inarow)

    def bit(self, column: int, row_from_bottom: int) -> int:
        return 1 << (column * self.height + row_from_bottom)

    def move_bit(self, mask: int, column: int) -> int:
        """The cell a stone dropped into ``column`` would land on, ``mask`` being the stones so far."""
        return (mask + self.bottom_masks[column]) & self.column_masks[column]

    def mirror(self, bits: int) -> int:
        """``bits`` reflected left to right: column ``c`` becomes column ``columns - 1 - c``."""
        h, last = self.height, self.columns - 1
        column = (1 << h) - 1
        out = 0
        for c in range(self.columns):
            out |= ((bits >> (c * h)) & column) << ((last - c) * h)
        return out

    def columns_of(self, cells: int) -> list[int]:
        """The columns, left to right, that hold at least one of ``cells``."""
        masks = self.column_masks
        return [c for c in range(self.columns) if cells & masks[c]]

    def has_line(self, stones: int) -> bool:
        """True if ``stones`` contains ``inarow`` cells in a row in any direction."""
        k = self.inarow
        for d in self.directions:
            # After the loop, bit x of m is set iff x, x+d, ..., x+(run-1)*d are all stones;
            # doubling the run each step needs only log2(k) shifts.
            m, run = stones, 1
            while run * 2 <= k:
                m &= m >> (run * d)
                run *= 2
            if run < k:
                m &= m >> ((k - run) * d)
            if m:
                return True
        return False


@lru_cache(maxsize=64)
def geometry(config: Config) -> Geometry:
    return Geometry(config)


class Position:
    """A position with the player to move; mutable (``play``) for search, ``copy`` when needed."""

    __slots__ = ("geometry", "current", "mask", "moves")

    def __init__(self, config: Config | None = None, current: int = 0, mask: int = 0, moves: int = 0) -> None:
        self.geometry = geometry(config or Config())
        self.current = current
        self.mask = mask
        self.moves = moves

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_kaggle(cls, obs: object, config: object) -> "Position":
        """The position Kaggle shows ``obs.mark`` (the player to move) on ``obs.board``."""
        cfg = Config.from_kaggle(config)
        return cls.from_board(field(obs, "board"), int(field(obs, "mark", 1)), cfg)

    @classmethod
    def from_board(cls, board: Sequence[int], mark: int, config: Config) -> "Position":
        """From Kaggle's flat board (row 0 is the top row), ``mark`` being the player to move."""
        g = geometry(config)
        if len(board) != config.cells:
            raise ValueError(f"board has {len(board)} cells, config wants {config.cells}")
        current = mask = moves = 0
        for index, cell in enumerate(board):
            if cell:
                row, column = divmod(index, config.columns)
                bit = g.bit(column, config.rows - 1 - row)
                mask |= bit
                moves += 1
                if cell == mark:
                    current |= bit
        return cls(config, current, mask, moves)

    @classmethod
    def from_moves(cls, moves: Iterable[int], config: Config | None = None) -> "Position":
        """Play 0-based column indices from the empty board; raises ValueError on an illegal move."""
        position = cls(config)
        for column in moves:
            if not position.can_play(column):
                raise ValueError(f"illegal move {column} after {position.moves} moves")
            position.play(column)
        return position

    @classmethod
    def from_string(cls, moves: str, config: Config | None = None) -> "Position":
        """Pons' notation: a string of 1-based column digits, e.g. ``"4453"``."""
        return cls.from_moves((int(ch) - 1 for ch in moves.strip()), config)

    def copy(self) -> "Position":
        return Position(self.geometry.config, self.current, self.mask, self.moves)

    # -- rules --------------------------------------------------------------------------------
    @property
    def config(self) -> Config:
        return self.geometry.config

    @property
    def opponent(self) -> int:
        """Stones of the player who just moved."""
        return self.current ^ self.mask

    def key(self) -> int:
        """A unique integer for this position (given the configuration)."""
        return self.current + self.mask

    def mirrored(self) -> "Position":
        """The position reflected left to right (the same score, every move mirrored)."""
        g = self.geometry
        return Position(g.config, g.mirror(self.current), g.mirror(self.mask), self.moves)

    def canonical_key(self) -> int:
        """One key for the position and its mirror image: the smaller of their two keys.

        Within a column ``current + mask`` stays below ``1 << height`` (the sentinel bit's place),
        so the mirror's key is the mirrored key.
        """
        g = self.geometry
        return min(self.current + self.mask, g.mirror(self.current) + g.mirror(self.mask))

    def can_play(self, column: int) -> bool:
        g = self.geometry
        return 0 <= column < g.columns and not self.mask & g.top_masks[column]

    def legal_moves(self) -> list[int]:
        mask, tops = self.mask, self.geometry.top_masks
        return [c for c in range(self.geometry.columns) if not mask & tops[c]]

    def play(self, column: int) -> None:
        """Drop a stone of the player to move into ``column`` (which must be playable)."""
        self.current ^= self.mask
        self.mask |= self.mask + self.geometry.bottom_masks[column]
        self.moves += 1

    def played(self, column: int) -> "Position":
        child = self.copy()
        child.play(column)
        return child

    def move_bit(self, column: int) -> int:
        """The cell a stone dropped into ``column`` would land on."""
        return self.geometry.move_bit(self.mask, column)

    def is_winning_move(self, column: int) -> bool:
        """Would playing ``column`` (playable) complete a line for the player to move?"""
        return self.geometry.has_line(self.current | self.move_bit(column))

    def last_player_won(self) -> bool:
        """Has the player who just moved completed a line?"""
        return self.geometry.has_line(self.opponent)

    def is_full(self) -> bool:
        return self.moves >= self.geometry.rows * self.geometry.columns

    def possible(self) -> int:
        """Bitmask of the cells where a stone can be dropped now."""
        g = self.geometry
        return (self.mask + g.bottom) & g.board

    def winning_cells(self, own: bool = True) -> int:
        """Empty cells that complete a line for the player to move (``own``) or for the opponent."""
        stones = self.current if own else self.opponent
        return self.geometry.winning_cells(stones, self.mask)

    def immediate_wins(self) -> list[int]:
        """Columns that win at once for the player to move."""
        return self.geometry.columns_of(self.winning_cells(True) & self.possible())

    def opponent_threats(self) -> list[int]:
        """Columns where the opponent would win at once if it were their move."""
        return self.geometry.columns_of(self.winning_cells(False) & self.possible())

    def non_losing_moves(self) -> int:
        """Bitmask of the moves after which the opponent cannot win with its next stone (Pons'
        ``possibleNonLosingMoves``); 0 if every move loses.

        Meant for a player to move who cannot win at once (a winning move is not singled out here).
        With one opponent winning cell playable, blocking it is the only candidate; with two, no
        move saves the game. A move just below an opponent's winning cell makes that cell playable.
        """
        g = self.geometry
        opponent_wins = g.winning_cells(self.current ^ self.mask, self.mask)
        possible = (self.mask + g.bottom) & g.board
        forced = possible & opponent_wins
        if forced:
            if forced & (forced - 1):  # two threats: cannot block both
                return 0
            possible = forced
        return possible & ~(opponent_wins >> 1)

    def non_losing_columns(self) -> list[int]:
        """The columns of :meth:`non_losing_moves`, left to right."""
        return self.geometry.columns_of(self.non_losing_moves())

    # -- conversion ---------------------------------------------------------------------------
    def to_board(self, mark_to_move: int | None = None) -> list[int]:
        """Kaggle's flat board; by default mark 1 moved first, so the mover's mark follows parity."""
        g = self.geometry
        mover = mark_to_move or (1 if self.moves % 2 == 0 else 2)
        other = 3 - mover
        board = [0] * (g.rows * g.columns)
        for column in range(g.columns):
            for row in range(g.rows):
                bit = g.bit(column, g.rows - 1 - row)
                if self.mask & bit:
                    board[row * g.columns + column] = mover if self.current & bit else other
        return board

    def __str__(self) -> str:
        symbols = {0: ".", 1: "X", 2: "O"}
        board, g = self.to_board(), self.geometry
        return "\n".join(
            " ".join(symbols[board[r * g.columns + c]] for c in range(g.columns)) for r in range(g.rows)
        )

    def __repr__(self) -> str:
        return f"Position({self.config}, moves={self.moves}, key={self.key()})"
