"""How long one move may think, from Kaggle's ``actTimeout`` and ``remainingOverageTime``.

Kaggle lets a move take ``actTimeout`` (2 s) and draws any excess from an overage bank of 60 s per
episode; an empty bank means TIMEOUT, a lost game. Most moves are easy (the book answers, a move
is forced, the exact search finishes in milliseconds) and keep a small *normal* budget. A move the
agent finds hard (the exact search did not finish, the candidate moves' values disagree, the book
is silent in the early game) may be *extended* (:meth:`MoveClock.extend`) to its *hard* budget:

    hard = actTimeout - margin + share of the bank

- ``margin`` (a quarter of a second, or 15 % of a longer act timeout) absorbs the search's clock-check
  granularity, a preempted process and the referee's own overhead; on the first move of a process
  it also covers the submission's load time, which Kaggle may count towards that move;
- the share of the bank is what is left above a reserve, spread over the moves still likely to be
  hard: the agent's own moves until half the board is full (at least ``MIN_PLANNED_MOVES``), and
  never more than ``MAX_BANK_SHARE`` of it on one move. The reserve is never planned into, so a
  late return has a cushion and the bank cannot run dry by plan;
- below ``LOW_BANK_SECONDS`` nothing is extended and the normal budget is halved.

Both fields are read on every move, so a smaller ``actTimeout`` or a drained bank makes every move
spend less. The budgets are plain functions of (act timeout, bank, stones on the board, board size)
so that tests and benchmarks can plan with exactly the figures the agent uses.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.clock import MoveClock, act_timeout, overage
from ..core.config import field

TYPICAL_SECONDS = 0.8  # the normal budget of a move when the act timeout allows it
ACT_SHARE = 0.4  # the normal budget is at most this share of the act timeout
LOW_BANK_SECONDS = 10.0  # below this much overage: no extension, and half the normal budget
MINIMUM_SECONDS = 0.02
SAFETY_MARGIN = 0.25  # seconds of the act timeout a hard move leaves unused ...
SAFETY_MARGIN_SHARE = 0.15  # ... or this share of it, whichever is larger
FIRST_MOVE_MARGIN = 0.5  # extra margin on a process's first move: loading may be counted in it
BANK_RESERVE = 15.0  # seconds of the overage bank never planned into
MIN_PLANNED_MOVES = 3  # the bank is spread over at least this many moves
MAX_BANK_SHARE = 0.25  # of the plannable bank, at most this much on one move
KAGGLE_BANK = 60.0  # the bank of a Kaggle episode, used when the observation has none


def normal_budget(act: float, bank: float | None) -> float:
    """Seconds an easy move may think (``bank`` None: the observation carries no bank)."""
    budget = min(TYPICAL_SECONDS, ACT_SHARE * act)
    if bank is not None and bank < LOW_BANK_SECONDS:
        budget /= 2
    return max(MINIMUM_SECONDS, budget)


def safety_margin(act: float, first_move: bool = False) -> float:
    """Seconds of the act timeout a hard move leaves unused."""
    return max(SAFETY_MARGIN, SAFETY_MARGIN_SHARE * act) + (FIRST_MOVE_MARGIN if first_move else 0.0)


def planned_moves(stones: int, cells: int) -> int:
    """How many more of the agent's moves may be hard: its moves until half the board is full."""
    return max(MIN_PLANNED_MOVES, math.ceil((cells / 2 - stones) / 2))


def bank_share(bank: float, stones: int, cells: int) -> float:
    """Seconds of the overage bank one hard move may draw, keeping ``BANK_RESERVE`` untouched."""
    plannable = max(0.0, bank - BANK_RESERVE)
    return min(plannable / planned_moves(stones, cells), MAX_BANK_SHARE * plannable)


def hard_budget(act: float, bank: float | None, stones: int, cells: int, first_move: bool = False) -> float:
    """Seconds a hard move may think; never less than the normal budget."""
    normal = normal_budget(act, bank)
    if bank is None:
        bank = KAGGLE_BANK
    if bank < LOW_BANK_SECONDS:
        return normal
    return max(normal, act - safety_margin(act, first_move) + bank_share(bank, stones, cells))


_first_move = True  # of this process: loading the submission may be counted towards it


def move_clock(obs: Any, config: Any) -> MoveClock:
    """The clock of the move Kaggle asks for with ``obs`` and ``config``, started now."""
    global _first_move
    act, bank = act_timeout(config), _bank(obs)
    board = field(obs, "board", None) or []
    stones = sum(1 for cell in board if cell)
    cells = len(board) or int(field(config, "rows", 6)) * int(field(config, "columns", 7))
    first, _first_move = _first_move, False
    return MoveClock(normal_budget(act, bank), hard_budget(act, bank, stones, cells, first))


def _bank(obs: Any) -> float | None:
    return None if field(obs, "remainingOverageTime", None) is None else overage(obs)
