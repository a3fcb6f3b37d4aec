"""What one game is asked to be (``GameTask``) and what it was (``GameRecord``); both picklable."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
from connectx_toolkit.evaluation.referees.bank import bank_spent
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE
from connectx_toolkit.outcomes import FORFEITS, Outcome, Status

# A game's outcome for one seat (``GameRecord.outcomes``): ``outcomes.Outcome``; its members under the names
# the evaluator has always imported from here
WIN, DRAW, LOSS = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
INVALID, ERROR, TIMEOUT = Outcome.INVALID, Outcome.ERROR, Outcome.TIMEOUT  # forfeits: Kaggle's final status, lower case
OUTCOMES = tuple(Outcome)
__all__ = ["DRAW", "ERROR", "FORFEITS", "GameRecord", "GameTask", "INVALID", "LOSS", "OUTCOMES", "Outcome", "TIMEOUT",
           "WIN", "forfeit", "score_of"]


@dataclass(frozen=True)
class GameTask:
    """One scheduled game of a match between A and B.

    ``swapped`` False means A sits in seat 0 (mark 1, moves first). ``opening`` is a list of 0-based
    columns both seats are forced through before the agents play (each seat is called at its opening
    plies, as Kaggle would call it, and the opening's column played instead of its answer). ``game_id``
    is deterministic from the match seed and schedule, which is what makes ``--resume`` exact.
    """

    game_id: int
    spec_a: AgentSpec
    spec_b: AgentSpec
    swapped: bool
    opening: tuple[int, ...]
    config: tuple[tuple[str, int], ...]  # (("rows", 6), ("columns", 7), ("inarow", 4)): hashable
    act_timeout: float
    overage: float
    seed: int

    @property
    def seats(self) -> tuple[AgentSpec, AgentSpec]:
        """The specs in seat order (first mover first)."""
        return (self.spec_b, self.spec_a) if self.swapped else (self.spec_a, self.spec_b)


@dataclass
class GameRecord:
    """One finished game, in seat order: index 0 is the first mover (mark 1).

    ``outcomes`` are :class:`~connectx_toolkit.outcomes.Outcome` members (win, draw, loss, or the forfeits
    invalid, error, timeout); ``statuses`` are Kaggle's final statuses (``Status.DONE`` or the forfeit's own
    status); both are read back from a results file as members; ``moves`` are 0-based columns including the
    opening (a prefix of it when a seat forfeited during it); ``move_times`` are Kaggle's own durations of
    every call of each seat, its forced opening plies' first; ``forced_answers`` what each seat answered
    at its forced opening plies, where the opening's column was played (None: not a plain int);
    ``steps`` is ``env.steps`` (replayable with ``make("connectx", configuration, steps=steps)``), empty when the
    worker playing the game had to be killed. ``swapped`` and ``game_id`` tie the record to its match.
    ``error`` says, per seat, why it forfeited (the exception with the agent's own file:line first, the
    invalid action, or why its process died), None otherwise; ``logs`` are the last ``agent_process.LOG_LINES`` lines each
    seat printed (stdout and stderr), as Kaggle keeps agent logs; ``none_plies`` the plies (opening
    included) at which a seat returned None (Kaggle plays column 0 for it).
    """

    game_id: int
    agents: list[str]
    opening: list[int]
    moves: list[int]
    statuses: list[Status]
    outcomes: list[Outcome]
    move_times: list[list[float]]
    config: dict[str, int]
    seed: int
    swapped: bool = False
    note: str = ""
    steps: Sequence[Any] = field(default_factory=list, repr=False)  # a list, or KaggleSteps
    error: list[str | None] = field(default_factory=lambda: [None, None])
    logs: list[list[str]] = field(default_factory=lambda: [[], []])
    none_plies: list[list[int]] = field(default_factory=lambda: [[], []])
    forced_answers: list[list[int | None]] = field(default_factory=lambda: [[], []])
    act_timeout: float = DEFAULT_ACT_TIMEOUT
    overage: float = DEFAULT_OVERAGE
    peak_memory_mb: list[float | None] = field(default_factory=lambda: [None, None])

    @property
    def seats(self) -> tuple[int, int]:
        """Seat (0 = first mover) of the match's A and B."""
        return (1, 0) if self.swapped else (0, 1)

    def outcome_of(self, index: int) -> Outcome:
        """Outcome of the match's agent ``index`` (0 = A, 1 = B), whatever seat it had."""
        return self.outcomes[index ^ int(self.swapped)]

    def times_of(self, index: int) -> list[float]:
        return self.move_times[index ^ int(self.swapped)]

    def bank_used_of(self, index: int) -> float:
        """Seconds of the overage bank the match's agent ``index`` spent in this game (Kaggle's rule: each
        move draws what it took beyond the act timeout)."""
        return bank_spent(self.times_of(index), self.act_timeout)

    def peak_memory_of(self, index: int) -> float | None:
        """Peak resident memory (MB) of the process of the match's agent ``index``, when it was measured."""
        peaks = self.peak_memory_mb or [None, None]
        return peaks[index ^ int(self.swapped)]

    def error_of(self, index: int) -> str | None:
        """Why the match's agent ``index`` forfeited, or None."""
        return self.error[index ^ int(self.swapped)]

    def opening_forfeit_ply(self, index: int) -> int | None:
        """The ply at which the match's agent ``index`` forfeited while the opening was being forced (it was
        called there with the real observation, as Kaggle would call it at that ply), or None."""
        if self.outcome_of(index) in FORFEITS and len(self.moves) < len(self.opening):
            return len(self.moves)
        return None

    def forfeited_under_forced_opening(self, index: int) -> bool:
        """The match's agent ``index`` forfeited after the opening had played, at one of its own plies, another
        column than the one it answered: a game no Kaggle episode can be (Kaggle plays every answer from the empty
        board). An agent that keeps its own moves in globals (an MCTS tree) may assume its answer was played.
        A forfeit at its first call, or after forced plies that matched its answers, is its own (Kaggle makes the
        same calls); so is one after an answer that was not a plain int (Kaggle would have refused that answer)."""
        if self.outcome_of(index) not in FORFEITS:
            return False
        seat = index ^ int(self.swapped)
        own = self.opening[seat::2]  # its forced answers stop at the call that forfeited
        return any(type(answer) is int and answer != move for answer, move in zip(self.forced_answers[seat], own))

    def forfeited_after_overridden_opening(self, index: int) -> bool:
        """``forfeited_under_forced_opening``, the forfeit after the opening's last ply."""
        return len(self.moves) >= len(self.opening) and self.forfeited_under_forced_opening(index)

    def none_moves_of(self, index: int) -> int:
        """How many times the match's agent ``index`` returned None in this game."""
        return len(self.none_plies[index ^ int(self.swapped)])

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict without ``steps`` (the moves reproduce the game)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "steps"}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameRecord":
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name, kind in (("outcomes", Outcome), ("statuses", Status)):  # the file's strings as members
            if isinstance(known.get(name), list):
                known[name] = [_member(kind, value) for value in known[name]]
        return cls(**known)


