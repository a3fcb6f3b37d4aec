"""The exact solver: negamax with alpha-beta on bitboards, scores on Pascal Pons' scale.

A position's score is 0 for a draw; ``(cells + 1 - n) // 2`` if the player to move wins with a stone
played when ``n`` stones are on the board; the negative of that if the opponent does. The sooner
the win the higher the score, the later a loss the closer to 0. Exact scores make the agent win sooner and
lose later, not just keep the outcome.

What keeps the tree small (Pons' recipe):
- moves that let the opponent win at once are never searched, and a single forced block is the
  only move searched (``Position.non_losing_moves``, inlined in ``negamax``);
- the score window is first clipped to what the number of remaining moves allows;
- a transposition table keeps one bound per position;
- moves are searched in the order of the threats they create (:mod:`move_order`);
- callers ask null-window questions ("is the score above v?") and narrow the window
  (:meth:`ExactSolver.solve`), which prunes far more than one wide search.

Precondition of ``negamax``: the player to move cannot win at once (callers check that first).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from ..core.config import Config
from ..core.position import Position, geometry
from .move_order import move_orderer
from .transposition import TranspositionTable


@dataclass
class RootAnalysis:
    """What the root search proved before it finished or ran out of time.

    ``low <= score <= high`` for the position; ``best`` is a column proven to score at least ``low``
    (None if no lower bound was proven); ``upper[c]`` bounds the score of playing column ``c``;
    ``known``, if not None, a score the position was known (from the outcome table) to reach before
    any column was proven to reach it.
    """

    columns: list[int]
    low: int
    high: int
    best: int | None = None
    upper: dict[int, int] = field(default_factory=dict)
    finished: bool = False
    known: int | None = None

    @property
    def exact(self) -> bool:
        return self.best is not None and self.low == self.high

    def plausible(self) -> list[int]:
        """Columns not refuted: none proven worse than ``best`` (or than the known score), none proven lost
        while another is not."""
        floor = self.low if self.best is not None else 0 if self.known is None else max(0, self.known)
        return [c for c in self.columns if self.upper[c] >= floor] or list(self.columns)

    def outcome_known(self) -> bool:
        """Does ``best`` keep the best outcome class (win / draw / loss)?"""
        if self.best is None:
            return False
        return self.low > 0 or self.high <= 0 and (self.low == 0 or self.high < 0)


class SearchTimeout(Exception):
    """Raised inside the search when its deadline has passed; the search's result is discarded."""


CLOCK_EVERY = 255  # check the clock when ``nodes & CLOCK_EVERY == 0``


