"""One game on Kaggle's own ``Environment`` (kaggle-environments), each seat a ``Player``.

The loop is ``Environment.run``'s own (Kaggle's ``Agent.act`` for the active seat, then ``env.step``),
written out so that we can (1) play an opening first (each seat is called at its opening plies through
Kaggle's ``Agent.act``, so timed and charged to its bank, an error or timeout there Kaggle's own forfeit;
the opening's column is stepped instead of its answer: see ``referees.native``), (2) start with the overage
bank we were asked for, (3) survive an action that crashes the referee itself (a float: ``board[3.0]``
raises TypeError inside the interpreter) by re-submitting it as the non-integer it is, which Kaggle's
schema check then records as INVALID. Kaggle's ``Agent`` times each call of a small proxy callable that
asks the seat's ``Player`` for the move (with the hard deadline act timeout + bank) and hands Kaggle the
action with its type as returned; an agent's error is raised there, so Kaggle records ERROR itself, and
a move killed at its deadline comes back after the deadline, so Kaggle's own rule records TIMEOUT.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from connectx_toolkit.evaluation.referees.played import GameSetup, Played, Player, Status, referee


class AgentFailed(Exception):
    """Raised inside Kaggle's ``Agent.act`` for an agent that raised in its own process."""


@referee  # called as play_kaggle(players, shape, act_timeout, overage, opening, episode_steps)
def play_kaggle(players: Sequence[Player], setup: GameSetup) -> Played:
    """Play one game between ``players`` on Kaggle's ``Environment`` (see ``referees.native.play_native``)."""
    from kaggle_environments import make
    from kaggle_environments.agent import Agent

    overage, opening = setup.overage, setup.opening
    configuration = setup.configuration()
    timeout = configuration.pop("timeout")
    for obsolete in ("runTimeout", "agentTimeout"):
        configuration.pop(obsolete)
    env = make("connectx", configuration=configuration, debug=False)
    env.configuration.timeout = timeout  # after make: the schema wants an int, Kaggle's rule wants actTimeout
    for state in env.state:
        state.observation.remainingOverageTime = overage
    moves: list[int] = []
    errors: list[str | None] = [None, None]
    none_plies: list[list[int]] = [[], []]
    forced = [True]  # the proxies' switch: an answer at a forced ply is not played, so it is no None played
    agents = [Agent(_proxy(player, seat, errors, none_plies, moves, forced), env) for seat, player in enumerate(players)]
    times: list[list[float]] = [[], []]
    forced_answers: list[list[int | None]] = [[], []]
    note = ""
    for column in opening:  # each seat called at its opening plies as Kaggle would, the opening's column played
        seat = _active_seat(env)
        actions: list[Any] = [None, None]
        logs: list[dict[str, Any]] = [{}, {}]
        answer, logs[seat] = agents[seat].act(_observation(env, seat))
        times[seat].append(float(logs[seat]["duration"]))
        if isinstance(answer, BaseException):  # ERROR or TIMEOUT, which Kaggle's own step records
            actions[seat] = answer
            env.step(actions, logs)
            break
        forced_answers[seat].append(answer if type(answer) is int else None)
        actions[seat] = int(column)
        env.step(actions, logs)
        if env.state[seat].status not in (Status.ACTIVE, Status.INACTIVE, Status.DONE):
            raise ValueError(f"opening {list(opening)} ends the game")
        moves.append(int(column))
        if env.done:
            raise ValueError(f"opening {list(opening)} ends the game")
    forced[0] = False

    while not env.done:
        seat = _active_seat(env)
        actions, logs = [None, None], [{}, {}]
        actions[seat], logs[seat] = agents[seat].act(_observation(env, seat))
        if "duration" in logs[seat]:
            times[seat].append(float(logs[seat]["duration"]))
        try:
            env.step(actions, logs)
        except Exception as error:  # the action broke the referee itself: it is that agent's invalid move
            note = f"seat {seat} action {actions[seat]!r} crashed the referee: {type(error).__name__}: {error}"
            actions[seat] = f"not an integer: {actions[seat]!r}"
            env.step(actions, logs)
        if env.state[seat].status in (Status.ACTIVE, Status.INACTIVE, Status.DONE):
            moves.append(env.steps[-1][seat].action)  # pyright: ignore[reportAttributeAccessIssue]  a Struct (attribute access), typed as a dict by kaggle_environments
    return Played(steps=env.steps, statuses=[Status(s.status) for s in env.state], rewards=[s.reward for s in env.state],
                  moves=moves, move_times=times, none_plies=none_plies, errors=errors, note=note,
                  forced_answers=forced_answers)


def _observation(env: Any, seat: int) -> Any:
    """The observation Kaggle's runner gives the agent in ``seat``: its private shared state's."""
    return env._Environment__get_shared_state(seat).observation


def _proxy(player: Player, seat: int, errors: list[str | None], none_plies: list[list[int]],
           moves: list[int], forced: list[bool]) -> Callable[[Any, Any], Any]:
    """The callable Kaggle's ``Agent`` times for one seat."""

    def agent(observation, configuration):
        bank = float(observation.get("remainingOverageTime", 0) or 0)
        move = player.act(dict(observation), dict(configuration), float(configuration["actTimeout"]) + bank)
        if move.timed_out:  # killed at the deadline (past it, Kaggle's own check agrees)
            from kaggle_environments.errors import DeadlineExceeded

            return DeadlineExceeded()
        if move.error is not None:
            errors[seat] = move.error
            raise AgentFailed(move.error)
        if move.action is None and not forced[0]:
            none_plies[seat].append(len(moves))
        return move.action

    return agent


def _active_seat(env: Any) -> int:
    return 0 if env.state[0].status == Status.ACTIVE else 1
