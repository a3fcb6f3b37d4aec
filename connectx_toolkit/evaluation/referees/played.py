"""What a referee hands back for one game (``Played``) and what it asks of each seat (``Player``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

# Kaggle's clock and its defaults belong to ``bank``; re-exported here, where the referees' other defaults are
from connectx_toolkit.evaluation.referees.bank import DEFAULT_ACT_TIMEOUT as DEFAULT_ACT_TIMEOUT
from connectx_toolkit.evaluation.referees.bank import DEFAULT_OVERAGE as DEFAULT_OVERAGE
from connectx_toolkit.evaluation.seats.agent_move import AgentMove
# Kaggle's statuses of a seat (``env.state[i].status``, a record's ``statuses``): ``outcomes.Status``, re-exported
# where the referees have always imported it
from connectx_toolkit.outcomes import Status as Status

NATIVE, KAGGLE = "native", "kaggle"  # Kaggle's rules written out (fast), or kaggle_environments' Environment
REFEREES = (NATIVE, KAGGLE)
DEFAULT_REFEREE = NATIVE
EPISODE_STEPS = 1000  # Kaggle's default episodeSteps
RUN_TIMEOUT = 1200  # Kaggle's default runTimeout (kept in the configuration agents see)
AGENT_TIMEOUT = 60  # Kaggle's obsolete agentTimeout field (kept in the configuration agents see)


class Player(Protocol):
    """One seat's agent as a referee drives it (``evaluation.seats.agent_process.AgentProcess`` or, in tests
    and from Python, ``evaluation.seats.callable_player.CallablePlayer``)."""

    def act(self, observation: dict, configuration: dict, deadline_s: float) -> AgentMove: ...


@dataclass
class Played:
    """One game as a referee played it, in seat order (index 0 moves first, mark 1).

    ``steps`` have the shape of Kaggle's ``env.steps`` (``toJSON()["steps"]``); ``moves`` are the
    columns played, opening included (a ``None`` answer recorded as the column 0 Kaggle plays for it;
    only the opening's first plies when a seat forfeited during it); ``move_times`` the durations Kaggle
    logs of every call, the forced opening plies' first; ``none_plies`` the plies (0-based) at which each
    seat's None was played as column 0; ``errors`` each seat's error text, if it raised;
    ``forced_answers`` what each seat answered at its forced opening plies (in order; None for an answer
    that is not a plain int), where the opening's column was played instead.
    """

    steps: Sequence[list[dict[str, Any]]]  # a list, or the native referee's KaggleSteps (expanded when read)
    statuses: list[Status]
    rewards: list[Any]
    moves: list[int]
    move_times: list[list[float]]
    none_plies: list[list[int]] = field(default_factory=lambda: [[], []])
    errors: list[str | None] = field(default_factory=lambda: [None, None])
    note: str = ""
    forced_answers: list[list[int | None]] = field(default_factory=lambda: [[], []])


def kaggle_configuration(shape: dict[str, int], act_timeout: float, episode_steps: int = EPISODE_STEPS) -> dict[str, Any]:
    """The configuration Kaggle sends agents, with the obsolete ``timeout`` equal to ``actTimeout``
    (many public agents budget from it)."""
    return {
        "rows": shape["rows"], "columns": shape["columns"], "inarow": shape["inarow"],
        "actTimeout": act_timeout, "episodeSteps": episode_steps, "runTimeout": RUN_TIMEOUT,
        "agentTimeout": AGENT_TIMEOUT, "timeout": obsolete_timeout(act_timeout),
    }


def obsolete_timeout(act_timeout: float) -> float:
    """``configuration.timeout`` for an act timeout: an int when whole (Kaggle's field is an integer)."""
    return int(act_timeout) if float(act_timeout).is_integer() else act_timeout


@dataclass(frozen=True)
class GameSetup:
    """One game as a referee is asked to play it, its players apart: the board (``shape``: rows, columns, inarow),
    Kaggle's clock (``act_timeout`` a move, ``overage`` the bank of each seat), the ``opening`` forced first
    (0-based columns) and Kaggle's ``episode_steps``."""

    shape: dict[str, int]
    act_timeout: float = DEFAULT_ACT_TIMEOUT
    overage: float = DEFAULT_OVERAGE
    opening: tuple[int, ...] = ()
    episode_steps: int = EPISODE_STEPS

    def configuration(self) -> dict[str, Any]:
        """The configuration Kaggle sends the agents (:func:`kaggle_configuration`)."""
        return kaggle_configuration(self.shape, self.act_timeout, self.episode_steps)


def referee(play: Callable[[Sequence[Player], GameSetup], Played]):
    """A referee written as ``play(players, setup)``, called as every referee is:
    ``play(players, shape, act_timeout, overage, opening, episode_steps)`` (the one home of that signature and its
    defaults, shared by ``referees.native`` and ``referees.kaggle``)."""

    def play_game(players: Sequence[Player], shape: dict[str, int], act_timeout: float = DEFAULT_ACT_TIMEOUT,
                  overage: float = DEFAULT_OVERAGE, opening: Sequence[int] = (),
                  episode_steps: int = EPISODE_STEPS) -> Played:
        return play(players, GameSetup(shape, act_timeout, overage, tuple(opening), episode_steps))

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):  # named as the referee, for tracebacks
        setattr(play_game, name, getattr(play, name))
    return play_game
