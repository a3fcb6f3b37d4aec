#!/usr/bin/env python3
"""Steps per second of the training environments, and of what they replace, on one core.

    PYTHONPATH=. python bench/training_env_speed.py [--steps 200000] [--kaggle-steps 1000]

- ``ConnectXEnv`` (``connectx_toolkit.training.single_env``): learner steps/s, a step being the learner's move
  and the opponent's reply; the learner plays a uniformly random legal column from ``info["action_mask"]``;
- Kaggle's course wrapper, ``make("connectx").train([None, "random"])``, the same loop;
- the AEC self-play env (``connectx_toolkit.training.self_play``), raw and behind ``env()``'s order check, and
  PettingZoo's ``connect_four_v3`` with the same loop: agent steps/s, both seats random
  (``connect_four_v3`` imports pygame only to draw: a stand-in module is put in its place when pygame is
  missing).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import types


def single_env(steps: int, **kwargs) -> float:
    from connectx_toolkit.training.single_env import ConnectXEnv

    env = ConnectXEnv(**kwargs)
    rng = random.Random(0)
    _, info = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        mask = info["action_mask"]
        _, _, terminated, _, info = env.step(rng.choice([c for c in range(len(mask)) if mask[c]]))
        if terminated:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def kaggle_train(steps: int) -> float:
    from kaggle_environments import make

    trainer = make("connectx", debug=False).train([None, "random"])
    rng = random.Random(0)
    observation = trainer.reset()
    start = time.perf_counter()
    for _ in range(steps):
        legal = [c for c in range(7) if observation.board[c] == 0]
        observation, _, done, _ = trainer.step(rng.choice(legal))
        if done:
            observation = trainer.reset()
    return steps / (time.perf_counter() - start)


def aec(steps: int, env) -> float:
    rng = random.Random(0)
    env.reset(seed=0)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                mask = observation["action_mask"]
                action = rng.choice([c for c in range(len(mask)) if mask[c]])
                done += 1
            env.step(action)
        env.reset()
    return done / (time.perf_counter() - start)


def connect_four_v3():
    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")  # drawing only; the rules need none of it
    from pettingzoo.classic import connect_four_v3 as connect_four

    return connect_four.env()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--kaggle-steps", type=int, default=1000)
    args = parser.parse_args(argv)
    from connectx_toolkit.training import self_play

    rows = [
        ("ConnectXEnv vs random, planes", single_env(args.steps, opponent="random")),
        ("ConnectXEnv vs random, kaggle obs", single_env(args.steps, opponent="random", obs_type="kaggle")),
        ("ConnectXEnv vs random, seat 1", single_env(args.steps, opponent="random", seat=1)),
        ("ConnectXEnv vs greedy", single_env(args.steps // 4, opponent="greedy")),
        ("ConnectXEnv vs random 7x9x5", single_env(args.steps, opponent="random", rows=7, columns=9, inarow=5)),
        ("Kaggle env.train vs random", kaggle_train(args.kaggle_steps)),
        ("self_play.raw_env (agent steps)", aec(args.steps, self_play.raw_env())),
        ("self_play.env (agent steps)", aec(args.steps, self_play.env())),
        ("connect_four_v3.env (agent steps)", aec(args.steps // 4, connect_four_v3())),
    ]
    width = max(len(name) for name, _ in rows)
    for name, rate in rows:
        print(f"{name:<{width}}  {rate:>10,.0f} steps/s")


if __name__ == "__main__":
    main()