class ExactSolver:
    """Exact scores for positions of one configuration; keeps its transposition table between calls."""

    def __init__(self, config: Config, table_capacity: int = 2_000_000,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        """``clock`` is what deadlines are read on: wall time for an agent, a process's CPU time for analysis."""
        g = geometry(config)
        self.clock = clock
        self.geometry = g
        self.cells = cells = g.rows * g.columns
        self.min_score = -(cells // 2) - 1
        self.max_score = (cells + 1) // 2 + 1
        self.table = TranspositionTable(self.min_score, self.max_score, table_capacity)
        self.winning_cells = g.winning_cells
        self.ordered = move_orderer(g, self.winning_cells)
        self.nodes = 0
        self.deadline = float("inf")  # a value of self.clock()
        self.negamax = self._build()

    # -- the search ---------------------------------------------------------------------------
    def _build(self):
        g, table, solver = self.geometry, self.table, self
        bottom, board, cells = g.bottom, g.board, self.cells
        winning_cells, ordered = self.winning_cells, self.ordered
        entries = table.entries
        split, upper_offset, lower_offset = table.split, table.upper_offset, table.lower_offset
        clock = self.clock

        def negamax(current: int, mask: int, moves: int, alpha: int, beta: int) -> int:
            """A bound on the exact score: ``<= alpha`` means score <= result, ``>= beta`` score >= result."""
            nodes = solver.nodes = solver.nodes + 1
            if not nodes & CLOCK_EVERY and clock() > solver.deadline:
                raise SearchTimeout
            key = current + mask
            stored = entries.get(key)  # a bound proven earlier settles the question before any work
            if stored is not None:
                if stored > split:
                    if stored - lower_offset >= beta:
                        return stored - lower_offset
                elif stored - upper_offset <= alpha:
                    return stored - upper_offset
            # Inlined for speed: a copy of Position.non_losing_moves (tests/test_core.py checks they agree).
            opponent_wins = winning_cells(current ^ mask, mask)
            possible = (mask + bottom) & board
            forced = possible & opponent_wins
            if forced:
                if forced & (forced - 1):  # two threats: cannot block both
                    return -((cells - moves) // 2)
                possible = forced
            candidates = possible & ~(opponent_wins >> 1)  # never play below an opponent's winning cell
            if not candidates:
                return -((cells - moves) // 2)
            if moves >= cells - 2:
                return 0
            low = -((cells - 2 - moves) // 2)  # the opponent cannot win at its next move
            high = (cells - 1 - moves) // 2  # we cannot win at this move
            if stored is not None:
                if stored > split:
                    low = max(low, stored - lower_offset)
                else:
                    high = min(high, stored - upper_offset)
            if alpha < low:
                alpha = low
                if alpha >= beta:
                    return alpha
            if beta > high:
                beta = high
                if alpha >= beta:
                    return beta
            child_current = current ^ mask
            for move in ordered(current, mask, candidates):
                score = -negamax(child_current, mask | move, moves + 1, -beta, -alpha)
                if score >= beta:
                    entries[key] = score + lower_offset
                    return score
                if score > alpha:
                    alpha = score
            entries[key] = alpha + upper_offset
            return alpha

        return negamax

    # -- questions about a position -----------------------------------------------------------
    def win_score(self, moves: int) -> int:
        """The score of winning with the next stone, ``moves`` stones being on the board."""
        return (self.cells + 1 - moves) // 2

    def non_losing_columns(self, position: Position) -> list[int]:
        """Columns that do not let the opponent win at once, best-ordered; empty if every move loses."""
        candidates = position.non_losing_moves()
        ordered = self.ordered(position.current, position.mask, candidates) if candidates else []
        return [self.column_of(move) for move in ordered]

    def column_of(self, move: int) -> int:
        return (move.bit_length() - 1) // self.geometry.height

    def child_bound(self, position: Position, column: int, alpha: int, beta: int) -> int:
        """A bound on the score of playing ``column`` (not a winning move), from the mover's side."""
        move = position.move_bit(column)
        child_moves = position.moves + 1
        if child_moves >= self.cells:
            return 0
        return -self.negamax(position.current ^ position.mask, position.mask | move, child_moves, -beta, -alpha)

    def solve(self, position: Position, deadline: float = float("inf")) -> int:
        """The exact score of ``position`` (no line on the board yet); SearchTimeout past ``deadline``."""
        self.deadline = deadline
        self.table.make_room()
        if position.is_full():
            return 0
        if self.winning_cells(position.current, position.mask) & position.possible():
            return self.win_score(position.moves)
        low = -((self.cells - position.moves) // 2)
        high = (self.cells + 1 - position.moves) // 2
        while low < high:  # null-window questions, biased towards 0 where most answers lie
            med = low + (high - low) // 2
            if med <= 0 and -(-low // 2) < med:  # halves rounded towards 0, as in Pons' C++
                med = -(-low // 2)
            elif med >= 0 and high // 2 > med:
                med = high // 2
            result = self.negamax(position.current, position.mask, position.moves, med, med + 1)
            if result <= med:
                high = result
            else:
                low = result
        return low

    def analyse(self, position: Position, deadline: float = float("inf"),
                known: tuple[int, int] | None = None) -> RootAnalysis:
        """Search the root move by move: outcome class first (is it a win? a draw?), then the exact score.

        ``position`` must have no immediate win for the player to move and at least one move that
        does not lose at once. Never raises SearchTimeout: past ``deadline`` it returns what it proved.
        ``known`` is ``(low, high)``, bounds on the score known beforehand (from the outcome table):
        ``high`` caps every column at once. Where ``low`` settles the outcome class (a win, or a draw
        with ``high`` 0), the first question is the null-window one at that value, to *verify* a column
        that reaches it, instead of first asking questions whose answers are known; a lower bound of a
        draw alone leaves "is it a win?" first (mostly a win, one ply after the table). Whenever the
        bound promises a column above a question's value, the last column not refuted is that column,
        with no search.
        """
        self.deadline = deadline
        self.table.make_room()
        columns = self.non_losing_columns(position)
        moves = position.moves
        # No candidate lets the opponent win with its next stone, and we cannot win with this one.
        result = RootAnalysis(columns, -((self.cells - 2 - moves) // 2), (self.cells - 1 - moves) // 2)
        if known is not None:
            result.high = max(result.low, min(result.high, known[1]))
            if result.low < known[0] <= result.high:
                result.known = known[0]
        result.upper = {c: result.high for c in columns}
        if moves >= self.cells - 2:  # at most two stones left and neither can win: a draw
            result.low = result.high = 0
            result.best, result.finished = columns[0], True
            return result
        try:
            if result.known is not None and (result.known > 0 or result.known == result.high):
                self._test(position, result, result.known - 1)  # verify: a column that keeps the known value
            while result.low < result.high:
                if result.low <= 0 < result.high:
                    med = 0  # is it a win?
                elif result.low < -1 and result.high == 0:
                    med = -1  # is it a draw?
                else:
                    med = result.low + (result.high - result.low) // 2
                self._test(position, result, med)
            result.finished = True
            if result.best is None:  # every column was refuted down to the floor: all score ``low``
                result.best = max(result.columns, key=result.upper.__getitem__)
        except SearchTimeout:
            pass
        return result

    def _test(self, position: Position, result: RootAnalysis, med: int) -> None:
        """Is the root's score above ``med``? Narrows ``result``; the proving column moves to the front."""
        promised = result.known if result.known is not None and result.known > med else None  # some column scores above ``med``
        for column in result.columns:
            if result.upper[column] <= med:
                continue
            if promised is not None and sum(result.upper[c] > med for c in result.columns) == 1:
                value = promised  # the only column not refuted: it is the one the table promises
            else:
                value = self.child_bound(position, column, med, med + 1)
            if value > med:
                result.low, result.best = value, column
                result.columns.remove(column)
                result.columns.insert(0, column)
                return
            result.upper[column] = value
        result.high = max(result.upper.values())
