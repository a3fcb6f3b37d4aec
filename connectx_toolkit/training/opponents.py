"""Opponents for the training environments: an opponent spec as something an environment calls for a move.

``make_opponent(spec, config, isolated=False)`` takes what the evaluator takes (``evaluation.seats.agent_specs``
resolves it, the same rules and the same one-line errors):

- ``"random"``: Kaggle's random agent, a uniformly random non-full column, drawn from the opponent's own
  ``random.Random`` (seeded by the environment each episode; the same draw as Kaggle's ``choice`` over the
  non-full columns left to right), played on the bitboard without building an observation;
- ``"greedy"``: ``agents/greedy.py``'s rule on the bitboard, its ties broken by the opponent's own seeded
  ``random.Random``;
- ``"negamax"``: Kaggle's built-in, called as Kaggle calls it, its tie-breaks drawn from the opponent's own
  seeded ``random.Random`` (a copy of the function whose ``choice`` is that generator's);
- any other module of agents/ (``"solver"``, ``"minimax:agent"``), a dotted module of the project, a file, a
  folder or a callable ``agent(obs, config)``: called in this process with a Kaggle-shaped observation (``board``,
  ``mark``, ``step``, ``remainingOverageTime``) and configuration (``rows``, ``columns``, ``inarow``,
  ``actTimeout``, ``timeout``, ``episodeSteps``, ...), each a fresh ``Struct`` per call as Kaggle gives them.
  A module or file is loaded once (a fresh module object, or Kaggle's loader on the file) when the opponent is
  made; a stateful agent keeps its state across episodes, as one that keys its setup on ``obs.step`` expects.
  Their own randomness is theirs (the global ``random``, numpy's) and is not seeded here;
- with ``isolated=True`` (for a file one does not trust): the agent runs in a process of its own
  (``evaluation.seats.agent_process.AgentProcess``, as the evaluator runs a seat), loaded afresh each episode,
  its global ``random`` and numpy seeded from the episode's seed, on Kaggle's clock (``actTimeout`` a move plus
  the 60 s overage bank of the episode: a move past the bank is TIMEOUT).

An opponent's answer is judged as Kaggle judges it (``evaluation.referees.native.checked_action``): a plain
``int`` is a column (``None`` is column 0); a bool, a numpy integer, a string, a float or a column out of
range or full is INVALID; an exception is ERROR; a move past the deadline is TIMEOUT. The environment ends the
episode on any of these, the learner winning it (see ``single_env``); ``Forfeit`` carries the status and
why.
"""

from __future__ import annotations

import random
import types
from typing import Any, Callable

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.position import geometry
from connectx_toolkit.evaluation.referees.bank import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, Bank
from connectx_toolkit.evaluation.referees.native import checked_action
from connectx_toolkit.evaluation.referees.played import Status, kaggle_configuration
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
from connectx_toolkit.evaluation.seats.observation import structify

__all__ = ["AgentSpecError", "Forfeit", "Opponent", "make_opponent", "judge"]


class Forfeit(Exception):
    """An opponent's move that ends the game against it: ``status`` is Kaggle's (INVALID, ERROR, TIMEOUT)."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def judge(action: Any, mask: int, top_masks: list[int]) -> int:
    """The column Kaggle plays for ``action`` on a board whose stones are ``mask``; raises ``Forfeit(INVALID)``
    for an action Kaggle's schema rejects or an "Invalid column" (out of range or full)."""
    if type(action) is not int:
        column = checked_action(action)
        if type(column) is not int:
            raise Forfeit(Status.INVALID, f"action {action!r} ({type(action).__name__}) is not a plain int column")
        action = column
    if action < 0 or action >= len(top_masks) or mask & top_masks[action]:
        raise Forfeit(Status.INVALID, f"Invalid column: {action}")
    return action


class Opponent:
    """The seat the environment plays. ``act`` gets the position from the opponent's side (``current`` its own
    stones, ``mask`` all stones, ``moves`` the stones so far), Kaggle's flat ``board`` (row 0 on top; read it,
    do not keep it) and the opponent's ``mark``; it returns the action as the agent gave it (the environment
    judges it with ``judge``) or raises ``Forfeit`` for an ERROR or a TIMEOUT."""

    name = "opponent"

    def __init__(self, config: Config) -> None:
        self.config = config

    def reset(self, seed: int) -> None:
        """A new episode, seeded from the environment's generator."""

    def act(self, current: int, mask: int, moves: int, board: list[int], mark: int) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        """Stop whatever the opponent runs (its process)."""


class RandomOpponent(Opponent):
    """Kaggle's random agent: ``choice`` over the non-full columns, left to right, from an own generator."""

    name = "random"

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.rng = random.Random(0)
        self._tops = geometry(config).top_masks
        self._columns = range(config.columns)

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)

    def act(self, current: int, mask: int, moves: int, board: list[int], mark: int) -> Any:
        tops = self._tops
        return self.rng.choice([c for c in self._columns if not mask & tops[c]])