def _member(kind: type[Outcome] | type[Status], value: Any) -> Any:
    """``value`` as a member of ``kind``; a value that is none is kept as it is, for the reader to judge."""
    try:
        return kind(value)
    except ValueError:
        return value


def score_of(outcome: Outcome) -> float:
    """Points for an outcome: a forfeit is a loss for its agent."""
    return 1.0 if outcome == Outcome.WIN else 0.5 if outcome == Outcome.DRAW else 0.0


def forfeit(task: GameTask, seat: int, outcome: Outcome, note: str, thinking: float | None = None,
            error: str | None = None) -> GameRecord:
    """The record of a game whose worker had to be killed: ``seat`` forfeits it.

    Only the fatal move's time is known (``thinking``); earlier moves died with the worker.
    """
    times: list[list[float]] = [[], []]
    if thinking is not None:
        times[seat].append(round(thinking, 6))
    outcomes = [Outcome.WIN, Outcome.WIN]
    outcomes[seat] = Outcome(outcome)
    errors: list[str | None] = [None, None]
    errors[seat] = error or note or None
    statuses = [Status.DONE, Status.DONE]
    statuses[seat] = Outcome(outcome).status
    return GameRecord(
        game_id=task.game_id,
        agents=[spec.name for spec in task.seats],
        opening=list(task.opening),
        moves=list(task.opening),
        statuses=statuses,
        outcomes=outcomes,
        move_times=times,
        config=dict(task.config),
        seed=task.seed,
        swapped=task.swapped,
        note=note,
        error=errors,
        act_timeout=task.act_timeout,
        overage=task.overage,
    )
