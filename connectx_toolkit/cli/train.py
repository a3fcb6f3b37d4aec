#!/usr/bin/env python3
"""Train a TD(λ) agent by self-play and write it as an agent folder of your own, ready to evaluate and build.

    connectx train --episodes 20000 --seed 1 --out my_td_bot          # a few CPU minutes
    connectx train --untrained --out my_td_bot_untrained              # the same agent before training
    connectx build my_td_bot -o submission.py                         # one file: the code and the weights
    connectx gate submission.py --baseline random

OUT gets ``main.py`` (the agent: the project's ``td_lambda`` move choice with these weights, read once at load
with ``load_resource``) and ``data/td_lambda_weights.json`` (the weights, ``agents.td_lambda.weights_document``).
The training is ``connectx_toolkit.training.td_lambda_trainer``: self-play in the self-play env, the same seed
giving the same weights. ``--evaluate GAMES`` then plays a quick check on the project's game core. Exit 0 on
success, 2 on bad input (one line).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import IO, Sequence

from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.cli.options import RULES, integer
from connectx_toolkit.errors import UsageError
from connectx_toolkit.training.agent_folder import why_not_writable

PROGRAM = "connectx-train"
DEFAULT_EPISODES = 20000  # the shipped td_lambda weights' count: 83 s of one core here (docs/training.md)
WEIGHTS_NAME = "td_lambda_weights.json"
MARKER = "# Written by connectx-train"  # the first line of every main.py it writes: only those it replaces

MAIN_PY = '''{marker}: {what}.
"""A TD(λ) ConnectX agent: the project's td_lambda move choice (a tactical filter, then the highest learned
afterstate value) with the weights in data/{weights}, trained by self-play ({how}).

