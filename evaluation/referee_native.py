"""Kaggle's ConnectX referee (kaggle-environments 1.33.2), written out for speed.

The same rules as ``Environment.step`` plus the ConnectX interpreter, in the same order, producing the
same step records (``toJSON()["steps"]``): the action check (``None`` is the schema's default column 0;
``True``/``False``, numpy integers, strings, negatives and non-whole numbers are INVALID; a column out
of range or full is "Invalid column", which Kaggle turns into INVALID; a whole float in range crashes
Kaggle's interpreter, which ``referee_kaggle`` records as INVALID and so does this), the overage bank
(``bank -= max(0, duration - actTimeout)`` after every move, TIMEOUT when ``duration - actTimeout >
bank``), rewards (1/-1 for a win, 0 for a draw, None for the offender of a forfeit) and ``episodeSteps``.
``tests/test_referee_differential.py`` proves it identical to Kaggle's on thousands of games.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from evaluation.agent_move import UnsupportedAction
from evaluation.played import EPISODE_STEPS, Played, Player, kaggle_configuration

FORFEIT_STATUSES = ("ERROR", "INVALID", "TIMEOUT")
_INVALID = object()  # the schema rejected the action: Kaggle records action None


def play_native(
    players: Sequence[Player],
    shape: dict[str, int],
    act_timeout: float = 2.0,
    overage: float = 60.0,
    opening: Sequence[int] = (),
    episode_steps: int = EPISODE_STEPS,
) -> Played:
    """Play one game between ``players`` (seat 0 moves first) after forcing ``opening`` (0-based columns)."""
    rows, columns, inarow = shape["rows"], shape["columns"], shape["inarow"]
    configuration = kaggle_configuration(shape, act_timeout, episode_steps)
    board = [0] * (rows * columns)
    state = [
        {"action": 0, "reward": 0, "info": {}, "observation": {"remainingOverageTime": overage, "step": 0,
                                                                 "board": board, "mark": 1}, "status": "ACTIVE"},
        {"action": 0, "reward": 0, "info": {}, "observation": {"remainingOverageTime": overage, "mark": 2},
         "status": "INACTIVE"},
    ]
    steps = [_snapshot(state)]
    moves: list[int] = []
    times: list[list[float]] = [[], []]
    none_plies: list[list[int]] = [[], []]
    errors: list[str | None] = [None, None]
    note = ""

    def step(seat: int, action: Any, duration: float | None, status: str | None) -> None:
        """One ``Environment.step``: ``status`` TIMEOUT/ERROR/INVALID (schema) or None for a checked action."""
        other = 1 - seat
        state[seat]["action"] = None if status else action
        state[other]["action"] = 0  # the waiting seat's None, defaulted by the schema
        if status:
            state[seat]["status"] = status
            state[other]["status"] = "DONE"
        else:
            column = action
            if column >= columns or board[column] != 0:
                state[seat]["status"] = "INVALID"  # "Invalid column: N", outside the status enum
                state[other]["status"] = "DONE"
            else:
                mark = seat + 1
                row = _drop(board, column, rows, columns, mark)
                if _wins(board, row, column, mark, rows, columns, inarow):
                    state[seat]["reward"], state[seat]["status"] = 1, "DONE"
                    state[other]["reward"], state[other]["status"] = -1, "DONE"
                elif all(cell != 0 for cell in board):
                    state[seat]["status"] = state[other]["status"] = "DONE"
                else:
                    state[seat]["status"], state[other]["status"] = "INACTIVE", "ACTIVE"
        state[0]["observation"]["step"] = len(steps)
        if duration is not None:
            state[seat]["observation"]["remainingOverageTime"] -= max(0, duration - act_timeout)
        for agent in state:
            if agent["status"] in FORFEIT_STATUSES:
                agent["reward"] = None
        if len(steps) >= episode_steps - 1:
            for agent in state:
                if agent["status"] in ("ACTIVE", "INACTIVE"):
                    agent["status"] = "DONE"
        steps.append(_snapshot(state))

    def active() -> int:
        return 0 if state[0]["status"] == "ACTIVE" else 1

    def done() -> bool:
        return all(agent["status"] != "ACTIVE" for agent in state)

    for column in opening:
        if done():
            raise ValueError(f"opening {list(opening)} ends the game")
        seat = active()
        step(seat, int(column), None, None)
        moves.append(int(column))
    if done() and opening:
        raise ValueError(f"opening {list(opening)} ends the game")

    while not done():
        seat = active()
        move = players[seat].act(_observation(state, seat), dict(configuration),
                                 act_timeout + state[seat]["observation"]["remainingOverageTime"])
        duration = round(move.seconds, 6)
        times[seat].append(duration)
        bank = state[seat]["observation"]["remainingOverageTime"]
        if move.error is not None:
            errors[seat] = move.error
        if move.action is None and move.error is None and not move.timed_out:
            none_plies[seat].append(len(moves))
        if move.timed_out or move.seconds - act_timeout > bank:
            step(seat, None, duration, "TIMEOUT")
        elif move.error is not None:
            step(seat, None, duration, "ERROR")
        else:
            column = checked_action(move.action)
            if column is _INVALID:
                step(seat, None, duration, "INVALID")
            elif isinstance(column, float) and column < columns:
                note = f"seat {seat} returned the float {move.action!r}: Kaggle's referee crashes on it (INVALID)"
                step(seat, None, duration, "INVALID")
            else:
                step(seat, column, duration, None)
                if state[seat]["status"] != "INVALID":
                    moves.append(column)
    return Played(steps=steps, statuses=[a["status"] for a in state], rewards=[a["reward"] for a in state],
                  moves=moves, move_times=times, none_plies=none_plies, errors=errors, note=note)


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


def _drop(board: list[int], column: int, rows: int, columns: int, mark: int) -> int:
    row = rows - 1
    while board[column + row * columns] != 0:
        row -= 1
    board[column + row * columns] = mark
    return row


def _wins(board: list[int], row: int, column: int, mark: int, rows: int, columns: int, inarow: int) -> bool:
    need = inarow - 1

    def run(d_row: int, d_column: int) -> int:
        count, r, c = 0, row + d_row, column + d_column
        while count < need and 0 <= r < rows and 0 <= c < columns and board[c + r * columns] == mark:
            count, r, c = count + 1, r + d_row, c + d_column
        return count

    return (run(1, 0) >= need or run(0, 1) + run(0, -1) >= need
            or run(-1, -1) + run(1, 1) >= need or run(-1, 1) + run(1, -1) >= need)


def _observation(state: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """What Kaggle's ``__get_shared_state`` gives a seat: its own fields plus the shared step and board."""
    own = state[seat]["observation"]
    if seat == 0:
        return {"remainingOverageTime": own["remainingOverageTime"], "step": own["step"],
                "board": list(own["board"]), "mark": own["mark"]}
    shared = state[0]["observation"]
    return {"remainingOverageTime": own["remainingOverageTime"], "mark": own["mark"], "step": shared["step"],
            "board": list(shared["board"])}


def _snapshot(state: list[dict[str, Any]]) -> list[dict[str, Any]]:
    first, second = state
    observation = first["observation"]
    return [
        {"action": first["action"], "reward": first["reward"], "info": {},
         "observation": {"remainingOverageTime": observation["remainingOverageTime"], "step": observation["step"],
                         "board": list(observation["board"]), "mark": 1}, "status": first["status"]},
        {"action": second["action"], "reward": second["reward"], "info": {},
         "observation": {"remainingOverageTime": second["observation"]["remainingOverageTime"], "mark": 2},
         "status": second["status"]},
    ]
