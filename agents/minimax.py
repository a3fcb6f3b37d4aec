"""The Kaggle Game AI course's N-step lookahead minimax, on bitboards.

Same algorithm and same numbers as the course notebook: look ``N_STEPS`` plies ahead with plain
minimax (no pruning, so every column gets its exact score), stop early at a won or full board, and
score the leaves with the course's heuristic over every window of ``inarow`` cells:

    score = threes - 1e2 * threes_opp - 1e4 * fours_opp + 1e6 * fours

where a "four" is a full window of one player's stones and a "three" a window with ``inarow - 1``
of them and the rest empty (on 6x7 exactly the course's 3-of-4 and 4-of-4). The course then plays
a random column among the best scored. Windows are bitmasks and counts are popcounts, which makes
it many times faster than the notebook's numpy slicing while choosing the same moves.
"""

from __future__ import annotations

import random
from typing import Any

from .core import Config, Position
from .core.lines import windows
from .core.position import Geometry
from .heuristic_search.line_counts import line_counts

N_STEPS = 3


def heuristic(mine: int, theirs: int, geometry: Geometry) -> float:
    """The course's ``get_heuristic`` for the player owning ``mine``."""
    k = geometry.inarow
    own, opp = line_counts(mine, theirs, windows(geometry.config), k)
    return own[k - 1] - 1e2 * opp[k - 1] - 1e4 * opp[k] + 1e6 * own[k]


def minimax(geometry: Geometry, mine: int, theirs: int, depth: int, maximizing: bool) -> float:
    """The course's ``minimax``: ``mine`` are the stones of the player choosing the move at the root."""
    mask = mine | theirs
    just_moved = theirs if maximizing else mine
    full = mask & geometry.board == geometry.board
    if depth == 0 or full or geometry.has_line(just_moved):
        return heuristic(mine, theirs, geometry)
    values = []
    for column in range(geometry.columns):
        if mask & geometry.top_masks[column]:
            continue
        bit = geometry.move_bit(mask, column)
        if maximizing:
            values.append(minimax(geometry, mine | bit, theirs, depth - 1, False))
        else:
            values.append(minimax(geometry, mine, theirs | bit, depth - 1, True))
    return max(values) if maximizing else min(values)


def score_moves(position: Position, n_steps: int = N_STEPS) -> dict[int, float]:
    """The course's ``score_move`` for every legal column: minimax value ``n_steps`` plies ahead."""
    g, mine, theirs = position.geometry, position.current, position.opponent
    return {
        column: minimax(g, mine | position.move_bit(column), theirs, n_steps - 1, False)
        for column in position.legal_moves()
    }


def choose(position: Position, n_steps: int = N_STEPS, rng: random.Random | None = None) -> int:
    """A random column among those with the highest score, as the course's agent plays."""
    scores = score_moves(position, n_steps)
    best = max(scores.values())
    return (rng or random).choice([column for column, score in scores.items() if score == best])


def agent(obs: Any, config: Any) -> int:
    return int(choose(Position.from_kaggle(obs, Config.from_kaggle(config))))
