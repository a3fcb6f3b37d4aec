#!/usr/bin/env python3
"""Speed of the reinforcement-learning environments, in learner steps per second on one core.

    python bench/training_envs.py [--seconds 3] [--core 0] [--sizes 4096 16384] [--only batched ...]

A learner step is one move of the learner plus the opponent's reply (one ``step`` of a single-agent env,
one board of a batched ``step``); the learner plays a uniformly random legal column, chosen inside the
timed loop (for the batched env, one numpy draw over every board's action mask). Rows:

- ``course``: the wrapper of Kaggle Learn's "Intro to Game AI and Reinforcement Learning" course, rebuilt
  here (:class:`CourseWrapper`): a ``gym.Env`` around ``kaggle_environments.make("connectx").train([None,
  opponent])``, against Kaggle's ``random`` and ``negamax``;
- ``pettingzoo``: PettingZoo's ``connect_four_v3`` AEC env, both seats random; it counts agent steps
  (plies), so its learner-step figure is half of them;
- ``selfplay``: the project's AEC env, ``connectx_toolkit.training.self_play``, in the same loop, behind
  ``env()``'s wrappers (PettingZoo's order checks, as ``connect_four_v3.env()`` has them) and bare (``raw_env``);
- ``single``: ``connectx_toolkit.training.single_env.ConnectXEnv`` against ``random`` and ``greedy``;
- ``batched``: ``connectx_toolkit.training.batched.BatchedConnectX`` against ``random`` and ``greedy`` for
  each N of ``--sizes``, and ``BatchedSelfPlay`` (both seats from the caller; its plies counted as
  pettingzoo's).

Each row runs for ``--seconds`` after a short warm-up. The process is pinned to ``--core`` (Linux's
``sched_setaffinity``) so every figure is one core's; the load average is printed before and after, as
other programs on the machine share that core. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import types
from typing import Callable

import numpy as np

from connectx_toolkit.training.batched import BatchedConnectX, BatchedSelfPlay

ROWS = ("course", "pettingzoo", "selfplay", "single", "batched")


class CourseWrapper:
    """A ``gymnasium.Env``-shaped wrapper as Kaggle Learn's course builds one around Kaggle's trainer:
    observations are the board reshaped to ``(1, rows, columns)``; a move into a full column ends the
    episode with -10; otherwise the trainer plays it and the opponent's reply, and the reward is 1 for a
    win, -1 for any other end of the game, 1/42 for a move that keeps the game going."""

    def __init__(self, opponent: str) -> None:
        import gymnasium
        from kaggle_environments import make

        self.env = make("connectx", debug=False)
        self.trainer = self.env.train([None, opponent])
        config = self.env.configuration
        self.rows, self.columns = config.rows, config.columns
        self.action_space = gymnasium.spaces.Discrete(self.columns)
        self.observation_space = gymnasium.spaces.Box(0, 2, (1, self.rows, self.columns), np.int64)
        self.board: list[int] = []

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict]:
        observation = self.trainer.reset()
        self.board = observation["board"]
        return np.array(self.board).reshape(1, self.rows, self.columns), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.board[action] != 0:
            return np.array(self.board).reshape(1, self.rows, self.columns), -10.0, True, False, {}
        observation, reward, done, _ = self.trainer.step(int(action))
        self.board = observation["board"]
        if reward == 1:
            shaped = 1.0
        elif done:
            shaped = -1.0
        else:
            shaped = 1.0 / (self.rows * self.columns)
        return np.array(self.board).reshape(1, self.rows, self.columns), shaped, bool(done), False, {}


def timed(run: Callable[[float], int], seconds: float) -> float:
    """Steps per second of ``run(deadline)``, which returns the steps it made before ``deadline``."""
    run(time.perf_counter() + min(0.2, seconds / 5))  # warm-up: imports, caches, first allocations
    start = time.perf_counter()
    steps = run(start + seconds)
    return steps / (time.perf_counter() - start)


def course_rate(opponent: str, seconds: float) -> float:
    env = CourseWrapper(opponent)
    rng = np.random.default_rng(0)

    def run(deadline: float) -> int:
        steps = 0
        obs, _ = env.reset()
        while time.perf_counter() < deadline:
            legal = np.flatnonzero(obs[0, 0] == 0)
            obs, _, done, _, _ = env.step(int(rng.choice(legal)))
            steps += 1
            if done:
                obs, _ = env.reset()
        return steps

    return timed(run, seconds)


def connect_four_v3() -> object:
    """PettingZoo's ``connect_four_v3.env()``."""
    try:
        import pygame  # noqa: F401
    except ImportError:  # connect_four imports pygame for its rendering only, which the bench never asks for
        sys.modules["pygame"] = types.ModuleType("pygame")
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def aec_rate(env, seconds: float) -> float:
    """Agent steps (plies) per second of an AEC env shaped like connect_four_v3, both seats random."""
    rng = np.random.default_rng(0)

    def run(deadline: float) -> int:
        steps = 0
        env.reset(seed=int(rng.integers(1 << 30)))
        while time.perf_counter() < deadline:
            for agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    action = None
                else:
                    action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                    steps += 1
                env.step(action)
            env.reset()
        return steps

    return timed(run, seconds)


