#!/usr/bin/env python3
"""Train a TD(λ) agent by self-play and write it as an agent folder of your own, ready to evaluate and build.

    connectx-train --episodes 20000 --seed 1 --out my_td_bot          # a few CPU minutes
    connectx-train --untrained --out my_td_bot_untrained              # the same agent before training
    connectx-build my_td_bot -o submission.py                         # one file: the code and the weights
    connectx-evaluate --gate submission.py --baseline random

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
from typing import Sequence

from connectx_toolkit.evaluation.settings import UsageError, integer
from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.training.agent_folder import why_not_writable

PROGRAM = "connectx-train"
DEFAULT_EPISODES = 20000  # the shipped td_lambda weights' count: 83 s of one core here (docs/training.md)
WEIGHTS_NAME = "td_lambda_weights.json"
MARKER = "# Written by connectx-train"  # the first line of every main.py it writes: only those it replaces

MAIN_PY = '''{marker}: {what}.
"""A TD(λ) ConnectX agent: the project's td_lambda move choice (a tactical filter, then the highest learned
afterstate value) with the weights in data/{weights}, trained by self-play ({how}).

Evaluate it with `connectx-evaluate <this folder> random`; build it into one submission (this code, the
project's agents code it imports and the weights, embedded) with `connectx-build <this folder>`.
"""

from agents.core.resources import load_resource
from agents.td_lambda import play, read_weights

WEIGHTS = read_weights(load_resource("{weights}"))  # decoded once, at load; every move reuses it


def agent(obs, config):
    return play(obs, config, WEIGHTS)
'''


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, not argparse's usage dump
        raise UsageError(message)


def build_parser() -> Parser:
    p = Parser(prog=PROGRAM, description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--out", required=True, metavar="DIR", help="the agent folder to write (main.py, data/)")
    p.add_argument("--episodes", type=integer, default=None,
                   help=f"self-play games to train on (default {DEFAULT_EPISODES})")
    p.add_argument("--seed", type=int, default=1, help="training seed: the same seed gives the same weights (default 1)")
    p.add_argument("--untrained", action="store_true",
                   help="write the agent with the weights training starts from (no training)")
    p.add_argument("--evaluate", type=integer, default=0, metavar="GAMES",
                   help="afterwards, GAMES quick games on the project's core against random and the untrained agent")
    p.add_argument("--rows", type=integer, default=6, help="board rows (default 6)")
    p.add_argument("--columns", type=integer, default=7, help="board columns (default 7)")
    p.add_argument("--inarow", type=integer, default=4, help="stones in a row that win (default 4)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def check_out(out: str) -> None:
    """OUT may be new, empty, or a folder this command wrote: never someone's own main.py."""
    problem = why_not_writable(out, MARKER, PROGRAM)
    if problem:
        raise UsageError(f"--out {out}: {problem}")
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise UsageError(f"--out {out}: folder {parent} does not exist")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(build_parser().parse_args(argv))
    except UsageError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
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
              f"seed {args.seed}, {board}")
    print(f"wrote {main_path}")
    print(f"      {weights_path} ({os.path.getsize(weights_path):,} bytes)")
    if args.evaluate:
        quick_check(weights, features, args.evaluate)
    print(f"build it: connectx-build {args.out} -o submission.py")
    return 0


def quick_check(weights, features, games: int) -> None:
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
          f"{vs_random:.3f}, vs the untrained agent {vs_untrained:.3f}")


if __name__ == "__main__":
    sys.exit(main())
