"""``ConnectXEnv``: a ``gymnasium.Env`` in which one learner plays ConnectX against an opponent, under Kaggle's rules.

    from connectx_toolkit.training.single_env import ConnectXEnv
    env = ConnectXEnv(opponent="random", seat="alternate", obs_type="planes", rows=6, columns=7, inarow=4)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(3)

or ``gymnasium.make("ConnectX-v0", opponent="negamax")`` once this module is imported.

The game: any ``rows`` x ``columns`` board, ``inarow`` stones in a row win; seat 0 moves first with mark 1, as
on Kaggle. ``seat`` is the learner's: 0, 1 or ``"alternate"`` (0 in the first episode after a seeded reset,
then 1, 0, ...). When the learner sits second, ``reset`` plays the opponent's first move. The opponent is any
spec of ``opponents.make_opponent`` ("random", "greedy", "negamax", a module of agents/, a file, a callable
``agent(obs, config)``; ``isolated=True`` runs it in a process of its own); one ``step`` is the learner's move
and the opponent's reply.

Spaces:

- action: ``Discrete(columns)``, the column to drop a stone into (a numpy integer is fine here);
- observation, ``obs_type="planes"``: ``Box(0, 1, (2, rows, columns), int8)``, plane 0 the learner's stones,
  plane 1 the opponent's, row 0 the top row (Kaggle's board reshaped);
  ``obs_type="kaggle"``: ``Box(0, 2, (rows * columns,), int8)``, Kaggle's flat board (0 empty, 1 and 2 the
  marks, row 0 on top); the learner's mark is 1 when an even number of stones is down, else 2 (and
  ``info["mark"]``);
- ``info["action_mask"]``: int8 of length ``columns``, 1 for each non-full column, on reset and every step.

Rewards, as Kaggle scores a game: +1 a win, -1 a loss, 0 a draw and 0 mid-game. A move into a full column (or
out of range) ends the episode as a loss, as Kaggle's INVALID does; an opponent's INVALID, ERROR (it raised)
or TIMEOUT (isolated, past ``actTimeout`` + its 60 s bank) ends it as a win. Kaggle's own Environment gives the
offender of such a forfeit the reward None and the other seat 0 with status DONE (its leaderboard counts the
forfeit as a loss); the terminal ``info`` holds what Kaggle's Environment would show: ``statuses`` (per seat:
DONE, INVALID, ERROR, TIMEOUT), ``kaggle_rewards`` (per seat, None for the offender), ``blamed`` (the
offender's seat, or None), ``reason`` (why, for a forfeit) and ``seat``/``mark`` (the learner's).
``tests/training/test_differential.py`` plays thousands of random games, illegal moves included, through this
and Kaggle's Environment and compares every transition. An opponent that forfeits its first move while
``reset`` plays it (the learner sitting second): the episode is already won, and the next ``step`` ends it
with +1 without playing the learner's action (``info["reason"]`` says so).

Observations and masks are fresh arrays (a replay buffer may keep them); the board lives in the core's
bitboards (``game.Game``): 62,000 learner steps/s against the random opponent on one core here, 166 times the
course's wrapper around Kaggle's ``env.train`` (``bench/training_envs.py``, docs/training.md).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.bank import DEFAULT_ACT_TIMEOUT
from connectx_toolkit.evaluation.referees.played import Status
from connectx_toolkit.training.dependencies import MissingDependency, INSTALL
from connectx_toolkit.training.game import SEAT_FIRST, Game
from connectx_toolkit.training.opponents import Forfeit, Opponent, judge, make_opponent

DEFAULT_CONFIG = Config()  # Kaggle's board: the defaults of every signature below

try:
    import gymnasium
    from gymnasium import spaces
except ImportError:
    raise MissingDependency(f"connectx_toolkit.training.single_env needs gymnasium, which is not installed: {INSTALL}",
                            name="gymnasium") from None

__all__ = ["ConnectXEnv", "ENV_ID"]

ENV_ID = "ConnectX-v0"
ALTERNATE = "alternate"
OBS_TYPES = ("planes", "kaggle")
DONE, INVALID = Status.DONE, Status.INVALID


class ConnectXEnv(gymnasium.Env):
    """One learner against an opponent (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, opponent: "str | Callable[..., Any] | Opponent" = "random", seat: "int | str" = 0,
                 obs_type: str = "planes", rows: int = DEFAULT_CONFIG.rows, columns: int = DEFAULT_CONFIG.columns,
                 inarow: int = DEFAULT_CONFIG.inarow,
                 isolated: bool = False, act_timeout: float = DEFAULT_ACT_TIMEOUT,
                 render_mode: str | None = None) -> None:
        if seat not in (0, 1, ALTERNATE):
            raise ValueError(f"seat must be 0, 1 or {ALTERNATE!r}, got {seat!r}")
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type must be one of {OBS_TYPES}, got {obs_type!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.config = Config(rows, columns, inarow)
        self.seat_rule = seat
        self.obs_type = obs_type
        self.render_mode = render_mode
        self.game = Game(self.config, SEAT_FIRST)
        self.opponent = make_opponent(opponent, self.config, isolated=isolated, act_timeout=act_timeout)
        self.action_space = spaces.Discrete(columns)
        if obs_type == "planes":
            self.observation_space = spaces.Box(0, 1, (2, rows, columns), np.int8)
        else:
            self.observation_space = spaces.Box(0, 2, (rows * columns,), np.int8)
        self.seat = 0 if seat == ALTERNATE else int(seat)
        self._episodes = 0
        self._done = True
        self._pending: dict[str, Any] | None = None  # the terminal info of an opponent's forfeit during reset

    # -- the gymnasium API -----------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self._episodes = 0  # a seeded reset starts the alternation again, so it is reproducible
        if self.seat_rule == ALTERNATE:
            self.seat = self._episodes % 2
        self._episodes += 1
        self.game.reset()
        self.opponent.reset(int(self.np_random.integers(2**63 - 1)))
        self._done = False
        self._pending = None
        if self.seat == 1:
            self._pending = self._opponent_moves()
        info = {"action_mask": self.game.legal.copy(), "seat": self.seat, "mark": self.seat + 1}
        if self._pending is not None:
            info["reason"] = self._pending["reason"]
        if self.render_mode == "human":
            self.render()
        return self._observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("the episode is over: call reset() first")
        game, seat = self.game, self.seat
        if self._pending is not None:  # the opponent forfeited its first move, in reset
            return self._end(1.0, self._pending)
        try:
            column = operator.index(action)
        except TypeError:
            return self._end(-1.0, self._forfeit(seat, INVALID, f"action {action!r} is not an integer column"))
        if not game.can_play(column):
            return self._end(-1.0, self._forfeit(seat, INVALID, f"Invalid column: {column}"))
        if game.play(seat, column):
            return self._end(1.0, self._finished(seat))
        if game.is_full():
            return self._end(0.0, self._finished(None))
        ended = self._opponent_moves()
        if ended is not None:
            return self._end(ended["reward"], ended)
        if self.render_mode == "human":
            self.render()
        return self._observation(), 0.0, False, False, {"action_mask": game.legal.copy()}

    def render(self) -> str | None:
        return self.game.render(self.render_mode)

    def close(self) -> None:
        self.opponent.close()

    # -- internals --------------------------------------------------------------------------------------

    def _observation(self) -> np.ndarray:
        game = self.game
        if self.obs_type == "kaggle":
            return game.marks.copy()
        return game.planes.copy() if self.seat == 0 else game.planes[::-1].copy()

    def _opponent_moves(self) -> dict[str, Any] | None:
        """The opponent's reply; the terminal info (with the learner's ``reward``) if it ends the game."""
        game, seat = self.game, 1 - self.seat
        try:
            action = self.opponent.act(game.stones[seat], game.mask, game.moves, game.board, seat + 1)
            column = judge(action, game.mask, game.top_masks)
        except Forfeit as forfeit:
            info = self._forfeit(seat, forfeit.status, forfeit.reason)
            info["reward"] = 1.0
            return info
        if game.play(seat, column):
            info = self._finished(seat)
            info["reward"] = -1.0
            return info
        if game.is_full():
            info = self._finished(None)
            info["reward"] = 0.0
            return info
        return None

    def _finished(self, winner: int | None) -> dict[str, Any]:
        rewards = (0, 0) if winner is None else (1, -1) if winner == 0 else (-1, 1)
        return {"statuses": (DONE, DONE), "kaggle_rewards": rewards, "blamed": None, "reason": None,
                "winner": winner}

    def _forfeit(self, offender: int, status: str, reason: str) -> dict[str, Any]:
        statuses = (status, DONE) if offender == 0 else (DONE, status)
        rewards = (None, 0) if offender == 0 else (0, None)
        return {"statuses": statuses, "kaggle_rewards": rewards, "blamed": offender, "reason": reason,
                "winner": 1 - offender}

    def _end(self, reward: float, info: dict[str, Any]) -> tuple[np.ndarray, float, bool, bool, dict]:
        self._done = True
        info.pop("reward", None)
        info["action_mask"] = self.game.legal.copy()
        info["seat"], info["mark"] = self.seat, self.seat + 1
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, True, False, info


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="connectx_toolkit.training.single_env:ConnectXEnv")
