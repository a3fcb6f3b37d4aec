"""Kaggle's clock, in one place: what a move draws from the overage bank, when it is TIMEOUT, what is left.

Kaggle's rule (kaggle-environments 1.33.2: ``Environment.__loop_through_interpreter`` draws the bank,
``Agent.act`` rules the timeout): each move may take ``actTimeout``; what it takes beyond that is drawn
from ``remainingOverageTime``, a bank that starts full (``overage``, 60 s) in **every episode**, by
``max(0, duration - actTimeout)`` after each move; a move is TIMEOUT when ``duration - actTimeout >
remainingOverageTime`` (strictly greater: a move that uses the bank to the last microsecond stands).

Everything in the toolkit that applies the rule comes here: the native referee (``overage_of`` and
``times_out``, plain functions as its loop calls them on every move), the steps it records
(``kaggle_steps``), the board (``Bank``, one seat's clock for a game), a record's bank figures and the
gate's (``bank_spent``, ``move_shares``, ``ply_profile``, ``full_game_need``). The agents' own clock
(``agents/core/clock.py``) runs inside submissions and cannot import this; tests hold it to the same rule.

Drawing on the bank is legal: an agent may spend it on a few hard moves, or a little on every move. Only
one pattern loses on Kaggle without ever losing in a short local game: a spender whose bank use grows with
the length of the game (a steady 5 s a move runs out at its 21st move). A short game cannot show it, nor
can a median of short games' moves: they are all opening moves, and many agents think longest in the
opening and get cheap as columns fill. ``ply_profile`` is what the agent's moves cost at each ply of the
games it played (a long one among them: the gate's self-play episode), and ``full_game_need`` prices a game
that fills the board ply by ply from it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

__all__ = ["Bank", "DEFAULT_ACT_TIMEOUT", "DEFAULT_OVERAGE", "FullGameNeed", "bank_left", "bank_spent",
           "full_game_need", "move_shares", "overage_of", "ply_profile", "times_out"]

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


def ply_profile(seats: Iterable[tuple[int, Sequence[float]]], act_timeout: float) -> dict[int, float]:
    """What a seat's move draws from the bank at each ply (stones on the board when it is called): the median,
    over the games, of its overage there. ``seats`` are (seat, its move times in order) of games from the empty
    board, every call timed (a forced opening's too): its k-th move is at ply ``seat + 2 k``. A game's first move
    is kept, load and all: Kaggle pays the load in move 1 of every episode."""
    drawn: dict[int, list[float]] = {}
    for seat, times in seats:
        for move, seconds in enumerate(times):
            drawn.setdefault(seat + 2 * move, []).append(overage_of(seconds, act_timeout))
    return {ply: float(statistics.median(overages)) for ply, overages in sorted(drawn.items())}


TAIL_PLIES = 4  # a ply no game reached costs what the last this many plies that were reached cost (their median)


@dataclass(frozen=True)
class FullGameNeed:
    """The bank a game that fills the board needs, priced from a ``ply_profile``: ``seconds`` for the seat that
    needs more (``seat``, 0 the first mover, making ``moves`` moves); ``past`` of those moves come after the last
    ply any game reached and cost ``tail_s`` each (``TAIL_PLIES``)."""

    seconds: float
    seat: int
    moves: int
    past: int
    tail_s: float


def full_game_need(profile: dict[int, float], rows: int, columns: int) -> FullGameNeed:
    """The bank a game that fills the board needs from the seat that needs more, move by move: each move costs
    what the profile says its ply costs; a ply between two reached ones costs what the nearest reached one costs
    (the lower on a tie), and a ply past the last reached one what the last ``TAIL_PLIES`` reached cost (their
    median: the agent's cost late in its longest game, not in its opening). An empty profile costs nothing."""
    plies = sorted(profile)
    tail = float(statistics.median(profile[ply] for ply in plies[-TAIL_PLIES:])) if plies else 0.0
    cells = rows * columns

    def cost(ply: int) -> float:
        if ply in profile:
            return profile[ply]
        if not plies or ply > plies[-1]:
            return tail
        return profile[min(plies, key=lambda reached: (abs(reached - ply), reached))]

    last = plies[-1] if plies else -1
    needs = [FullGameNeed(sum(cost(ply) for ply in range(seat, cells, 2)), seat, len(range(seat, cells, 2)),
                          sum(1 for ply in range(seat, cells, 2) if ply > last), tail) for seat in (0, 1)]
    return max(needs, key=lambda need: (need.seconds, -need.seat))
