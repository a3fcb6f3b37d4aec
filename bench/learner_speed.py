#!/usr/bin/env python3
"""Speed of the two self-play learners, in learning self-play games per CPU-second, in one run.

    python bench/learner_speed.py [--ntuple-games 100000] [--td-lambda-games 300] [--seed 1]

- ``ntuple``: ``connectx_toolkit.training.ntuple`` (``connectx train --learner ntuple``): whole games in one
  compiled call, each move valuing every legal move with the network and each position's TD(λ)+TCL update; timed
  after a warm-up call that compiles the kernels (numba compiles at first call, about 5 s, once per process);
- ``td_lambda``: ``connectx_toolkit.training.td_lambda_trainer`` (``connectx train``): the same kind of game in the
  PettingZoo self-play env, in Python.

Both start from untrained weights with their default settings, as ``connectx train`` does. The figure is games
over the process's CPU time (``time.process_time``), so another program on the machine slows the wall clock, not
the figure (much); the load average is printed beside it. The issue's target for ntuple: at least GBG's pace,
about 520 games per CPU-second (its log: 750,000 games in 1,439 s, Java). Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def ntuple_rate(games: int, seed: int) -> float:
    from connectx_toolkit.training import ntuple
    from connectx_toolkit.training.ntuple.trainer import play

    state = ntuple.new_state(ntuple.NTupleSettings(seed=seed))
    play(state, 10)  # compiles the kernels
    started = time.process_time()
    play(state, games)
    return games / (time.process_time() - started)


def td_lambda_rate(games: int, seed: int) -> float:
    from connectx_toolkit.training import td_lambda_trainer as trainer

    trainer.train(trainer.TrainingSettings(episodes=2, seed=seed))  # imports and first allocations
    started = time.process_time()
    trainer.train(trainer.TrainingSettings(episodes=games, seed=seed))
    return games / (time.process_time() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ntuple-games", type=int, default=100_000)
    parser.add_argument("--td-lambda-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rates = {"ntuple": (args.ntuple_games, ntuple_rate(args.ntuple_games, args.seed)),
             "td_lambda": (args.td_lambda_games, td_lambda_rate(args.td_lambda_games, args.seed))}
    print(f"learning self-play games per CPU-second (load average {load:.1f} before, {os.getloadavg()[0]:.1f} after; "
          f"{os.cpu_count()} cores)")
    print("| learner | games timed | games / CPU-s |")
    print("|---|---:|---:|")
    for name, (games, rate) in rates.items():
        print(f"| {name} | {games:,} | {rate:,.0f} |")
    print(f"ntuple / td_lambda: {rates['ntuple'][1] / rates['td_lambda'][1]:.1f}x; target for ntuple >= 520 / CPU-s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
