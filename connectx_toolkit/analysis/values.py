"""What the analysis knows about a position: proven bounds on its exact score, and the outcome class.

Scores are on Pascal Pons' scale for the player to move, as the solver uses them: 0 a draw,
``(43 - n) // 2`` a win with the stone played when ``n`` stones are on the board, the negative a loss.
A :class:`Value` holds what was *proven* (``low <= score <= high``); the outcome class is a fact only
when the bounds decide it, otherwise it is ``Proven.UNKNOWN`` — the analysis never turns an estimate into a label.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.outcomes import Proven

__all__ = ["OUTCOME_RANK", "Value", "canonical_key", "score_range", "trivial_value", "win_score"]

CELLS = Config().cells
OUTCOME_RANK = {proven: proven.rank for proven in (Proven.LOSS, Proven.DRAW, Proven.WIN)}  # ``Proven.rank``


def score_range(stones: int) -> tuple[int, int]:
    """Every score a position with ``stones`` stones (not yet won) can have, for the player to move."""
    return -((CELLS - stones) // 2), (CELLS + 1 - stones) // 2


def win_score(stones: int) -> int:
    """The score of winning with the next stone when ``stones`` stones are on the board."""
    return (CELLS + 1 - stones) // 2


@dataclass(frozen=True)
class Value:
    """Proven bounds ``low <= score <= high`` for the player to move, and where they came from.

    ``engine`` names what proved them ("trivial", "book", "table", "compiled", "python", "cache"); ``seconds`` is
    the search time spent; ``timed_out`` says the budget ran out before the score was exact.
    """

    low: int
    high: int
    engine: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    @classmethod
    def exact_score(cls, score: int, engine: str = "", seconds: float = 0.0) -> "Value":
        return cls(score, score, engine, seconds)

    @classmethod
    def unknown(cls, stones: int, engine: str = "", seconds: float = 0.0) -> "Value":
        """Nothing proven beyond what the number of stones allows; the budget ran out."""
        low, high = score_range(stones)
        return cls(low, high, engine, seconds, True)

    @property
    def exact(self) -> bool:
        return self.low == self.high

    @property
    def score(self) -> int | None:
        """The exact score, None while only bounds are known."""
        return self.low if self.low == self.high else None

    @property
    def outcome(self) -> Proven:
        """A win, a draw or a loss for the player to move when the bounds decide it, else ``Proven.UNKNOWN``."""
        if self.low > 0:
            return Proven.WIN
        if self.high < 0:
            return Proven.LOSS
        if self.low == 0 and self.high == 0:
            return Proven.DRAW
        return Proven.UNKNOWN

    def merged(self, other: "Value") -> "Value":
        """Both sets of proven bounds at once (the tighter of each); named after the tighter source."""
        low, high = max(self.low, other.low), min(self.high, other.high)
        if low > high:
            raise ValueError(f"contradictory values {self} and {other}")
        engine = self.engine if self.high - self.low <= other.high - other.low else other.engine
        return Value(low, high, engine, self.seconds + other.seconds,
                     (self.timed_out or other.timed_out) and low != high)

    def negated(self) -> "Value":
        """The same facts from the other player's side (the value of the move that led here)."""
        return Value(-self.high, -self.low, self.engine, self.seconds, self.timed_out)


def canonical_key(moves: tuple[int, ...] | list[int]) -> int:
    """One key for a position and its mirror image (they have the same score): the smaller Pons key."""
    return Position.from_moves(moves).canonical_key()


def trivial_value(position: Position) -> Value | None:
    """The exact value when no search is needed: a full board, a win at once, or a loss at once."""
    if position.is_full():
        return Value.exact_score(0, "trivial")
    if position.immediate_wins():
        return Value.exact_score(win_score(position.moves), "trivial")
    threats = position.opponent_threats()
    if len(threats) > 1:  # two cells to block at once: the opponent wins with its next stone
        return Value.exact_score(-win_score(position.moves + 1), "trivial")
    if threats and not position.played(threats[0]).legal_moves():
        return Value.exact_score(0, "trivial")
    candidates = threats or position.legal_moves()
    safe = [c for c in candidates if not _gives_immediate_win(position, c)]
    if not safe:
        return Value.exact_score(-win_score(position.moves + 1), "trivial")
    if position.moves >= CELLS - 2 and not threats:
        return Value.exact_score(0, "trivial")  # two stones left, no win for either
    return None


def _gives_immediate_win(position: Position, column: int) -> bool:
    """After ``column``, can the opponent win at once?"""
    child = position.played(column)
    return bool(child.immediate_wins())
