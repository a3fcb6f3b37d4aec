"""Outcome classes of early positions, from the project's table of solved ply-7 positions.

``tools/make_outcomes.py`` solves every 6x7 position with 7 stones with the compiled solver (its outcome
for the player to move) and commits the table (``analysis/data/outcomes_ply7.txt``, read by
:mod:`analysis.outcome_table`); minimax over it settles the positions before ply 7. These early
positions are the ones a search cannot settle within any practical per-position budget, so the analysis
takes their class from the table instead: a proven win, draw or loss, as bounds on the score (a draw is
exact; a win or a loss leaves the exact score unknown). While the table is still being built, a
position its solved part cannot settle gets no value here.
"""

from __future__ import annotations

import functools
import os

from connectx_toolkit.agents.core import Position

from connectx_toolkit.analysis.outcome_table import DEFAULT_CHECKPOINT, DEFAULT_PLY, read_checkpoint, settle
from connectx_toolkit.analysis.values import Value, score_range

__all__ = ["OutcomeTable"]


class OutcomeTable:
    """``value(position)``: the table's outcome class for a position of at most ``ply`` stones, or None.

    The checkpoint is read, and minimax run over it, on the first question (about half a second of CPU), once a
    process: every table of the same file shares the result (each analysis, board and ladder report makes one).
    """

    def __init__(self, path: str | None = None) -> None:
        self.path = DEFAULT_CHECKPOINT if path is None else path
        self.ply = DEFAULT_PLY
        self._outcomes: dict[int, int | None] | None = None

    def value(self, position: Position) -> Value | None:
        if position.moves > self.ply:
            return None
        if self._outcomes is None:
            self._outcomes = _settled(self.path, self.ply, _stamp(self.path))
        outcome = self._outcomes.get(position.canonical_key())
        if outcome is None:
            return None
        low, high = score_range(position.moves)
        if outcome > 0:
            return Value(1, high, "table")
        if outcome < 0:
            return Value(low, -1, "table")
        return Value.exact_score(0, "table")


def _stamp(path: str) -> tuple[int, int] | None:
    """The file's modification time and size (a rewritten checkpoint is read again), None if there is none."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=4)
def _settled(path: str, ply: int, stamp: tuple[int, int] | None) -> dict[int, int | None]:
    """The outcome of every position in the checkpoint at ``path`` as ``stamp`` found it (read-only: the tables
    share it)."""
    if stamp is None:
        return {}
    return settle(read_checkpoint(path), ply)[0]
