"""One game: each seat's agent in its own process (``AgentProcess``), the referee here.

``referee="native"`` (the default) plays on ``referees.native``, Kaggle's ConnectX rules written out
(proven identical by ``tests/evaluation/referees/test_differential.py``, over 20 times faster); ``referee="kaggle"``
plays on kaggle_environments' own ``Environment`` (``referees.kaggle``). Either way the agents run in
processes of their own, loaded afresh each game as Kaggle loads them, and a move past its hard deadline
(act timeout + what is left of the bank) has its process killed: TIMEOUT.

Final statuses (kaggle-environments 1.33.2): "DONE", "INVALID", "ERROR", "TIMEOUT". The offender's
reward is None and the other seat's is 0: we score that as a win for the other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.seats.kept_agents import KeptAgents
from connectx_toolkit.evaluation.seats.agent_move import AgentMove, UnsupportedAction
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
from connectx_toolkit.evaluation.referees.played import (
    DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE, NATIVE, Player, REFEREES, Status,
)
from connectx_toolkit.evaluation.referees.record import GameRecord, GameTask
from connectx_toolkit.outcomes import FORFEITS, Outcome

MONITOR_SLACK_SECONDS = 1.0  # the worker kills a late agent itself; the pool steps in only past this

__all__ = ["AskedAgain", "GameRecord", "Monitor", "ask_again", "error_site", "play_game", "play_task"]


class Monitor(Protocol):
    """Told when a seat starts thinking and by when it must be done (``time.monotonic()`` seconds)."""

    def start(self, seat: int, deadline: float) -> None: ...

    def stop(self) -> None: ...


def play_game(
    spec_a: AgentSpec,
    spec_b: AgentSpec,
    opening: list[int] | tuple[int, ...] = (),
    config: dict[str, int] | None = None,
    act_timeout: float = DEFAULT_ACT_TIMEOUT,
    overage: float = DEFAULT_OVERAGE,
    seed: int = 0,
    *,
    game_id: int = 0,
    swapped: bool = False,
    monitor: Monitor | None = None,
    referee: str = DEFAULT_REFEREE,
    hosts: KeptAgents | None = None,
    sandbox: bool = False,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> GameRecord:
    """Play ``spec_a`` (seat 0, mark 1, moves first) against ``spec_b`` from ``opening`` (0-based columns):
    the game written out as a ``GameTask`` for ``play_task``, for a caller with no schedule (tests, tools).

    ``config`` holds rows/columns/inarow (Kaggle's defaults when missing). ``act_timeout`` and
    ``overage`` are Kaggle's act timeout (also the configuration's ``timeout``) and overage bank.
    ``seed`` seeds ``random`` and ``numpy.random`` in each agent's process (seat 1 gets ``seed + 1``).
    ``swapped`` and ``game_id`` are only recorded.
    """
    shape = {**Config().as_dict(), **(config or {})}
    first, second = (spec_b, spec_a) if swapped else (spec_a, spec_b)  # a task's seats swap back
    task = GameTask(game_id, first, second, swapped, tuple(int(c) for c in opening),
                    tuple((k, shape[k]) for k in ("rows", "columns", "inarow")), act_timeout, overage, seed)
    return play_task(task, monitor, hosts, referee, sandbox=sandbox, memory_mb=memory_mb)


def play_task(task: GameTask, monitor: Monitor | None = None, hosts: KeptAgents | None = None,
              referee: str = DEFAULT_REFEREE, *, sandbox: bool = False,
              memory_mb: int = DEFAULT_MEMORY_MB) -> GameRecord:
    """Play a scheduled ``GameTask`` (seats as the task says) on ``referee``.

    ``monitor`` is told when each move starts and by when it must end (a worker's deadline cells).
    ``hosts`` keeps agent processes between games (a worker's); without it they are started for this
    game, with ``sandbox`` and ``memory_mb``, and stopped after it.
    """
    spec_a, spec_b = task.seats
    opening, act_timeout, overage, seed = task.opening, task.act_timeout, task.overage, task.seed
    game_id, swapped = task.game_id, task.swapped
    if referee not in REFEREES:
        raise ValueError(f"unknown referee {referee!r}: one of {', '.join(REFEREES)}")
    from connectx_toolkit.evaluation.referees.kaggle import play_kaggle
    from connectx_toolkit.evaluation.referees.native import play_native

    own_hosts = hosts is None
    hosts = hosts or KeptAgents(sandbox=sandbox, memory_mb=memory_mb)
    shape = dict(task.config)
    specs = (spec_a, spec_b)
    processes = [hosts.acquire(spec) for spec in specs]
    try:
        for seat, process in enumerate(processes):
            process.new_game(seed + seat)
        players = [_Monitored(process, seat, monitor) for seat, process in enumerate(processes)]
        play = play_native if referee == NATIVE else play_kaggle
        played = play(players, shape, act_timeout, overage, tuple(int(c) for c in opening))
        logs = [process.logs() for process in processes]
        peaks = [process.end_game() for process in processes]  # nothing the agents started outlives the game
    finally:
        for process in processes:
            hosts.release(process)
        if own_hosts:
            hosts.close()
    return GameRecord(
        game_id=game_id,
        agents=[spec.name for spec in specs],
        opening=[int(c) for c in opening],
        moves=[int(m) for m in played.moves],
        statuses=played.statuses,
        outcomes=outcomes_from(played.statuses, played.rewards),
        move_times=played.move_times,
        config={k: shape[k] for k in ("rows", "columns", "inarow")},
        seed=seed,
        swapped=swapped,
        note=played.note,
        steps=played.steps,
        error=[played.errors[seat] or invalid_move_text(played.statuses[seat], players[seat].last_action)
               for seat in (0, 1)],
        logs=logs,
        none_plies=played.none_plies,
        forced_answers=played.forced_answers,
        act_timeout=act_timeout,
        overage=overage,
        peak_memory_mb=peaks,
    )


def outcomes_from(statuses: list[Status], rewards: list[Any]) -> list[Outcome]:
    """Per-seat outcome from Kaggle's final statuses and rewards (a forfeit is the other seat's win)."""
    forfeits = [Status(status).outcome for status in statuses]
    outcomes = []
    for seat in (0, 1):
        own, other = forfeits[seat], forfeits[1 - seat]
        if own is not None:
            outcomes.append(own)
        elif other is not None:
            outcomes.append(Outcome.WIN)
        else:
            reward = rewards[seat] or 0
            outcomes.append(Outcome.WIN if reward > 0 else Outcome.LOSS if reward < 0 else Outcome.DRAW)
    return outcomes


def invalid_move_text(status: Status, action: Any) -> str | None:
    """Why a seat's game ended INVALID: what it returned, with its type (a ``numpy.int64`` is the usual one)."""
    if status != Status.INVALID:
        return None
    type_name = action.type_name if isinstance(action, UnsupportedAction) else type(action).__name__
    return f"invalid move: returned {action!r} ({type_name})"


class _Monitored:
    """A seat's player that tells the worker's monitor when it thinks (see ``evaluation.scheduling.pool``)."""

    def __init__(self, player: Player, seat: int, monitor: Monitor | None) -> None:
        self.player, self.seat, self.monitor = player, seat, monitor
        self.last_action: Any = None

    def act(self, observation: dict, configuration: dict, deadline_s: float) -> AgentMove:
        if self.monitor is not None:
            self.monitor.start(self.seat, time.monotonic() + deadline_s + MONITOR_SLACK_SECONDS)
        try:
            move = self.player.act(observation, configuration, deadline_s)
            self.last_action = move.action
        finally:
            if self.monitor is not None:
                self.monitor.stop()
        return move


@dataclass(frozen=True)
class AskedAgain:
    """A forfeit asked again (``ask_again``): ``repeated`` when the agent forfeited the same way at the same ply;
    ``ply`` the forfeit's ply, ``start`` the first ply at which the replay called the agent, ``outcome`` and
    ``error`` what the replay's call at ``ply`` (or before it) gave, None for a legal answer."""

    repeated: bool
    ply: int
    start: int
    outcome: Outcome | None
    error: str | None


def error_site(error: str | None) -> str | None:
    """An agent's error text without its message: its place and kind (``bot.py:12 in agent: NameError``), what two
    raises of the same bug share whatever the message says (a board, an address)."""
    return None if error is None else ": ".join(error.split(": ")[:2])


def ask_again(record: GameRecord, index: int, spec: AgentSpec, *, sandbox: bool = False,
              memory_mb: int = DEFAULT_MEMORY_MB) -> AskedAgain:
    """Ask the match's agent ``index`` of ``record`` the position it forfeited at again, as Kaggle could call it
    there: in a fresh process, loaded afresh, called with the game's own observations (board, mark, step, its
    bank) from its first call after the last one whose answer the forced opening overrode, up to the forfeit.
    From that call on every answer of its that the game played was its own, as in any Kaggle episode; nothing of
    the overridden calls reaches the agent (the replay does not call it at those plies). The same forfeit at the
    same ply (an error at the same place of the same kind, the same kind of invalid answer, a timeout) is the
    agent's own, whatever the opening; anything else leaves the forfeit to the overridden answers."""
    from connectx_toolkit.evaluation.referees.native import play_native
    from connectx_toolkit.evaluation.seats.agent_process import AgentProcess

    seat = index ^ int(record.swapped)
    ply = len(record.moves)  # a forfeit's move is not played: the call at this ply forfeited
    own = record.opening[seat::2]
    overridden = [call for call, (answer, move) in enumerate(zip(record.forced_answers[seat], own))
                  if type(answer) is int and answer != move]
    start = seat + 2 * (overridden[-1] + 1) if overridden else seat
    players: list[Any] = [_Replayed(None, ply, start), _Replayed(None, ply, start)]
    process = AgentProcess(spec, sandbox=sandbox, memory_mb=memory_mb)
    try:
        process.new_game(record.seed + seat)
        players[seat] = _Replayed(process, ply, start)
        played = play_native(players, dict(record.config), record.act_timeout, record.overage, record.moves[:ply])
        process.end_game()
    finally:
        process.close()
    outcome = outcomes_from(played.statuses, played.rewards)[seat]
    if outcome not in FORFEITS:
        return AskedAgain(False, ply, start, None, None)
    error = played.errors[seat] or invalid_move_text(played.statuses[seat], players[seat].last_action)
    original = record.outcome_of(index)
    same = (outcome == original and len(played.moves) == ply
            and (outcome != Outcome.ERROR or error_site(error) == error_site(record.error_of(index))))
    return AskedAgain(same, ply, start, outcome, error)


class _Replayed:
    """A seat of ``ask_again``'s replay: ``process`` is called from ply ``start`` on (None: never, the other seat);
    before that the seat answers nothing at once (the forced opening plays the game's column anyway). Past the
    asked ply the game is over for the replay: the other seat's next call ends it."""

    def __init__(self, process: Any, ply: int, start: int) -> None:
        self.process, self.ply, self.start = process, ply, start
        self.last_action: Any = None

    def act(self, observation: dict, configuration: dict, deadline_s: float) -> AgentMove:
        step = observation["step"]
        if self.process is None and step > self.ply:
            return AgentMove(None, 0.0, "the replay ends after the position it asked")
        if self.process is None or step < self.start:
            return AgentMove(0, 0.0)
        move = self.process.act(observation, configuration, deadline_s)
        self.last_action = move.action
        return move
