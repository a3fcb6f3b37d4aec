"""How things ended, as types: a seat's :class:`Outcome` of a game, Kaggle's :class:`Status` of a seat, the
:class:`Proven` outcome the analysis proves for the player to move, and the gate's :class:`Verdict`.

Each is a :class:`enum.StrEnum`: a member is the very string the results files, the ``--json`` reports and
Kaggle's steps spell (``json.dumps`` writes it as that string, and it equals it), so a record read back
from a file, whose outcomes are plain strings, compares equal to the members. Code compares with the
members, never with string literals.

>>> from connectx_toolkit import Outcome, Status
>>> Outcome.WIN == "win", Outcome("timeout").forfeit, Outcome.DRAW.score
(True, True, 0.5)
>>> Outcome.TIMEOUT.status, Status.TIMEOUT.outcome, Status.DONE.outcome is None
(<Status.TIMEOUT: 'TIMEOUT'>, <Outcome.TIMEOUT: 'timeout'>, True)
>>> import json; json.dumps({"outcomes": [Outcome.WIN, Outcome.ERROR]})
'{"outcomes": ["win", "error"]}'

The bottom floor of the package: it imports nothing of the toolkit, so every layer may use it.
"""

from __future__ import annotations

import enum

__all__ = ["FORFEITS", "Outcome", "Proven", "Status", "Verdict"]


class Outcome(enum.StrEnum):
    """One seat's result of a finished game (``GameRecord.outcomes``), as results files and reports spell it.

    A forfeit (``INVALID``, ``ERROR``, ``TIMEOUT``: Kaggle's final status of the seat, in lower case) is a
    loss for its seat and a win for the other.
    """

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    INVALID = "invalid"
    ERROR = "error"
    TIMEOUT = "timeout"

    @property
    def forfeit(self) -> bool:
        """The seat forfeited the game (an invalid move, an error, no answer in time)."""
        return self in FORFEITS

    @property
    def lost(self) -> bool:
        """The seat lost the game, on the board or by a forfeit."""
        return self is Outcome.LOSS or self.forfeit

    @property
    def score(self) -> float:
        """Points for the seat: 1 a win, 1/2 a draw, 0 a loss or a forfeit."""
        return 1.0 if self is Outcome.WIN else 0.5 if self is Outcome.DRAW else 0.0

    @property
    def status(self) -> Status:
        """Kaggle's final status of a seat with this outcome: DONE, or the forfeit's own status."""
        return Status(self.value.upper()) if self.forfeit else Status.DONE


class Status(enum.StrEnum):
    """Kaggle's status of a seat (``env.state[i].status``, a record's ``statuses``), as its steps and the results
    files spell it."""

    ACTIVE = "ACTIVE"  # to move
    INACTIVE = "INACTIVE"  # waiting for the other seat
    DONE = "DONE"  # the game is over and this seat did not forfeit it
    INVALID = "INVALID"  # the seat forfeited the game: an illegal move or a value that is not a column
    ERROR = "ERROR"  # the seat forfeited the game: its agent raised
    TIMEOUT = "TIMEOUT"  # the seat forfeited the game: no answer within the act timeout and its bank

    @property
    def outcome(self) -> Outcome | None:
        """The forfeit this final status is (``Outcome.TIMEOUT`` for TIMEOUT), None for the others."""
        return Outcome(self.value.lower()) if self in _FORFEIT_STATUSES else None


class Proven(enum.StrEnum):
    """What the analysis proves of a position for the player to move (``analysis.values.Value.outcome``): a
    win, a draw or a loss when the proven bounds of its score decide it, else ``UNKNOWN`` (the analysis never
    turns an estimate into a label)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    UNKNOWN = "unknown"

    @property
    def rank(self) -> int:
        """Loss 0 < draw 1 < win 2 (a move that lowers it loses the outcome); -1 for UNKNOWN."""
        return _RANK[self]


class Verdict(enum.StrEnum):
    """The pre-upload gate's verdict (a gate report's ``"verdict"``)."""

    PASS = "PASS"
    FAIL = "FAIL"


FORFEITS = (Outcome.INVALID, Outcome.ERROR, Outcome.TIMEOUT)
_FORFEIT_STATUSES = (Status.INVALID, Status.ERROR, Status.TIMEOUT)
_RANK = {Proven.LOSS: 0, Proven.DRAW: 1, Proven.WIN: 2, Proven.UNKNOWN: -1}