Evaluate it with `connectx match <this folder> random`; build it into one submission (this code, the
project's agents code it imports and the weights, embedded) with `connectx build <this folder>`.
"""

from agents.core.resources import load_resource
from agents.td_lambda import play, read_weights

WEIGHTS = read_weights(load_resource("{weights}"))  # decoded once, at load; every move reuses it


def agent(obs, config):
    return play(obs, config, WEIGHTS)
'''


HELP = "train a TD(lambda) agent by self-play and write it as an agent folder"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="the agent folder to write (main.py, data/)")
    p.add_argument("--episodes", type=integer, default=None,
                   help=f"self-play games to train on (default {DEFAULT_EPISODES})")
    p.add_argument("--seed", type=int, default=1, help="training seed: the same seed gives the same weights (default 1)")
    p.add_argument("--untrained", action="store_true",
                   help="write the agent with the weights training starts from (no training)")
    p.add_argument("--evaluate", type=integer, default=0, metavar="GAMES",
                   help="afterwards, GAMES quick games on the project's core against random and the untrained agent, "
                        "and (6x7, four in a row) its accuracy against perfect play on the shipped benchmark")
    RULES.add_to(p, "rows", "columns", "inarow")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def check_out(out: str) -> None:
    """OUT may be new, empty, or a folder this command wrote: never someone's own main.py."""
    problem = why_not_writable(out, MARKER, PROGRAM)
    if problem:
        raise UsageError(f"--out {out}: {problem}")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise UsageError(f"--out {out}: folder {parent} does not exist")


def main(argv: Sequence[str] | None = None) -> int:
    """``connectx-train``: the old form of ``connectx train``, the same command."""
    from connectx_toolkit.cli.main import execute

    return execute("train", argv, program=PROGRAM)


def run(args: argparse.Namespace, out: IO[str] | None = None) -> int:
    """Train (or not, ``--untrained``), write OUT's ``main.py`` and weights, report on ``out``; 0, or
    ``UsageError`` for bad input."""
    out = out or sys.stdout
    from connectx_toolkit.agents.core import Config
    from connectx_toolkit.agents.td_lambda import features_for, weights_document
    from connectx_toolkit.training import td_lambda_trainer as trainer

    if args.untrained and args.episodes:
        raise UsageError("--untrained writes the weights training starts from: it takes no --episodes")
    episodes = 0 if args.untrained else DEFAULT_EPISODES if args.episodes is None else args.episodes
    if episodes < 0:
        raise UsageError("--episodes must be at least 0")
    if args.evaluate < 0:
        raise UsageError("--evaluate must be at least 0")
    try:
        config = Config(args.rows, args.columns, args.inarow)
    except ValueError as error:
        raise UsageError(str(error)) from None
    check_out(args.out)
    settings = trainer.TrainingSettings(episodes=episodes, seed=args.seed, config=config)
    features = features_for(config)

    bar = None
    if episodes and not args.quiet:
        from tqdm import tqdm

        bar = tqdm(total=episodes, unit="episode", file=sys.stderr)
    def tick(done: int, weights: object) -> None:
        if bar is not None:
            bar.update(1)

    started = time.perf_counter()
    try:
        weights = trainer.train(settings, after_episode=tick)
    except ValueError as error:  # a board the env cannot play
        raise UsageError(str(error)) from None
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - started

    board = f"{config.rows}x{config.columns}, {config.inarow} in a row"
    what = f"{episodes} self-play episodes, seed {args.seed}" if episodes else "untrained (its starting weights)"
    os.makedirs(os.path.join(args.out, "data"), exist_ok=True)
    weights_path = os.path.join(args.out, "data", WEIGHTS_NAME)
    write_atomically(weights_path, weights_document(weights.tolist(), features, settings.record()) + "\n")
    main_path = os.path.join(args.out, "main.py")
    write_atomically(main_path, MAIN_PY.format(marker=MARKER, what=what, weights=WEIGHTS_NAME,
                                               how=f"{what}, {board}"))
    if episodes:
        print(f"trained {episodes} self-play episodes in {seconds:.1f} s ({episodes / seconds:.0f} episodes/s), "
              f"seed {args.seed}, {board}", file=out)
    print(f"wrote {main_path}", file=out)
    print(f"      {weights_path} ({os.path.getsize(weights_path):,} bytes)", file=out)
    if args.evaluate:
        quick_check(weights, features, args.evaluate, out)
        if config.is_standard:
            accuracy_check(weights, features, out)
    print(f"build it: connectx build {args.out} -o submission.py", file=out)
    return 0


def quick_check(weights, features, games: int, out: IO[str] | None = None) -> None:
    """Win rates on the project's game core (no clock, no processes): against random, and against the untrained
    agent from random 4-ply openings (two deterministic agents would otherwise repeat one game)."""
    from connectx_toolkit.agents.td_lambda import choose
    from connectx_toolkit.training.td_lambda_trainer import initial_weights, win_rate

    untrained = initial_weights(features)

    def untrained_move(position, rng):
        return choose(position, untrained, features)

    vs_random = win_rate(weights, features, games, seed=12345)
    vs_untrained = win_rate(weights, features, games, seed=12345, opponent=untrained_move, opening_plies=4)
    print(f"quick check ({games} games each, seats alternating, the project's core): win rate vs random "
          f"{vs_random:.3f}, vs the untrained agent {vs_untrained:.3f}", file=out or sys.stdout)


def accuracy_check(weights, features, out: IO[str] | None = None) -> dict:
    """The trained agent's accuracy against perfect play on the shipped benchmark, asked on the project's core in
    this process as the quick games are (``measuring.in_process``: the agent is a function of the position, so a
    process and Kaggle's clock would give it the same answers). Prints one line; returns the figures."""
    from connectx_toolkit.agents.td_lambda import choose
    from connectx_toolkit.measuring.benchmark import load_benchmark
    from connectx_toolkit.measuring.in_process import answers_in_process
    from connectx_toolkit.measuring.scoring import agent_accuracy

    benchmark = load_benchmark()
    figures = agent_accuracy(answers_in_process(lambda position: choose(position, weights, features), benchmark,
                                                "trained"), worst=0)
    every, critical = figures["sets"]["all"], figures["sets"]["critical"]
    print(f"accuracy against perfect play ({every['positions']:,} benchmark positions, the project's core): "
          f"{every['accuracy']:.1%} [{every['low']:.1%}, {every['high']:.1%}] of all positions, "
          f"{critical['accuracy']:.1%} [{critical['low']:.1%}, {critical['high']:.1%}] of the critical ones "
          "(docs/accuracy.md)", file=out or sys.stdout)
    return figures


if __name__ == "__main__":
    sys.exit(main())
