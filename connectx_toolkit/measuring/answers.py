"""What an agent answered at one labelled position (:class:`Answer`), and how the answer is judged.

An answer is a legal column, judged by the position's exact scores (``LabelledPosition.verdict``: "best",
"kept" or the blunder's kind), or a forfeit as the evaluator reports it: ``invalid`` (a column out of range
or full, an answer that is not a plain int), ``error`` (the agent raised, or its process died), ``timeout``
(Kaggle's clock ran out), each with its reason. A forfeit is never accurate. A position the agent never
reached because it forfeited earlier in the same game carries that forfeit too ("not reached: …").

``overridden`` marks a forfeit that came after the game's own column had been played instead of one of the
agent's answers: no Kaggle episode is that game (Kaggle plays every answer), and an agent that keeps its own
moves in globals may assume its answer was played. The report counts it as the forfeit it is; the gate leaves
such games out of its comparison, as its strength checks do (``GameRecord.forfeited_under_forced_opening``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connectx_toolkit.measuring.benchmark import LabelledPosition
from connectx_toolkit.outcomes import Outcome

__all__ = ["Answer", "NOT_REACHED"]

ACCURATE = ("best", "kept")
NOT_REACHED = "not reached"  # the reason's first words at a position after its game's forfeit


@dataclass(frozen=True)
class Answer:
    """``agent``'s answer at ``position``: ``column`` (0-based; None when it forfeited), the move's time as
    Kaggle measures it (``seconds``; None when it was never asked), and ``forfeit``/``reason`` for a forfeit."""

    agent: str
    position: LabelledPosition
    column: int | None
    seconds: float | None = None
    forfeit: Outcome | None = None
    reason: str | None = None
    overridden: bool = False  # a forfeit after the game's column had replaced one of its own answers (see below)

    @property
    def verdict(self) -> str:
        """"best", "kept", a blunder's kind ("win→draw", "win→loss", "draw→loss") or the forfeit
        ("invalid", "error", "timeout")."""
        if self.forfeit is not None or self.column is None:
            return str(self.forfeit or Outcome.INVALID)
        return self.position.verdict(self.column)

    @property
    def accurate(self) -> bool:
        """Did the answer keep the mover's outcome class?"""
        return self.verdict in ACCURATE

    @property
    def reached(self) -> bool:
        """Was the agent asked this position (False: its game had ended at an earlier forfeit)?"""
        return not (self.reason or "").startswith(NOT_REACHED)

    @property
    def best(self) -> bool:
        return self.verdict == "best"

    @property
    def score(self) -> int | None:
        """The exact score of the answered column (None for a forfeit)."""
        return None if self.forfeit is not None or self.column is None else self.position.scores[self.column]

    @property
    def score_lost(self) -> int | None:
        """How far below the best score the answer is (None for a forfeit)."""
        score = self.score
        return None if score is None else self.position.best - score

    def to_json(self) -> dict[str, Any]:
        """One line of the answers file (``--answers``)."""
        position = self.position
        return {"agent": self.agent, "game": position.game, "ply": position.ply, "moves": position.moves,
                "phase": position.phase, "critical": position.critical, "outcome": str(position.outcome),
                "column": None if self.column is None else self.column + 1, "verdict": self.verdict,
                "accurate": self.accurate, "score": self.score, "best_score": position.best,
                "scores": list(position.scores), "seconds": self.seconds,
                "forfeit": None if self.forfeit is None else str(self.forfeit), "reason": self.reason,
                "overridden": self.overridden}
