"""Kaggle's clock, in one place: what a move draws from the overage bank, when it is TIMEOUT, what is left.

Kaggle's rule (kaggle-environments 1.33.2: ``Environment.__loop_through_interpreter`` draws the bank,
``Agent.act`` rules the timeout): each move may take ``actTimeout``; what it takes beyond that is drawn
from ``remainingOverageTime``, a bank that starts full (``overage``, 60 s) in **every episode**, by
``max(0, duration - actTimeout)`` after each move; a move is TIMEOUT when ``duration - actTimeout >
remainingOverageTime`` (strictly greater: a move that uses the bank to the last microsecond stands).

Everything in the toolkit that applies the rule comes here: the native referee (``overage_of`` and
``times_out``, plain functions as its loop calls them on every move), the steps it records
(``kaggle_steps``), the board (``Bank``, one seat's clock for a game), a record's bank figures and the
gate's (``bank_spent``, ``move_shares``, ``steady_overage``). The agents' own clock
(``agents/core/clock.py``) runs inside submissions and cannot import this; tests hold it to the same rule.

Drawing on the bank is legal: an agent may spend it on a few hard moves, or a little on every move. Only
one pattern loses on Kaggle without ever losing in a short local game: a steady spender, whose bank use
grows with the length of the game. ``steady_overage`` measures that pattern and ``full_board_need``
projects it onto the longest game a seat can play.
"""

from __future__ import annotations

import math
import statistics
from typing import Iterable, Iterator, Sequence

__all__ = ["Bank", "DEFAULT_ACT_TIMEOUT", "DEFAULT_OVERAGE", "bank_left", "bank_spent", "full_board_moves",
           "full_board_need", "move_shares", "overage_of", "steady_overage", "times_out"]

DEFAULT_ACT_TIMEOUT = 2.0  # Kaggle's actTimeout for ConnectX: seconds per move
DEFAULT_OVERAGE = 60.0  # Kaggle's remainingOverageTime at the start of an episode: the bank


def overage_of(duration: float, act_timeout: float) -> float:
    """What a move that took ``duration`` seconds draws from the bank: its time beyond the act timeout.

    ``max(0, ...)`` with an int 0, as Kaggle writes it, so a bank given as an int stays one on fast moves."""
    return max(0, duration - act_timeout)


def times_out(duration: float, act_timeout: float, left: float) -> bool:
    """Is a move that took ``duration`` seconds TIMEOUT with ``left`` seconds in the bank? Only when its time
    beyond the act timeout is strictly more than the bank."""
    return duration - act_timeout > left


class Bank:
    """One seat's clock for one episode: ``left`` starts at ``overage``; ``deadline`` is the longest the next
    move may take (the act timeout plus the bank)."""

    __slots__ = ("act_timeout", "left")

    def __init__(self, act_timeout: float = DEFAULT_ACT_TIMEOUT, overage: float = DEFAULT_OVERAGE) -> None:
        self.act_timeout = act_timeout
        self.left = overage

    @property
    def deadline(self) -> float:
        return self.act_timeout + self.left

    def times_out(self, duration: float) -> bool:
        return times_out(duration, self.act_timeout, self.left)

    def charge(self, duration: float) -> float:
        """Draw a move's overage from the bank (Kaggle draws a TIMEOUT move's too); returns what it drew."""
        drawn = overage_of(duration, self.act_timeout)
        self.left -= drawn
        return drawn


def bank_spent(times: Iterable[float], act_timeout: float) -> float:
    """What moves taking ``times`` seconds draw from the bank: each its time beyond ``act_timeout``."""
    return sum((overage_of(t, act_timeout) for t in times), 0.0)


def bank_left(times: Iterable[float], act_timeout: float, overage: float = DEFAULT_OVERAGE) -> float:
    """The bank after moves taking ``times`` seconds, from a full one (negative once a move timed out)."""
    return overage - bank_spent(times, act_timeout)


def move_shares(times: Iterable[float], act_timeout: float, overage: float = DEFAULT_OVERAGE) -> Iterator[tuple[float, float]]:
    """Each move's (seconds, share of what the clock allowed it): its time over the act timeout plus the bank
    left before it. A share above 1 is a TIMEOUT; 1 exactly is not."""
    bank = Bank(act_timeout, overage)
    for seconds in times:
        allowed = bank.deadline
        yield seconds, (seconds / allowed if allowed > 0 else 1.0)
        bank.charge(seconds)


def steady_overage(games: Iterable[Sequence[float]], act_timeout: float) -> float:
    """The overage a seat typically spends per move: the median, over every move but each game's first (it
    includes the file's load), of the time beyond ``act_timeout``; 0 without such moves.

    The median, not the mean: an agent with a time manager that spends its bank on a few hard moves (as
    Kaggle allows, and as the project's solver does) draws nothing on most moves and so projects nothing,
    while a steady spender's median is its mean.
    """
    overages = [overage_of(t, act_timeout) for times in games for t in list(times)[1:]]
    return float(statistics.median(overages)) if overages else 0.0


def full_board_moves(rows: int, columns: int) -> int:
    """The moves the first player makes in a game that fills the board (the most any seat can make)."""
    return math.ceil(rows * columns / 2)


def full_board_need(overage_per_move: float, rows: int, columns: int) -> float:
    """The bank a seat spending ``overage_per_move`` on every move needs for a game that fills the board."""
    return overage_per_move * full_board_moves(rows, columns)
