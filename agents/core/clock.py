"""Move deadlines from Kaggle's time rules: ``actTimeout`` per move, overage bank as a safety net."""

from __future__ import annotations

import time
from typing import Any

from agents.core.config import field


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


class Deadline:
    """A point in time; ``expired()`` is cheap enough to call inside a search loop."""

    __slots__ = ("start", "end")

    def __init__(self, seconds: float) -> None:
        self.start = time.perf_counter()
        self.end = self.start + max(0.0, seconds)

    def remaining(self) -> float:
        return self.end - time.perf_counter()

    def expired(self) -> bool:
        return time.perf_counter() >= self.end

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def move_deadline(obs: Any, config: Any, share: float = 0.5, ceiling: float = 1.0) -> Deadline:
    """A deadline for this move: ``share`` of the act timeout, at most ``ceiling`` seconds.

    The overage bank is never planned into: it only absorbs a late return. Agents that know a move
    needs more (a solver near the end of its search) may ask for a larger share, never beyond the
    act timeout itself.
    """
    act = act_timeout(config)
    return Deadline(min(act * share, ceiling, act))
