"""The table of solved ply-7 positions (``analysis/data/outcomes_ply7.txt``) and minimax over it.

``tools/make_outcomes.py`` builds the table offline with the compiled solver and commits it; the analysis
(:mod:`analysis.table`) reads it at run time to settle the early positions a search cannot, and the
builder writes the agent's book of outcome-keeping moves from it. The file is package data: an installed
package finds it next to this module.
"""

from __future__ import annotations

import os

from connectx_toolkit.agents.core import Config, Position

__all__ = ["CENTRE_FIRST", "DEFAULT_CHECKPOINT", "DEFAULT_PLY", "outcome_moves", "read_checkpoint", "settle"]

STANDARD = Config()
DEFAULT_PLY = 7
DEFAULT_CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "outcomes_ply7.txt")
CENTRE_FIRST = Position(STANDARD).geometry.center_order  # 3, 2, 4, 1, 5, 0, 6


def read_checkpoint(path: str) -> dict[int, tuple[int, int | None]]:
    """``{canonical key: (outcome, move)}`` from a checkpoint; a line cut short by a kill is ignored.

    The move is None where the line says "?" (a run with ``--no-moves`` solved the outcome only).
    """
    solved: dict[int, tuple[int, int | None]] = {}
    if os.path.exists(path):
        with open(path) as handle:
            for line in handle:
                parts = line.split()
                if line.endswith("\n") and len(parts) == 3:
                    solved[int(parts[0])] = (int(parts[1]), None if parts[2] == "?" else int(parts[2]))
    return solved


def outcome_moves(solved: dict[int, tuple[int, int | None]], ply: int, root: Position | None = None) -> dict[int, int]:
    """``{canonical key: move}`` for every position up to ``ply`` (from ``root``, by default the empty
    board) that the table settles as not lost (see :func:`settle`)."""
    return settle(solved, ply, root)[1]


def settle(solved: dict[int, tuple[int, int | None]], ply: int, root: Position | None = None,
           ) -> tuple[dict[int, int | None], dict[int, int]]:
    """``({canonical key: outcome or None}, {canonical key: move})`` for every position up to ``ply``.

    At ``ply`` the outcome and the move are the table's; before it, a position's outcome is the best
    of its children's (minimax) and its move the most central one that keeps it, in the orientation
    of the canonical key. A position with a move that wins at once gets no entry (the agent finds the
    win itself). With part of the table solved, a win needs one known winning move and a draw needs
    every move known; positions the table cannot settle yet, and lost ones, get no entry either.
    """
    values: dict[int, int | None] = {}
    moves: dict[int, int] = {}

    def value(position: Position) -> int | None:
        key = position.canonical_key()
        if key in values:
            return values[key]
        wins_at_once = bool(position.immediate_wins())
        if position.moves == ply:
            outcome, move = solved.get(key, (None, -1))
            values[key] = 1 if wins_at_once else outcome
            if outcome is not None and outcome >= 0 and move is not None and not wins_at_once:
                moves[key] = move
            return values[key]
        best, best_column, unknown = -2, -1, False
        for column in CENTRE_FIRST:
            if not position.can_play(column) or position.is_winning_move(column):
                continue
            # Visited even after a win at once: a player who misses it reaches these positions too.
            child_value = value(position.played(column))
            if child_value is None:
                unknown = True
            elif -child_value > best:
                best, best_column = -child_value, column
        if wins_at_once:
            values[key] = 1
            return 1
        result = best if best == 1 or not unknown else None
        values[key] = result
        if result is not None and result >= 0:
            moves[key] = best_column if position.key() == key else STANDARD.columns - 1 - best_column
        return result

    value(root or Position(STANDARD))
    return values, moves