class GreedyOpponent(Opponent):
    """``agents/greedy.py``'s rule (win, else block, else the most central column) with seeded tie-breaks."""

    name = "greedy"

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        from connectx_toolkit.agents.greedy import choose

        self.choose = choose
        self.rng = random.Random(0)

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)

    def act(self, current: int, mask: int, moves: int, board: list[int], mark: int) -> Any:
        return self.choose(Position(self.config, current, mask, moves), self.rng)


class CalledOpponent(Opponent):
    """An agent ``f(obs, config)`` called in this process as Kaggle calls it (with as many of the two
    arguments as its ``__code__`` takes), with fresh ``Struct`` copies of the observation and configuration;
    an exception it raises is ERROR."""

    def __init__(self, config: Config, agent: Callable[..., Any], name: str,
                 act_timeout: float = DEFAULT_ACT_TIMEOUT) -> None:
        super().__init__(config)
        self.agent = agent
        self.name = name
        self.configuration = kaggle_configuration(config.as_dict(), act_timeout)
        self._count = getattr(getattr(agent, "__code__", None), "co_argcount", 2)

    def act(self, current: int, mask: int, moves: int, board: list[int], mark: int) -> Any:
        observation = {"remainingOverageTime": DEFAULT_OVERAGE, "step": moves, "board": board, "mark": mark}
        arguments = (structify(observation), structify(self.configuration))
        try:
            return self.agent(*arguments[:self._count])
        except Exception as error:
            raise Forfeit(Status.ERROR, f"{type(error).__name__}: {error}") from error


class SeededNegamax(CalledOpponent):
    """Kaggle's negamax, its ``choice`` (module-global in Kaggle's file) bound to an own seeded generator."""

    def __init__(self, config: Config, act_timeout: float = DEFAULT_ACT_TIMEOUT) -> None:
        from kaggle_environments.envs.connectx.connectx import negamax_agent

        self.rng = random.Random(0)
        names = dict(negamax_agent.__globals__, choice=self.rng.choice)
        seeded = types.FunctionType(negamax_agent.__code__, names, negamax_agent.__name__)
        super().__init__(config, seeded, "negamax", act_timeout)

    def reset(self, seed: int) -> None:
        self.rng.seed(seed)


class IsolatedOpponent(Opponent):
    """The agent in a process of its own, on Kaggle's clock; loaded afresh each episode."""

    def __init__(self, config: Config, spec: Any, act_timeout: float = DEFAULT_ACT_TIMEOUT,
                 overage: float = DEFAULT_OVERAGE) -> None:
        super().__init__(config)
        from connectx_toolkit.evaluation.seats.agent_process import AgentProcess

        self.name = spec.name
        self.process = AgentProcess(spec)
        self.configuration = kaggle_configuration(config.as_dict(), act_timeout)
        self.act_timeout, self.overage = act_timeout, overage
        self.bank = Bank(act_timeout, overage)
        self.process.new_game(0)

    def reset(self, seed: int) -> None:
        self.process.new_game(seed % 2**32)
        self.bank = Bank(self.act_timeout, self.overage)

    def act(self, current: int, mask: int, moves: int, board: list[int], mark: int) -> Any:
        observation = {"remainingOverageTime": self.bank.left, "step": moves, "board": list(board), "mark": mark}
        move = self.process.act(observation, self.configuration, self.bank.deadline)
        if move.timed_out or self.bank.times_out(move.seconds):
            raise Forfeit(Status.TIMEOUT, f"no answer within {self.bank.deadline:.1f} s (actTimeout + the bank)")
        self.bank.charge(move.seconds)
        if move.error is not None:
            raise Forfeit(Status.ERROR, move.error)
        return move.action

    def close(self) -> None:
        self.process.close()


def make_opponent(spec: Any, config: Config | None = None, isolated: bool = False,
                  act_timeout: float = DEFAULT_ACT_TIMEOUT) -> Opponent:
    """An ``Opponent`` for ``spec`` (see the module docstring); an ``Opponent`` is returned as it is.

    Raises ``AgentSpecError`` (one line) for a spec that names nothing usable."""
    config = config or Config()
    if isinstance(spec, Opponent):
        return spec
    if isolated:
        return IsolatedOpponent(config, resolve_agent(spec), act_timeout)
    if callable(spec) and not isinstance(spec, str):
        name = getattr(spec, "__qualname__", None) or type(spec).__name__
        return CalledOpponent(config, spec, name, act_timeout)
    if spec == "random":
        return RandomOpponent(config)
    if spec == "greedy":
        return GreedyOpponent(config)
    if spec == "negamax":
        return SeededNegamax(config, act_timeout)
    resolved = resolve_agent(spec)
    return CalledOpponent(config, resolved.load(), resolved.name, act_timeout)