def single_rate(opponent: str, seconds: float) -> float:
    from connectx_toolkit.training.single_env import ConnectXEnv

    env = ConnectXEnv(opponent=opponent, seat="alternate")
    rng = np.random.default_rng(0)

    def run(deadline: float) -> int:
        steps = 0
        _, info = env.reset(seed=0)
        while time.perf_counter() < deadline:
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps += 1
            if terminated or truncated:
                _, info = env.reset()
        return steps

    return timed(run, seconds)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal column for every board of an ``(n, columns)`` action mask."""
    return np.argmax(np.where(mask, rng.random(mask.shape, dtype=np.float32), np.float32(-1)), axis=1)


def batched_rate(opponent: str, size: int, seconds: float) -> float:
    env = BatchedConnectX(size, opponent)  # type: ignore[arg-type]
    rng = np.random.default_rng(0)

    def run(deadline: float) -> int:
        steps = 0
        _, infos = env.reset(seed=0)
        while time.perf_counter() < deadline:
            _, _, _, _, infos = env.step(random_legal(infos["action_mask"], rng))
            steps += size
        return steps

    return timed(run, seconds)


def self_play_rate(size: int, seconds: float) -> float:
    env = BatchedSelfPlay(size, seed=0)
    rng = np.random.default_rng(0)

    def run(deadline: float) -> int:
        steps = 0
        _, infos = env.reset()
        while time.perf_counter() < deadline:
            _, _, _, _, infos = env.step(random_legal(infos["action_mask"], rng))
            steps += size
        return steps

    return timed(run, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="measuring time per row (default 3)")
    parser.add_argument("--core", type=int, default=0, help="the core to pin this process to (default 0)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 16384], help="N of the batched rows")
    parser.add_argument("--only", choices=ROWS, nargs="+", default=list(ROWS), help="the rows to measure")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or min(args.sizes) < 1:
        print("--seconds and --sizes must be positive", file=sys.stderr)
        return 2
    try:
        os.sched_setaffinity(0, {args.core})
        pinned = f"pinned to core {args.core}"
    except (AttributeError, OSError) as error:  # not Linux, or no such core
        pinned = f"not pinned ({error})"
    print(f"# training environments, learner steps/s, one process {pinned}, {args.seconds:g} s a row")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| env | opponent | N | learner steps/s | note |")
    print("|---|---|---:|---:|---|")

    def row(env: str, opponent: str, size: str, rate: float, note: str = "") -> None:
        print(f"| {env} | {opponent} | {size} | {rate:,.0f} | {note} |", flush=True)

    if "course" in args.only:
        for opponent in ("random", "negamax"):
            row("course wrapper (kaggle_environments train)", opponent, "1", course_rate(opponent, args.seconds))
    if "pettingzoo" in args.only:
        plies = aec_rate(connect_four_v3(), args.seconds)
        row("pettingzoo connect_four_v3", "random (both seats)", "1", plies / 2, f"{plies:,.0f} agent steps/s")
    if "selfplay" in args.only:
        from connectx_toolkit.training import self_play

        for name, env in (("env()", self_play.env()), ("raw_env", self_play.raw_env())):
            plies = aec_rate(env, args.seconds)
            row(f"training.self_play {name}", "random (both seats)", "1", plies / 2, f"{plies:,.0f} agent steps/s")
    if "single" in args.only:
        for opponent in ("random", "greedy"):
            row("training.single_env.ConnectXEnv", opponent, "1", single_rate(opponent, args.seconds))
    if "batched" in args.only:
        for opponent in ("random", "greedy"):
            for size in args.sizes:
                row("training.batched.BatchedConnectX", opponent, str(size), batched_rate(opponent, size, args.seconds))
        for size in args.sizes:
            plies = self_play_rate(size, args.seconds)
            row("training.batched.BatchedSelfPlay", "(caller, both seats)", str(size), plies / 2,
                f"{plies:,.0f} agent steps/s")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
