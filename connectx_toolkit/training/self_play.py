"""A PettingZoo AEC environment for two learners playing ConnectX against each other (self-play), Kaggle's rules.

    from connectx_toolkit.training import self_play
    env = self_play.env(rows=6, columns=7, inarow=4)  # raw_env(...) without PettingZoo's order check
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation)  # a column
        env.step(action)

Shaped like ``pettingzoo.classic.connect_four_v3`` so that code written for it runs on this one: agents
``"player_0"`` (moves first, Kaggle's mark 1) and ``"player_1"``; each observation is a dict
``{"observation": Box(0, 1, (rows, columns, 2), int8), "action_mask": Box(0, 1, (columns,), int8)}``, plane 0 the
observing agent's stones and plane 1 its opponent's (row 0 the top row), the mask 1 for each non-full column
for the agent to move and all zeros for the other; actions ``Discrete(columns)``; ``env()`` and ``raw_env``
factories, ``rows``/``columns``/``inarow`` for any board. Rewards: +1 to the winner and -1 to the loser, 0 each
for a draw, 0 mid-game.

Unlike ``connect_four_v3``, an illegal move (a full column, or one out of range) is ruled here as Kaggle rules
it, as a forfeit: the game ends with -1 for the mover and +1 for the other agent. (``connect_four_v3``'s
``TerminateIllegalWrapper`` gives the other agent 0; Kaggle's Environment itself gives the offender None and
the other 0 with status DONE, and its leaderboard counts the forfeit as a loss.) At the end every agent's
``info`` holds what Kaggle's Environment would show: ``status`` (DONE or INVALID), ``kaggle_reward`` (None for
the offender), ``blamed`` (the offender, or None) and ``reason``. ``tests/training/test_differential.py`` plays
random games, illegal moves included, through this and Kaggle's Environment and compares every transition.

Observations are fresh arrays; the board is the core's bitboards (``game.Game``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.played import Status
from connectx_toolkit.training.dependencies import INSTALL, MissingDependency
from connectx_toolkit.training.game import SEAT_LAST, Game

DEFAULT_CONFIG = Config()  # Kaggle's board: the defaults of every signature below

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:
    raise MissingDependency(f"connectx_toolkit.training.self_play needs {(error.name or 'pettingzoo').split('.')[0]}, "
                            f"which is not installed: {INSTALL}", name=error.name) from None

__all__ = ["AGENTS", "env", "raw_env"]

AGENTS = ("player_0", "player_1")
DONE, INVALID = Status.DONE, Status.INVALID


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` behind PettingZoo's ``OrderEnforcingWrapper`` (reset before step, and so on). Illegal
    moves need no wrapper: ``raw_env`` rules them as Kaggle does."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's name for it)
    """Two learners, ConnectX under Kaggle's rules (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "connectx_v0", "is_parallelizable": False,
                "render_fps": 2}

    def __init__(self, rows: int = DEFAULT_CONFIG.rows, columns: int = DEFAULT_CONFIG.columns,
                 inarow: int = DEFAULT_CONFIG.inarow, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = Config(rows, columns, inarow)
        self.render_mode = render_mode
        self.game = Game(self.config, SEAT_LAST)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._action_space = spaces.Discrete(columns)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0, 1, (rows, columns, 2), np.int8),
            "action_mask": spaces.Box(0, 1, (columns,), np.int8),
        })
        self.action_spaces = {agent: self._action_space for agent in AGENTS}
        self.observation_spaces = {agent: self._observation_space for agent in AGENTS}
        self._no_moves = np.zeros(columns, np.int8)
        self._seat = 0
        self.reset()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        planes = self.game.planes
        own = planes.copy() if agent == "player_0" else planes[:, :, ::-1].copy()
        mask = self.game.legal.copy() if agent == self.agent_selection and not self._over else self._no_moves.copy()
        return {"observation": own, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.game.reset()
        self.agents = list(AGENTS)
        self.rewards = {agent: 0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[0]
        self._seat = 0
        self._over = False

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game, seat = self.game, self._seat
        try:
            column = int(action)
        except (TypeError, ValueError):
            self._end(seat, forfeit=f"action {action!r} is not an integer column")
            return
        if not game.can_play(column):
            self._end(seat, forfeit=f"Invalid column: {column}")
            return
        if game.play(seat, column):
            self._end(seat, won=True)
        elif game.is_full():
            self._end(seat)
        else:
            self._seat = seat = 1 - seat
            self.agent_selection = AGENTS[seat]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        return self.game.render(self.render_mode)

    def close(self) -> None:
        pass

    def _end(self, mover: int, won: bool = False, forfeit: str | None = None) -> None:
        """The game is over after ``mover``'s move: a win, a forfeit (why), or else a draw."""
        other = 1 - mover
        rewards = [0, 0]
        statuses = [DONE, DONE]
        kaggle_rewards: list[int | None] = [0, 0]
        if won:
            rewards[mover], rewards[other] = 1, -1
            kaggle_rewards = list(rewards)
        elif forfeit is not None:
            rewards[mover], rewards[other] = -1, 1
            statuses[mover], kaggle_rewards[mover] = INVALID, None
        for seat, agent in enumerate(AGENTS):
            self.rewards[agent] = rewards[seat]
            self.terminations[agent] = True
            self.infos[agent] = {"status": statuses[seat], "kaggle_reward": kaggle_rewards[seat],
                                 "blamed": AGENTS[mover] if forfeit is not None else None, "reason": forfeit}
        self._cumulative_rewards[AGENTS[mover]] = 0
        self._accumulate_rewards()
        self._over = True
        self._seat = other
        self.agent_selection = AGENTS[other]
