"""Depth-limited alpha-beta with iterative deepening, for positions the exact solver cannot finish.

The same bitboard moves, pruning and ordering as the exact solver (:mod:`negamax`); at the depth
horizon the position is scored by :mod:`heuristic`. Wins and losses found inside the horizon are
scored ``WIN - n`` (``n`` = stones on the board when the game ends), far above any evaluation, so
a proven result always beats a hopeful one, and a sooner win beats a later one.

A transposition table keeps each position's value bound and best move: bounds cut the search when
they were found at least as deep, best moves are tried first. Moves after the first are searched
with a null window (principal variation search) and re-searched only if they turn out better.
Each iteration searches one ply deeper, best root move of the previous iteration first; when the
deadline passes the move of the deepest completed iteration is played.
"""

from __future__ import annotations

import time

from ..core.config import Config
from ..core.position import Position, geometry
from .heuristic import evaluation
from .move_order import move_orderer
from .negamax import SearchTimeout

WIN = 1 << 40
EXACT, LOWER, UPPER = 0, 1, 2  # what a table entry's value is
CLOCK_EVERY = 63


class DepthSearch:
    """Iterative deepening for one configuration; remembers best moves between iterations and calls."""

    def __init__(self, config: Config, table_capacity: int = 1_000_000) -> None:
        g = self.geometry = geometry(config)
        self.cells = g.rows * g.columns
        self.winning_cells = g.winning_cells
        self.ordered = move_orderer(g, self.winning_cells)
        self.evaluate = evaluation(g, self.winning_cells)
        # position key -> (depth searched, kind of bound, value, best move bit)
        self.table: dict[int, tuple[int, int, int, int]] = {}
        self.table_capacity = table_capacity
        self.nodes = 0
        self.deadline = float("inf")
        self.extended = False  # did the last best_move go on past its deadline towards the hard one?
        self.negamax = self._build()

    def _build(self):
        g, search = self.geometry, self
        bottom, board, cells = g.bottom, g.board, self.cells
        winning_cells, ordered, evaluate = self.winning_cells, self.ordered, self.evaluate
        table = self.table
        clock = time.perf_counter

        def negamax(current: int, mask: int, moves: int, depth: int, alpha: int, beta: int) -> int:
            """The value for the player to move (who cannot win at once), fail-soft alpha-beta."""
            nodes = search.nodes = search.nodes + 1
            if not nodes & CLOCK_EVERY and clock() > search.deadline:
                raise SearchTimeout
            # Inlined for speed: a copy of Position.non_losing_moves (tests/test_core.py checks they agree).
            opponent_wins = winning_cells(current ^ mask, mask)
            possible = (mask + bottom) & board
            forced = possible & opponent_wins
            if forced:
                if forced & (forced - 1):
                    return moves + 1 - WIN  # the opponent wins with its next stone
                possible = forced
            candidates = possible & ~(opponent_wins >> 1)
            if not candidates:
                return moves + 1 - WIN
            if moves >= cells - 2:
                return 0
            if depth <= 0:
                return evaluate(current, mask, moves)
            key = current + mask
            entry = table.get(key)
            moves_list = ordered(current, mask, candidates)
            if entry is not None:
                stored_depth, kind, value, remembered = entry
                if stored_depth >= depth:
                    if kind == EXACT:
                        return value
                    if kind == LOWER:
                        if value >= beta:
                            return value
                    elif value <= alpha:
                        return value
                if remembered & candidates and moves_list[0] != remembered:
                    moves_list.remove(remembered)
                    moves_list.insert(0, remembered)
            original_alpha = alpha
            best, best_move = -WIN - 1, moves_list[0]
            child_current = current ^ mask
            child_moves, child_depth = moves + 1, depth - 1
            for move in moves_list:
                if best == -WIN - 1:
                    score = -negamax(child_current, mask | move, child_moves, child_depth, -beta, -alpha)
                else:  # principal variation search: prove the move no better, re-search if it is
                    score = -negamax(child_current, mask | move, child_moves, child_depth, -alpha - 1, -alpha)
                    if alpha < score < beta:
                        score = -negamax(child_current, mask | move, child_moves, child_depth, -beta, -score)
                if score > best:
                    best, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            break
            kind = LOWER if best >= beta else UPPER if best <= original_alpha else EXACT
            table[key] = (depth, kind, best, best_move)
            return best

        return negamax

    def best_move(self, position: Position, columns: list[int], deadline: float,
                  max_depth: int | None = None, hard_deadline: float | None = None) -> tuple[int, int]:
        """``(column, value)`` among ``columns`` (non-empty, none winning at once) by iterative deepening.

        Always returns a move: the first column if not even depth 1 completes before ``deadline``.
        With ``hard_deadline`` (later than ``deadline``), a search whose best move is unsettled (it
        changed at one of the last two completed depths) goes on until then, and stops as soon as
        it settles; ``extended`` tells whether it searched past ``deadline`` that way. (Without that,
        the iteration running at ``deadline`` may still end a few nodes later, before the next clock
        check: that is not an extension.)
        """
        self.deadline = deadline
        if len(self.table) > self.table_capacity:
            self.table.clear()
        current, mask, moves = position.current, position.mask, position.moves
        child_current = current ^ mask
        order = list(columns)
        best, value = order[0], 0
        empty = self.cells - moves
        self.extended = False
        changed_at = 0
        for depth in range(1, min(empty, max_depth or empty) + 1):
            scores: dict[int, int] = {}
            alpha = -WIN - 1
            try:
                for column in order:
                    move = position.move_bit(column)
                    if moves + 1 >= self.cells:
                        score = 0
                    else:
                        score = -self.negamax(child_current, mask | move, moves + 1, depth - 1, -WIN - 1, -alpha)
                    scores[column] = score
                    if score > alpha:
                        alpha = score
            except SearchTimeout:
                self.extended = self.extended or self.deadline > deadline
                break
            self.extended = self.extended or (self.deadline > deadline and time.perf_counter() > deadline)
            order.sort(key=lambda c: -scores[c])  # stable: ties keep the previous (central-first) order
            if order[0] != best:
                changed_at = depth
            best, value = order[0], scores[order[0]]
            unsettled = depth - changed_at <= 1
            self.deadline = hard_deadline if unsettled and hard_deadline is not None else deadline
            if abs(value) > WIN - 2 * self.cells:  # a proven result: deeper search cannot change it
                break
        return best, value
