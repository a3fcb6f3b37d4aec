"""Kaggle's overage bank, from a seat's move times: what a game spent, and what a steady spender would need.

Kaggle's clock (kaggle-environments 1.33.2, ``Environment.step``): each move may take ``actTimeout``; what
it takes beyond that is drawn from ``remainingOverageTime``, a bank that starts full (60 s) in **every
episode**; a move is TIMEOUT when ``duration - actTimeout > remainingOverageTime``. Drawing on the bank is
legal: an agent may spend it on a few hard moves, or a little on every move. Only one pattern loses on
Kaggle without ever losing in a short local game: a steady spender, whose bank use grows with the length
of the game. ``steady_overage`` measures that pattern and ``full_board_need`` projects it onto the longest
game a seat can play.
"""

from __future__ import annotations

import math
import statistics
from typing import Iterable, Sequence

__all__ = ["bank_spent", "full_board_moves", "full_board_need", "steady_overage"]


def bank_spent(times: Iterable[float], act_timeout: float) -> float:
    """What moves taking ``times`` seconds draw from the bank: each its time beyond ``act_timeout``."""
    return sum(max(0.0, t - act_timeout) for t in times)


def steady_overage(games: Iterable[Sequence[float]], act_timeout: float) -> float:
    """The overage a seat typically spends per move: the median, over every move but each game's first (it
    includes the file's load), of the time beyond ``act_timeout``; 0 without such moves.

    The median, not the mean: an agent with a time manager that spends its bank on a few hard moves (as
    Kaggle allows, and as the project's solver does) draws nothing on most moves and so projects nothing,
    while a steady spender's median is its mean.
    """
    overages = [max(0.0, t - act_timeout) for times in games for t in list(times)[1:]]
    return statistics.median(overages) if overages else 0.0


def full_board_moves(rows: int, columns: int) -> int:
    """The moves the first player makes in a game that fills the board (the most any seat can make)."""
    return math.ceil(rows * columns / 2)


def full_board_need(overage_per_move: float, rows: int, columns: int) -> float:
    """The bank a seat spending ``overage_per_move`` on every move needs for a game that fills the board."""
    return overage_per_move * full_board_moves(rows, columns)
