"""How long one move may think, from Kaggle's ``actTimeout`` and ``remainingOverageTime``.

A move normally thinks for well under the act timeout (Kaggle: 2 s): the machine that runs the
episode may be slower or busier than ours, and the overage bank (60 s per episode) is a safety
net for a late return, not time to spend. When the bank runs low the budget shrinks further.
"""

from __future__ import annotations

import time
from typing import Any

from agents.core.clock import act_timeout, overage
from agents.core.config import field

TYPICAL_SECONDS = 0.8  # the budget of a move when the act timeout allows it
ACT_SHARE = 0.4  # never plan more than this share of the act timeout
LOW_BANK_SECONDS = 10.0  # below this much overage, think for half as long
MINIMUM_SECONDS = 0.02


class MoveClock:
    """The budget of one move, started when the move starts; phases take slices of what is left."""

    __slots__ = ("start", "end")

    def __init__(self, seconds: float) -> None:
        self.start = time.perf_counter()
        self.end = self.start + max(MINIMUM_SECONDS, seconds)

    def remaining(self) -> float:
        return self.end - time.perf_counter()

    def phase_end(self, share: float) -> float:
        """A ``time.perf_counter()`` deadline that leaves ``1 - share`` of the remaining time to later phases."""
        now = time.perf_counter()
        return now + max(0.0, self.end - now) * share

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def move_budget(obs: Any, config: Any) -> float:
    """Seconds this move may think."""
    budget = min(TYPICAL_SECONDS, ACT_SHARE * act_timeout(config))
    if field(obs, "remainingOverageTime", None) is not None and overage(obs) < LOW_BANK_SECONDS:
        budget /= 2
    return max(MINIMUM_SECONDS, budget)


def move_clock(obs: Any, config: Any) -> MoveClock:
    return MoveClock(move_budget(obs, config))
