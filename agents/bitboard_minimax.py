"""Bitboard minimax: negamax with alpha-beta on two integers, iterative deepening within a time budget.

The search works on raw ``(current, mask)`` pairs of the core's bitboard layout. Before expanding
a node it looks one move ahead with bit tricks: a playable winning cell ends the search, and when
the opponent threatens a playable cell the only sensible reply is to take it. At the depth cut the
line heuristic (``agents.heuristic_search.line_heuristic``) scores the position. Depths 1, 2, 3, ... are
searched until the move's time budget runs out; the move of the deepest finished depth is played,
with the previous depth's best move tried first so that alpha-beta cuts most.
"""

from __future__ import annotations

import random
from typing import Any

from .core import Config, Position
from .core.clock import MoveClock, move_deadline
from .core.lines import windows
from .core.position import Geometry
from .heuristic_search.deepening import OutOfTime, deepen, first_at_front
from .heuristic_search.line_heuristic import line_heuristic

TIME_SHARE = 0.2  # of the act timeout: 0.4 s on Kaggle's 2 s
TIME_CEILING = 0.4
MAX_DEPTH = 64
WIN = 1_000_000.0  # a win scores WIN minus the plies it takes; heuristic values stay far below


class Negamax:
    """One search: the configuration's masks, the deadline and a node counter."""

    def __init__(self, geometry: Geometry, deadline: MoveClock | None = None) -> None:
        self.g = geometry
        self.windows = windows(geometry.config)
        self.cells = geometry.rows * geometry.columns
        self.deadline = deadline
        self.nodes = 0

    def order(self, mask: int) -> list[int]:
        """Playable columns, centre first."""
        tops = self.g.top_masks
        return [c for c in self.g.center_order if not mask & tops[c]]

    def value(self, current: int, mask: int, moves: int, depth: int, alpha: float, beta: float) -> float:
        """Negamax value of the position for the player to move (who owns ``current``)."""
        self.nodes += 1
        if self.deadline is not None and self.nodes & 63 == 0 and self.deadline.expired():
            raise OutOfTime
        g = self.g
        possible = (mask + g.bottom) & g.board
        if g.winning_cells(current, mask) & possible:
            return WIN - moves - 1
        if moves >= self.cells - 1:
            return 0.0  # the last cell, and it does not win
        opponent = current ^ mask
        # Only the forced-block half of Position.non_losing_moves: this search also expands moves just
        # below an opponent's winning cell, and pruning them would change its values at the horizon.
        forced = g.winning_cells(opponent, mask) & possible
        if forced & (forced - 1):
            return -(WIN - moves - 2)  # two threats: one of them wins next move
        if depth <= 0:
            return line_heuristic(current, opponent, self.windows, g.inarow)
        best = -WIN
        for column in self.order(mask):
            bit = (mask + g.bottom_masks[column]) & g.column_masks[column]  # inlined Geometry.move_bit
            if forced and not bit & forced:
                continue
            score = -self.value(opponent, mask | bit, moves + 1, depth - 1, -beta, -alpha)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def root(self, position: Position, depth: int, first: int | None) -> tuple[list[int], float]:
        """All best columns at ``depth`` (``first`` searched first) and their value."""
        g, current, mask = self.g, position.current, position.mask
        columns = first_at_front(self.order(mask), first)
        best_columns, best, alpha = [], -2 * WIN, -2 * WIN
        for column in columns:
            bit = position.move_bit(column)
            if g.has_line(current | bit):
                score = WIN - position.moves - 1
            else:
                # The window reaches just below alpha, so a column as good as the best gets its exact
                # value and joins the random tie-break instead of being cut off.
                score = -self.value(current ^ mask, mask | bit, position.moves + 1, depth - 1, -2 * WIN, -alpha + 1e-9)
            if score > best:
                best, best_columns, alpha = score, [column], score
            elif score == best:
                best_columns.append(column)
        return best_columns, best


def search(position: Position, deadline: MoveClock, max_depth: int = MAX_DEPTH) -> tuple[list[int], int, Negamax]:
    """The best columns of the deepest search finished before ``deadline``, that depth (0 if none
    finished: then the centremost legal column) and the search with its node count."""
    g = position.geometry
    negamax = Negamax(g, deadline)
    best, depth = deepen(
        lambda depth, previous: negamax.root(position, depth, previous[0]),
        negamax.order(position.mask)[:1],
        deadline,
        min(max_depth, g.rows * g.columns - position.moves),
        decided=lambda score: abs(score) >= WIN - g.rows * g.columns,  # a forced win or loss
    )
    return best, depth, negamax


def choose(position: Position, deadline: MoveClock, rng: random.Random | None = None) -> int:
    """The best column of the deepest search that fits before ``deadline``, random among equals."""
    best, _, _ = search(position, deadline)
    return (rng or random).choice(best)


def agent(obs: Any, config: Any) -> int:
    position = Position.from_kaggle(obs, Config.from_kaggle(config))
    return int(choose(position, move_deadline(obs, config, TIME_SHARE, TIME_CEILING)))
