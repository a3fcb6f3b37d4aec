"""Kaggle's ConnectX referee (kaggle-environments 1.33.2), written out for speed.

The same rules as ``Environment.step`` plus the ConnectX interpreter, in the same order, producing the
same step records (``toJSON()["steps"]``): the action check (``None`` is the schema's default column 0;
``True``/``False``, numpy integers, strings, negatives and non-whole numbers are INVALID; a column out
of range or full is "Invalid column", which Kaggle turns into INVALID; a whole float in range crashes
Kaggle's interpreter, which ``referees.kaggle`` records as INVALID and so does this), the overage bank
(``referees.bank``'s rule: ``overage_of`` drawn after every move, TIMEOUT by ``times_out``), rewards
(1/-1 for a win, 0 for a draw, None for the offender of a forfeit) and ``episodeSteps``.
``tests/evaluation/referees/test_differential.py`` proves it identical to Kaggle's on thousands of games.

An opening is played as a game Kaggle could have played: each seat is called at each of its opening plies
with the real observation (step, board, mark, bank) on Kaggle's clock, and the opening's column is played
instead of its answer (kept in ``Played.forced_answers``). Kaggle always starts from the empty board, and
an agent may set itself up on its first call (``obs.step`` 0 or 1): so it gets that call here too. An
error or a timeout on such a call is a forfeit, as Kaggle would have made the same call at that ply; an
answer that would be INVALID is not, since it is not played.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from connectx_toolkit.evaluation.seats.agent_move import AgentMove, UnsupportedAction
from connectx_toolkit.evaluation.referees.bank import overage_of, times_out
from connectx_toolkit.evaluation.referees.kaggle_steps import KaggleSteps, Step
from connectx_toolkit.evaluation.referees.rules import drop, winning_line
from connectx_toolkit.evaluation.referees.played import GameSetup, Played, Player, Status, referee

_INVALID = object()  # the schema rejected the action: Kaggle records action None
# Kaggle's statuses as module names: the referee's loop reads them on every move
ACTIVE, INACTIVE, DONE = Status.ACTIVE, Status.INACTIVE, Status.DONE
INVALID, ERROR, TIMEOUT = Status.INVALID, Status.ERROR, Status.TIMEOUT


@referee  # called as play_native(players, shape, act_timeout, overage, opening, episode_steps)
def play_native(players: Sequence[Player], setup: GameSetup) -> Played:
    """Play one game between ``players`` (seat 0 moves first) after forcing ``opening`` (0-based columns)."""
    act_timeout, overage, opening, episode_steps = setup.act_timeout, setup.overage, setup.opening, setup.episode_steps
    rows, columns, inarow = setup.shape["rows"], setup.shape["columns"], setup.shape["inarow"]
    configuration = setup.configuration()
    board = [0] * (rows * columns)
    # Kaggle's state, per seat (index 0 moves first): the last action, reward, status and overage bank
    actions: list[Any] = [0, 0]
    rewards: list[Any] = [0, 0]
    statuses = [ACTIVE, INACTIVE]
    banks = [overage, overage]
    # Kaggle's steps, kept as KaggleSteps keeps them: what each step played and took (the last one apart)
    played: list[Any] = []
    durations: list[float | None] = []
    last_cell = [-1, 0]  # the cell the last step filled and its mark
    moves: list[int] = []
    times: list[list[float]] = [[], []]
    none_plies: list[list[int]] = [[], []]
    errors: list[str | None] = [None, None]
    note = ""

    def step(seat: int, action: Any, duration: float | None, status: Status | None) -> None:
        """One ``Environment.step``: ``status`` TIMEOUT/ERROR/INVALID (schema) or None for a checked action."""
        other = 1 - seat
        cell = -1
        actions[seat] = None if status else action
        actions[other] = 0  # the waiting seat's None, defaulted by the schema
        if status or action >= columns or board[action] != 0:  # a forfeit ("Invalid column: N" is INVALID)
            statuses[seat], statuses[other] = status or INVALID, DONE
            rewards[seat] = None  # the offender's; the other seat's stays what it was
        else:
            mark = seat + 1
            row = drop(board, action, rows, columns, mark)
            cell = action + row * columns
            if winning_line(board, row, action, rows, columns, inarow):
                rewards[seat], rewards[other] = 1, -1
                statuses[seat] = statuses[other] = DONE
            elif 0 not in board:
                statuses[seat] = statuses[other] = DONE
            else:
                statuses[seat], statuses[other] = INACTIVE, ACTIVE
        if duration is not None:
            banks[seat] -= overage_of(duration, act_timeout)
        if 1 + len(played) >= episode_steps - 1:  # the steps so far, the reset included
            for either in (0, 1):
                if statuses[either] in (ACTIVE, INACTIVE):
                    statuses[either] = DONE
        played.append(action)
        durations.append(duration)
        last_cell[:] = cell, seat + 1

    forced_answers: list[list[int | None]] = [[], []]
    for ply, column in enumerate(opening):  # each seat is called at its opening plies; the opening's move is played
        if ACTIVE not in statuses:
            raise ValueError(f"opening {list(opening)} ends the game")
        seat = statuses.index(ACTIVE)
        bank = banks[seat]
        move = players[seat].act(_observation(seat, bank, len(played), board), configuration, act_timeout + bank)
        duration = round(move.seconds, 6)
        times[seat].append(duration)
        late = move.timed_out or move.seconds - act_timeout > bank
        if late or move.error is not None:  # a call Kaggle would make at this ply failed: a real forfeit
            errors[seat] = move.error
            step(seat, None, duration, TIMEOUT if late else ERROR)
            break
        forced_answers[seat].append(move.action if type(move.action) is int else None)
        step(seat, int(column), duration, None)
        moves.append(int(column))
        if statuses[seat] == INVALID or (ACTIVE not in statuses and ply + 1 == len(opening)):
            raise ValueError(f"opening {list(opening)} ends the game")

    while ACTIVE in statuses:
        seat = statuses.index(ACTIVE)
        bank = banks[seat]
        observation = _observation(seat, bank, len(played), board)
        move = players[seat].act(observation, configuration, act_timeout + bank)
        duration = round(move.seconds, 6)
        times[seat].append(duration)
        if move.error is not None:
            errors[seat] = move.error
        if move.action is None and move.error is None and not move.timed_out:
            none_plies[seat].append(len(moves))
        status, column = _ruling(move, bank, act_timeout, columns)
        if status is None:
            step(seat, column, duration, None)
            if statuses[seat] != INVALID:
                moves.append(column)
        else:
            if column is not None:
                note = f"seat {seat} returned the float {move.action!r}: Kaggle's referee crashes on it (INVALID)"
            step(seat, None, duration, status)
    last = Step(actions[0], actions[1], rewards[0], rewards[1], statuses[0], statuses[1], banks[0], banks[1],
                *last_cell)
    steps = KaggleSteps(rows, columns, act_timeout, overage, played[:-1], durations[:-1], last)
    return Played(steps=steps, statuses=list(statuses), rewards=list(rewards),
                  moves=moves, move_times=times, none_plies=none_plies, errors=errors, note=note,
                  forced_answers=forced_answers)


def _ruling(move: AgentMove, bank: float, act_timeout: float, columns: int) -> tuple[Status | None, Any]:
    """What Kaggle makes of one answer, before the board is looked at: ``(None, column)`` to play (a
    column out of range or full is still INVALID), or a forfeit ``(status, None)``: TIMEOUT, ERROR, or
    INVALID for an action the schema rejects; ``(INVALID, float)`` for a whole float in range, on which
    Kaggle's interpreter crashes."""
    if move.timed_out or times_out(move.seconds, act_timeout, bank):
        return TIMEOUT, None
    if move.error is not None:
        return ERROR, None
    action = move.action
    if type(action) is int and action >= 0:  # the usual answer, a column: spares checked_action's call per move
        return None, action
    column = checked_action(action)
    if column is _INVALID:
        return INVALID, None
    if isinstance(column, float) and column < columns:
        return INVALID, column
    return None, column


def checked_action(action: Any) -> Any:
    """Kaggle's schema check of an action (``{"type": "integer", "minimum": 0, "default": 0}``): the
    column (None → 0; a whole non-negative float stays a float), or ``_INVALID``."""
    if action is None:
        return 0
    if isinstance(action, bool) or isinstance(action, (str, UnsupportedAction)):
        return _INVALID
    if isinstance(action, int):
        return action if action >= 0 else _INVALID
    if isinstance(action, float):
        if not math.isfinite(action) or not action.is_integer() or action < 0:
            return _INVALID
        return float(action)
    return _INVALID  # numpy integers and anything else: not a JSON-schema integer to Kaggle


def _observation(seat: int, bank: float, step: int, board: list[int]) -> dict[str, Any]:
    """What Kaggle's ``__get_shared_state`` gives a seat, in its key order: its own fields, then the shared
    step and board (the first seat's own)."""
    if seat == 0:
        return {"remainingOverageTime": bank, "step": step, "board": list(board), "mark": 1}
    return {"remainingOverageTime": bank, "mark": 2, "step": step, "board": list(board)}
