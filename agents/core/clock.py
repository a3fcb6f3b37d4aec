"""The clock of a move, from Kaggle's time rules: ``actTimeout`` per move, overage bank as a safety net.

The agents that search against time (alphabeta, bitboard_minimax, the solver) time their moves with
:class:`MoveClock`; the solver's two budgets (normal and hard) come from
:mod:`agents.solver_engine.time_manager`.
"""

from __future__ import annotations

import time
from typing import Any

from .config import field


def act_timeout(config: Any) -> float:
    """Seconds a move may take before it draws on the overage bank (Kaggle: 2)."""
    value = field(config, "actTimeout", None)
    if value is None:
        value = field(config, "timeout", 2)
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return 2.0


def overage(obs: Any) -> float:
    """Seconds left in the overage bank for the whole episode (Kaggle: 60 at the start)."""
    try:
        return max(0.0, float(field(obs, "remainingOverageTime", 0.0) or 0.0))
    except (TypeError, ValueError):
        return 0.0


class MoveClock:
    """The time budget of one move, started when the move starts; ``expired()`` is cheap enough for a search loop.

    ``end`` is the deadline the move aims at. A move that turns out hard may :meth:`extend` it to
    ``hard_end`` (``hard_seconds`` after the start, if given; without it the move cannot be extended).
    All three are ``time.perf_counter()`` values, so a search can compare its own clock readings to them.
    """

    __slots__ = ("start", "end", "hard_end")

    def __init__(self, seconds: float, hard_seconds: float | None = None) -> None:
        self.start = time.perf_counter()
        self.end = self.start + max(0.0, seconds)
        self.hard_end = max(self.end, self.start + hard_seconds) if hard_seconds is not None else self.end

    def remaining(self) -> float:
        return self.end - time.perf_counter()

    def expired(self) -> bool:
        return time.perf_counter() >= self.end

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def phase_end(self, share: float) -> float:
        """A ``time.perf_counter()`` deadline that leaves ``1 - share`` of the remaining time to later phases."""
        now = time.perf_counter()
        return now + max(0.0, self.end - now) * share

    @property
    def extensible(self) -> bool:
        return self.hard_end > self.end

    def extend(self) -> None:
        """The move is hard: from now on ``end`` is the hard deadline."""
        self.end = self.hard_end


def move_deadline(obs: Any, config: Any, share: float = 0.5, ceiling: float = 1.0) -> MoveClock:
    """A deadline for this move: ``share`` of the act timeout, at most ``ceiling`` seconds.

    The overage bank is never planned into: it only absorbs a late return. Agents that know a move
    needs more (a solver near the end of its search) may ask for a larger share, never beyond the
    act timeout itself.
    """
    act = act_timeout(config)
    return MoveClock(min(act * share, ceiling, act))
