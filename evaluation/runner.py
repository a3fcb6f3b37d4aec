"""One game on Kaggle's own referee, in the calling process.

The loop is ``Environment.run``'s own loop (Kaggle's ``Agent.act`` for each active seat, then
``env.step``), written out so that we can (1) force both seats through an opening first, (2) start with
the overage bank we were asked for, (3) survive an action that crashes the referee itself (a float:
``board[3.0]`` raises TypeError inside the interpreter) by re-submitting it as the non-integer it is,
which Kaggle's schema check then records as INVALID, and (4) tell a monitor when each move starts and
what its hard deadline is, so that a parent process can kill a hung game (see ``evaluation.pool``).

Final statuses in kaggle-environments 1.33.2: "DONE", "INVALID", "ERROR", "TIMEOUT". The ConnectX
interpreter writes "Invalid column: N" for a bad column, but the environment replaces any status outside
its schema's enum by "INVALID"; a schema-rejected action (numpy integer, string) is "INVALID" directly;
an exception raised by the agent is "ERROR"; a move slower than act timeout + remaining overage is
"TIMEOUT". The offender's reward is None and the other seat's is 0: we score that as a win for the other.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Protocol

from evaluation.agent_specs import AgentSpec
from evaluation.record import LOG_LINES, GameRecord, GameTask

FORFEIT_STATUSES = {"INVALID": "invalid", "ERROR": "error", "TIMEOUT": "timeout"}

__all__ = ["GameRecord", "Monitor", "play_game", "play_task"]


class Monitor(Protocol):
    """Told when a seat starts thinking and by when it must be done (``time.monotonic()`` seconds)."""

    def start(self, seat: int, deadline: float) -> None: ...

    def stop(self) -> None: ...


def play_game(
    spec_a: AgentSpec,
    spec_b: AgentSpec,
    opening: list[int] | tuple[int, ...] = (),
    config: dict[str, int] | None = None,
    act_timeout: float = 2.0,
    overage: float = 60.0,
    seed: int = 0,
    *,
    game_id: int = 0,
    swapped: bool = False,
    monitor: Monitor | None = None,
) -> GameRecord:
    """Play ``spec_a`` (seat 0, mark 1, moves first) against ``spec_b`` from ``opening`` (0-based columns).

    ``config`` holds rows/columns/inarow (Kaggle's defaults when missing). ``act_timeout`` and
    ``overage`` go into Kaggle's configuration and overage bank, so Kaggle's own TIMEOUT rule applies.
    ``seed`` seeds ``random`` and ``numpy.random`` (built-ins and most agents draw from them). No
    isolation: a hung agent hangs this call; use ``evaluation.pool`` for that.
    """
    from kaggle_environments import make
    from kaggle_environments.agent import Agent

    _seed_everything(seed)
    shape = {"rows": 6, "columns": 7, "inarow": 4, **(config or {})}
    env = make("connectx", configuration={**shape, "actTimeout": act_timeout}, debug=False)
    env.reset(2)
    for state in env.state:
        state.observation.remainingOverageTime = overage
    moves: list[int] = []
    for column in opening:
        seat = _active_seat(env)
        actions: list[Any] = [None, None]
        actions[seat] = int(column)
        env.step(actions, [{}, {}])
        moves.append(int(column))
        if env.done:
            raise ValueError(f"opening {list(opening)} ends the game")

    specs = (spec_a, spec_b)
    agents = [Agent(_seat_agent(spec, seat, act_timeout, monitor), env) for seat, spec in enumerate(specs)]
    times: list[list[float]] = [[], []]
    errors: list[str | None] = [None, None]
    printed: list[list[str]] = [[], []]
    note = ""
    while not env.done:
        seat = _active_seat(env)
        actions, logs = [None, None], [{}, {}]
        actions[seat], logs[seat] = agents[seat].act(env._Environment__get_shared_state(seat).observation)
        if "duration" in logs[seat]:
            times[seat].append(float(logs[seat]["duration"]))
        errors[seat] = describe_action(actions[seat]) or errors[seat]
        printed[seat] = (printed[seat] + agent_lines(logs[seat], raised=errors[seat] is not None))[-LOG_LINES:]
        try:
            env.step(actions, logs)
        except Exception as error:  # the action broke the referee itself: it is that agent's invalid move
            note = f"seat {seat} action {actions[seat]!r} crashed the referee: {type(error).__name__}: {error}"
            actions[seat] = f"not an integer: {actions[seat]!r}"
            env.step(actions, logs)
        if env.state[seat].status in ("ACTIVE", "INACTIVE", "DONE") and isinstance(actions[seat], int):
            moves.append(actions[seat])
        if env.state[seat].status == "INVALID" and errors[seat] is None:
            errors[seat] = f"invalid move: returned {actions[seat]!r} ({type(actions[seat]).__name__})"

    statuses = [state.status for state in env.state]
    return GameRecord(
        game_id=game_id,
        agents=[spec.name for spec in specs],
        opening=[int(c) for c in opening],
        moves=moves,
        statuses=statuses,
        outcomes=outcomes_from(statuses, [state.reward for state in env.state]),
        move_times=times,
        config={k: shape[k] for k in ("rows", "columns", "inarow")},
        seed=seed,
        swapped=swapped,
        note=note,
        steps=env.steps,
        error=[errors[s] if statuses[s] in FORFEIT_STATUSES else None for s in (0, 1)],
        logs=printed,
    )


def play_task(task: GameTask, monitor: Monitor | None = None) -> GameRecord:
    """Play a scheduled ``GameTask`` (seats as the task says)."""
    first, second = task.seats
    return play_game(
        first, second, task.opening, dict(task.config), task.act_timeout, task.overage, task.seed,
        game_id=task.game_id, swapped=task.swapped, monitor=monitor,
    )


def outcomes_from(statuses: list[str], rewards: list[Any]) -> list[str]:
    """Per-seat outcome from Kaggle's final statuses and rewards (a forfeit is the other seat's win)."""
    outcomes = []
    for seat in (0, 1):
        own, other = statuses[seat], statuses[1 - seat]
        if own in FORFEIT_STATUSES:
            outcomes.append(FORFEIT_STATUSES[own])
        elif other in FORFEIT_STATUSES:
            outcomes.append("win")
        else:
            reward = rewards[seat] or 0
            outcomes.append("win" if reward > 0 else "loss" if reward < 0 else "draw")
    return outcomes


def agent_lines(log: dict[str, Any], raised: bool = False) -> list[str]:
    """The lines a seat printed during one move (Kaggle's ``Agent.act`` captures stdout and stderr); when the
    move raised, without the traceback ``Agent.act`` printed after them (the record's error tells it)."""
    stderr = str(log.get("stderr") or "")
    if raised and "Traceback (most recent call last):" in stderr:
        stderr = stderr[:stderr.rindex("Traceback (most recent call last):")]
    return [line for text in (str(log.get("stdout") or ""), stderr) for line in text.splitlines() if line.strip()]


def describe_action(action: Any) -> str | None:
    """One line for an exception the agent raised (``Agent.act`` returns it as the action), else None."""
    from kaggle_environments.errors import DeadlineExceeded

    from building import format_agent_error

    if isinstance(action, BaseException) and not isinstance(action, DeadlineExceeded):
        return format_agent_error(action)
    return None


def _active_seat(env: Any) -> int:
    return 0 if env.state[0].status == "ACTIVE" else 1


def _seat_agent(spec: AgentSpec, seat: int, act_timeout: float, monitor: Monitor | None) -> Callable:
    """The callable Kaggle's ``Agent`` drives for one seat.

    The agent is loaded on its first move, inside the monitored (and timed) section, as Kaggle's own
    loader does for a file: a module that hangs or dies while loading forfeits like any other move.
    Arguments are cut to the agent's own argument count, as ``Agent.act`` does.
    """
    inner: Callable[..., Any] | None = None

    def agent(observation, configuration):
        nonlocal inner
        if monitor is not None:
            bank = float(observation.get("remainingOverageTime", 0) or 0)
            monitor.start(seat, time.monotonic() + act_timeout + bank)
        try:
            if inner is None:
                inner = spec.load()
            count = getattr(getattr(inner, "__code__", None), "co_argcount", 2)
            return inner(*(observation, configuration)[:count])
        finally:
            if monitor is not None:
                monitor.stop()

    return agent


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed % 2**32)
    except ImportError:  # numpy is a requirement, but seeding it is only a courtesy
        pass
