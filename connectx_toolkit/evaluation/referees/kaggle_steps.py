"""Kaggle's step records of a game the native referee played (``KaggleSteps``), kept compact.

``env.steps`` holds, for every step, both seats' action, reward, status and observation, the whole
board included: about a hundred objects a step, which a long match mostly throws away unread (a
worker sends each record to the evaluator, which keeps the steps only for replays). Yet every step but
the last is an ordinary move: the seat to move drops a piece, the other seat becomes ACTIVE, rewards stay
0 and the mover's bank loses what the move took beyond the act timeout. So the native referee keeps
only the columns and durations of those moves and the whole of the last step (``Step``); ``KaggleSteps``
is a read-only sequence that rebuilds Kaggle's ``toJSON()["steps"]`` from them on first use, and pickles
as the compact form.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from connectx_toolkit.evaluation.referees.bank import overage_of
from connectx_toolkit.evaluation.referees.played import Status


class Step(NamedTuple):
    """The last step: each seat's action, reward, status and bank (``remainingOverageTime``), and the
    ``cell`` (row * columns + column) filled with ``mark`` in it, or -1."""

    action0: Any
    action1: Any
    reward0: Any
    reward1: Any
    status0: str
    status1: str
    bank0: float
    bank1: float
    cell: int = -1
    mark: int = 0


class KaggleSteps(Sequence[list[dict[str, Any]]]):
    """``env.steps`` of one game: the reset, the ordinary moves (``columns`` played, with their
    ``durations``, None for a forced opening move), then ``last``."""

    def __init__(self, rows: int, columns: int, act_timeout: float, overage: float, played: list[int],
                 durations: list[float | None], last: Step) -> None:
        self.shape = (rows, columns, act_timeout, overage)
        self.played, self.durations = played, durations
        self.last: tuple[Any, ...] = tuple(last)
        self._expanded: list[list[dict[str, Any]]] | None = None

    def __len__(self) -> int:
        return len(self.played) + 2

    def __getitem__(self, index: Any) -> Any:
        return self.expanded()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KaggleSteps):
            return self.expanded() == other.expanded()
        return isinstance(other, (list, tuple)) and self.expanded() == list(other)

    __hash__ = None  # type: ignore[assignment]  # mutable contents, as a list's

    def __repr__(self) -> str:
        return f"KaggleSteps({len(self)} steps)"

    def __getstate__(self) -> dict[str, Any]:
        return {"shape": self.shape, "played": self.played, "durations": self.durations, "last": self.last,
                "_expanded": None}

    def expanded(self) -> list[list[dict[str, Any]]]:
        """The steps in Kaggle's shape (built once, then shared: treat as read-only)."""
        if self._expanded is None:
            rows, columns, act_timeout, overage = self.shape
            board = [0] * (rows * columns)
            banks = [overage, overage]
            steps = [_step(0, board, (0, 0), (0, 0), (Status.ACTIVE, Status.INACTIVE), banks)]
            for number, (column, duration) in enumerate(zip(self.played, self.durations), start=1):
                seat = (number - 1) % 2
                row = rows - 1
                while board[column + row * columns] != 0:
                    row -= 1
                board[column + row * columns] = seat + 1
                if duration is not None:
                    banks[seat] -= overage_of(duration, act_timeout)
                actions = (column, 0) if seat == 0 else (0, column)
                statuses = (Status.INACTIVE, Status.ACTIVE) if seat == 0 else (Status.ACTIVE, Status.INACTIVE)
                steps.append(_step(number, board, actions, (0, 0), statuses, banks))
            action0, action1, reward0, reward1, status0, status1, bank0, bank1, cell, mark = self.last
            if cell >= 0:
                board[cell] = mark
            steps.append(_step(len(steps), board, (action0, action1), (reward0, reward1), (status0, status1),
                               (bank0, bank1)))
            self._expanded = steps
        return self._expanded


def _step(number: int, board: list[int], actions: Any, rewards: Any, statuses: Any, banks: Any) -> list[dict[str, Any]]:
    return [
        {"action": actions[0], "reward": rewards[0], "info": {},
         "observation": {"remainingOverageTime": banks[0], "step": number, "board": list(board), "mark": 1},
         "status": statuses[0]},
        {"action": actions[1], "reward": rewards[1], "info": {},
         "observation": {"remainingOverageTime": banks[1], "mark": 2}, "status": statuses[1]},
    ]
