#!/usr/bin/env python3
"""Train an agent by self-play and write it as an agent folder of your own, ready to evaluate and build.

    connectx train --episodes 20000 --seed 1 --out my_td_bot          # td_lambda: a few CPU minutes
    connectx train --untrained --out my_td_bot_untrained              # the same agent before training
    connectx build my_td_bot -o submission.py                         # one file: the code and the weights
    connectx gate submission.py --baseline random

    connectx train --learner ntuple --minutes 30 --out my_run         # the n-tuple learner (6x7): resumable
    connectx train --resume my_run --episodes 4000000                 # on, from its last checkpoint
    connectx train --learner ntuple --runs 4 --minutes 30 --out my_runs   # 4 seeds side by side, the best kept

The n-tuple learner (``--learner ntuple``, ``connectx_toolkit.training.ntuple``) writes into OUT its checkpoint
(every few minutes and when it stops: Ctrl-C keeps it), ``main.py`` with ``data/ntuple_6x7.npz`` (the weights) and
its learning curve (``learning_curve.csv`` and ``.png``: the accuracy against perfect play on the shipped benchmark,
all and critical positions, every ``--curve-every`` games). ``--resume DIR`` goes on from DIR's checkpoint with its
settings, to ``--episodes`` games in all or for ``--minutes`` more, and ends with the weights an uninterrupted run
would have.
``--runs R`` trains R runs side by side in OUT/run1 ... OUT/runR (local processes, or ``--backend ray``) and writes
the most accurate at its last curve point (critical positions, then all) as OUT's agent (``cli.train_runs``).

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
from typing import IO, Sequence, TextIO

from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.cli import train_runs
from connectx_toolkit.cli.options import RULES, integer, number
from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.scheduling.play_settings import PROCESS, RAY
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


NTUPLE_WEIGHTS_NAME = "ntuple_6x7.npz"
NTUPLE_MAIN_PY = '''{marker}: {what}.
"""An n-tuple ConnectX agent: the project's ntuple agent (a tactical filter, then alpha-beta over the learned
values) with the weights in data/{weights}, trained by self-play (connectx train --learner ntuple).

Evaluate it with `connectx match <this folder> random`; build it into one submission with
`connectx build <this folder>`. Training goes on with `connectx train --resume <this folder> --minutes M`.
"""

from agents.core.resources import load_resource
from agents.ntuple_engine.network import read_network
from agents.ntuple_engine.search import play

NETWORK = read_network(load_resource("{weights}"))  # decoded once, at load; every move reuses it


def agent(obs, config):
    return play(obs, config, NETWORK)
'''
LEARNERS = ("td_lambda", "ntuple")
NTUPLE_DEFAULT_EPISODES = 2_000_000


HELP = "train an agent by self-play (TD(lambda) or the n-tuple learner) and write it as an agent folder"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--learner", choices=LEARNERS, default=None,
                   help="td_lambda (default: linear TD(lambda) over coarse features) or ntuple (70 8-tuples and the "
                        "threat tables, a set for each side to move, TD(lambda) with TCL step sizes; 6x7 only)")
    p.add_argument("--out", metavar="DIR", help="the agent folder to write (main.py, data/); required unless --resume")
    p.add_argument("--episodes", type=integer, default=None,
                   help=f"self-play games to train on (default {DEFAULT_EPISODES}; ntuple: games in all, "
                        f"default {NTUPLE_DEFAULT_EPISODES:,} unless --minutes)")
    p.add_argument("--minutes", type=number, default=None,
                   help="ntuple: a wall-clock budget for this run, in minutes (with --episodes: whichever ends first)")
    p.add_argument("--resume", metavar="DIR", default=None,
                   help="ntuple: go on training the run in DIR from its last checkpoint, with its settings")
    p.add_argument("--alpha", type=numbers, default=None,
                   help="ntuple: the step size of the value's sum, each of its n entries moving alpha/n (two a "
                        "tuple and 8 threat entries: 148 for 70 tuples; default 0.5); with --runs, a list gives each run its own "
                        "(--alpha 0.3,0.5)")
    p.add_argument("--tuples", type=integer, default=None, metavar="N",
                   help="ntuple: the network's 8-tuples, the first N of the 140 fixed ones (default 70); more see more "
                        "patterns, at about half the games a CPU-second for 140")
    p.add_argument("--stages", type=integer, default=None, metavar="S",
                   help="ntuple: cut the game by its stones into S stages of equal length, each with its own tables "
                        "(default 1)")
    p.add_argument("--siblings", type=number, default=None, metavar="P",
                   help="ntuple: at a share P of the moves (0 to 1; default 0) the moves not played, and not decided by "
                        "the rules, learn their own one-ply lookahead: positions off the self-play's path are taught "
                        "too, at about twice the CPU a game for 0.25")
    p.add_argument("--no-threats", dest="threats", action="store_const", const=False, default=None,
                   help="ntuple: the tuples' tables alone, without the threat tables (each column's winning cells, "
                        "by side to move)")
    p.add_argument("--curve-every", type=integer, default=None, metavar="GAMES",
                   help="ntuple: games between two points of the learning curve (default 100000)")
    p.add_argument("--checkpoint-minutes", type=number, default=None, metavar="M",
                   help="ntuple: minutes between checkpoints (default 3)")
    p.add_argument("--seed", type=int, default=None,
                   help="training seed: the same seed gives the same weights (default 1; --resume: the run's; "
                        "--runs R: seed, seed+1, ... one a run)")
    p.add_argument("--runs", type=integer, default=None, metavar="R",
                   help="ntuple: train R runs side by side, each in OUT/run1, OUT/run2, ... (resumable each), and "
                        "write the most accurate as OUT's agent: the highest accuracy on the critical positions at "
                        "its last curve point, then on all positions; a table, learning_curves.csv and .png show "
                        "every run's curve; --resume OUT goes on with all of them")
    p.add_argument("--average", action="store_true",
                   help="ntuple, with --runs R: OUT's agent is the mean of the runs' tables (one network, an ensemble "
                        "of the runs at the cost of one), measured on the benchmark, instead of the most accurate run")
    p.add_argument("--backend", choices=(PROCESS, RAY), default=None,
                   help="--runs: local processes (default) or a Ray cluster (pip install -r requirements-ray.txt; "
                        "RAY_ADDRESS names a cluster, else a private local one starts): the runs' folders must be "
                        "on a filesystem every node shares, OUT's agent comes back whole")
    p.add_argument("--workers", type=integer, default=None,
                   help="--runs: runs training at once on local processes (default: one a core); --backend ray "
                        "without RAY_ADDRESS: the local Ray's CPUs")
    p.add_argument("--untrained", action="store_true",
                   help="write the agent with the weights training starts from (no training)")
    p.add_argument("--evaluate", type=integer, default=0, metavar="GAMES",
                   help="afterwards, GAMES quick games on the project's core against random and the untrained agent, "
                        "and (6x7, four in a row) its accuracy against perfect play on the shipped benchmark")
    RULES.add_to(p, "rows", "columns", "inarow")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def numbers(text: str) -> list[float]:
    """A comma-separated list of numbers (``--alpha 0.3,0.5``), parsed only."""
    return [number(part) for part in text.split(",")]


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
    if args.learner == "ntuple" or (args.learner is None and args.resume is not None):
        return run_ntuple(args, out or sys.stdout)
    out = out or sys.stdout
    if args.resume is not None:
        raise UsageError("--resume goes on with an n-tuple learner's run (--learner ntuple)")
    for option, value in (("--minutes", args.minutes), ("--curve-every", args.curve_every),
                          ("--checkpoint-minutes", args.checkpoint_minutes), ("--alpha", args.alpha),
                          ("--tuples", args.tuples), ("--stages", args.stages), ("--no-threats", args.threats),
                          ("--siblings", args.siblings), ("--runs", args.runs),
                          ("--average", args.average or None),
                          ("--backend", args.backend), ("--workers", args.workers)):
        if value is not None:
            raise UsageError(f"{option} is the n-tuple learner's (--learner ntuple)")
    if args.out is None:
        raise UsageError("--out DIR is required")
    seed = 1 if args.seed is None else args.seed
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
    settings = trainer.TrainingSettings(episodes=episodes, seed=seed, config=config)
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
    what = f"{episodes} self-play episodes, seed {seed}" if episodes else "untrained (its starting weights)"
    os.makedirs(os.path.join(args.out, "data"), exist_ok=True)
    weights_path = os.path.join(args.out, "data", WEIGHTS_NAME)
    write_atomically(weights_path, weights_document(weights.tolist(), features, settings.record()) + "\n")
    main_path = os.path.join(args.out, "main.py")
    write_atomically(main_path, MAIN_PY.format(marker=MARKER, what=what, weights=WEIGHTS_NAME,
                                               how=f"{what}, {board}"))
    if episodes:
        print(f"trained {episodes} self-play episodes in {seconds:.1f} s ({episodes / seconds:.0f} episodes/s), "
              f"seed {seed}, {board}", file=out)
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


def run_ntuple(args: argparse.Namespace, out: IO[str] | TextIO) -> int:
    """``--learner ntuple`` (or ``--resume``): train or go on training the run in OUT (or, ``--runs R``, R runs in
    OUT's subfolders), write its agent folder and its learning curve; 0, or ``UsageError`` for bad input."""
    from connectx_toolkit.training import ntuple

    if (args.rows, args.columns, args.inarow) != (6, 7, 4):
        raise UsageError("the n-tuple learner plays 6x7, four in a row: it takes no --rows, --columns, --inarow")
    if args.evaluate:
        raise UsageError("the n-tuple learner measures its accuracy on its own (the learning curve): no --evaluate")
    for option, value, least in (("--episodes", args.episodes, 0), ("--curve-every", args.curve_every, 1),
                                 ("--checkpoint-minutes", args.checkpoint_minutes, 0), ("--runs", args.runs, 1),
                                 ("--workers", args.workers, 1)):
        if value is not None and value < least:
            raise UsageError(f"{option} must be at least {least}")
    if args.minutes is not None and not args.minutes > 0:
        raise UsageError("--minutes must be more than 0")
    if args.untrained and (args.episodes or args.minutes is not None):
        raise UsageError("--untrained writes the weights training starts from: it takes no --episodes or --minutes")
    if (args.runs or 1) > 1 or (args.resume is not None and train_runs.read_manifest(args.resume) is not None):
        return run_ntuple_runs(args, out)
    for option, value in (("--backend", args.backend), ("--workers", args.workers)):
        if value is not None:
            raise UsageError(f"{option} runs several runs (--runs R): one run trains in this process")
    if args.average:
        raise UsageError("--average writes the mean of several runs (--runs R): one run has nothing to average")
    if args.alpha is not None and len(args.alpha) > 1:
        raise UsageError("--alpha takes a list of values with --runs R (one a run): one run takes one")
    alpha = None if args.alpha is None else args.alpha[0]
    checkpoint_seconds = None if args.checkpoint_minutes is None else 60.0 * args.checkpoint_minutes
    asked = args.episodes
    if args.resume is not None:
        if args.out is not None and os.path.abspath(args.out) != os.path.abspath(args.resume):
            raise UsageError("--resume DIR trains on in DIR: give no other --out")
        folder = args.resume
        try:
            state = ntuple.load(folder)
        except (FileNotFoundError, ValueError) as error:
            raise UsageError(f"--resume {error}") from None
        kept = ntuple.NTupleSettings.from_record(state.settings)
        for option, value, key in (("--seed", args.seed, "seed"), ("--alpha", alpha, "alpha"),
                                   ("--tuples", args.tuples, "tuples"), ("--stages", args.stages, "stages"),
                                   ("--no-threats", args.threats, "threats"), ("--siblings", args.siblings, "siblings")):
            if value is not None and value != getattr(kept, key):
                raise UsageError(f"--resume {folder}: the run's {key} is {getattr(kept, key)}; give no other {option}")
        if args.curve_every not in (None, state.settings.get("curve_every")):
            raise UsageError("--resume keeps the run's --curve-every (its curve points so far)")
        settings = None
        started_at = state.episodes
        if asked is None and args.minutes is None:
            asked = state.target  # on to the games in all the run was asked for (None: a --minutes run)
    else:
        if args.out is None:
            raise UsageError("--out DIR is required (or --resume DIR)")
        check_out(args.out)
        folder = args.out
        settings = ntuple_settings(seed=1 if args.seed is None else args.seed, alpha=alpha, tuples=args.tuples,
                                   stages=args.stages, threats=args.threats, siblings=args.siblings,
                                   curve_every=args.curve_every, checkpoint_seconds=checkpoint_seconds)
        if os.path.exists(os.path.join(folder, "checkpoint.npz")):
            raise UsageError(f"--out {folder}: holds a run already; go on with --resume {folder}, or choose another "
                             "folder")
        started_at = 0
    episodes = 0 if args.untrained else asked
    if episodes is None and args.minutes is None:
        episodes = NTUPLE_DEFAULT_EPISODES
    order = train_runs.RunOrder(
        "run", os.path.abspath(folder), settings, episodes, args.minutes,
        changes={} if checkpoint_seconds is None else {"checkpoint_seconds": checkpoint_seconds})
    bar = None
    if not args.quiet:
        from tqdm import tqdm

        bar = tqdm(total=episodes, initial=min(started_at, episodes or started_at), unit="episode",
                   file=sys.stderr, unit_scale=True)
    latest: dict[str, float] = {}

    def progress(state, figures) -> None:
        if figures:
            latest.update(figures)
        if bar is not None:
            bar.update(state.episodes - bar.n)
            if latest:
                bar.set_postfix_str(f"accuracy {latest['all']:.1%} all, {latest['critical']:.1%} critical")

    try:
        report = train_run(order, progress)
    finally:
        if bar is not None:
            bar.close()
    stop = (f"reached {report.episodes:,} episodes" if report.why == "episodes" else f"{args.minutes:g} minutes "
            "passed" if report.why == "minutes" else "interrupted (Ctrl-C): the checkpoint is kept")
    print(f"played {report.played:,} self-play episodes in {report.seconds:.1f} s "
          f"({report.played / max(report.seconds, 1e-9):,.0f} episodes/s); {stop}; {report.episodes:,} in all, "
          f"{report.cpu_seconds / 60:.1f} CPU minutes of training", file=out)
    if report.curve:
        last = report.curve[-1]
        print(f"accuracy against perfect play at {last['episodes']:,} episodes: {last['all']:.1%} of all benchmark "
              f"positions, {last['critical']:.1%} of the critical ones (the network alone, tactical filter first)",
              file=out)
        print(f"learning curve: {os.path.join(folder, 'learning_curve.csv')} and .png", file=out)
    weights_path = os.path.join(folder, "data", NTUPLE_WEIGHTS_NAME)
    print(f"wrote {os.path.join(folder, 'main.py')}", file=out)
    print(f"      {weights_path} ({os.path.getsize(weights_path):,} bytes)", file=out)
    print(f"checkpoint: {os.path.join(folder, 'checkpoint.npz')} (go on: connectx train --resume {folder} ...)",
          file=out)
    print(f"build it: connectx build {folder} -o submission.py", file=out)
    return 130 if report.why == "interrupted" else 0


def ntuple_settings(**given) -> dict:
    """A new run's ``NTupleSettings`` record from the options given (None: the setting's default)."""
    from connectx_toolkit.training import ntuple

    try:
        return ntuple.NTupleSettings(**{k: v for k, v in given.items() if v is not None}).record()
    except ValueError as error:
        raise UsageError(str(error)) from None


def write_ntuple_agent(folder: str, weights: bytes, what: str) -> tuple[str, str]:
    """An n-tuple agent folder: ``main.py`` and ``data/ntuple_6x7.npz`` (``weights``: that file's bytes)."""
    weights_path = os.path.join(folder, "data", NTUPLE_WEIGHTS_NAME)
    os.makedirs(os.path.dirname(weights_path), exist_ok=True)
    write_atomically(weights_path, weights)
    main_path = os.path.join(folder, "main.py")
    write_atomically(main_path, NTUPLE_MAIN_PY.format(marker=MARKER, what=what, weights=NTUPLE_WEIGHTS_NAME))
    return main_path, weights_path


def train_run(order: train_runs.RunOrder, progress=None) -> train_runs.RunReport:
    """Train one n-tuple run in ``order.folder`` (new, or on from its checkpoint) until its episodes, its minutes
    or Ctrl-C, writing there its checkpoint, its agent (at every checkpoint) and its learning curve; the function
    a single run and each of ``--runs``' runs (in a process or a Ray task) are trained by. ``progress(state,
    figures)`` after every chunk."""
    from connectx_toolkit.training import ntuple

    if order.settings is None:
        state = ntuple.load(order.folder)
        state.settings.update(order.changes)
    else:
        state = ntuple.new_state(ntuple.NTupleSettings.from_record(order.settings))
    os.makedirs(os.path.join(order.folder, "data"), exist_ok=True)

    def write_agent(state) -> None:
        write_ntuple_agent(order.folder, ntuple.weights_bytes(state),
                           f"{state.episodes:,} self-play episodes, seed {state.settings['seed']}")
        if state.curve:
            ntuple.write_csv(state.curve, order.folder)
            ntuple.write_png(state.curve, order.folder)

    def on_chunk(state, figures) -> None:
        if order.announce and figures:
            print(f"{order.name}: {state.episodes:,} episodes, {state.cpu_seconds / 60:.1f} CPU minutes: accuracy "
                  f"{figures['all']:.1%} all, {figures['critical']:.1%} critical", file=sys.stderr, flush=True)
        if progress is not None:
            progress(state, figures)

    started_episodes, started = state.episodes, time.perf_counter()
    why = ntuple.train(state, order.folder, episodes=order.episodes, minutes=order.minutes,
                       measure=benchmark_accuracy(),
                       progress=on_chunk, after_checkpoint=write_agent)
    with open(os.path.join(order.folder, "data", NTUPLE_WEIGHTS_NAME), "rb") as handle:
        weights = handle.read()
    return train_runs.RunReport(order.name, order.folder, why, state.episodes, state.episodes - started_episodes,
                                time.perf_counter() - started, state.cpu_seconds, dict(state.settings),
                                list(state.curve), weights)


def run_ntuple_runs(args: argparse.Namespace, out: IO[str] | TextIO) -> int:
    """``--runs R`` (or ``--resume`` of a runs folder): the runs side by side, then the most accurate as OUT's
    agent, every run's curve in a table, a CSV and a PNG; 0, 130 after Ctrl-C, 1 when a run failed."""
    from connectx_toolkit.training import ntuple
    from connectx_toolkit.training.curve import write_runs_png

    if args.untrained:
        raise UsageError("--untrained writes one agent's starting weights: it takes no --runs")
    backend = args.backend or PROCESS
    if backend not in (PROCESS, RAY):
        raise UsageError(f"--backend must be {PROCESS} or {RAY}, not {args.backend!r}")
    if backend == RAY:
        train_runs.ray_backend()  # without Ray: one line, before anything is written
    checkpoint_seconds = None if args.checkpoint_minutes is None else 60.0 * args.checkpoint_minutes
    changes = {} if checkpoint_seconds is None else {"checkpoint_seconds": checkpoint_seconds}
    episodes = args.episodes
    if episodes is None and args.minutes is None:
        episodes = NTUPLE_DEFAULT_EPISODES
    if args.resume is not None:
        if args.out is not None and os.path.abspath(args.out) != os.path.abspath(args.resume):
            raise UsageError("--resume DIR trains on in DIR: give no other --out")
        for option, value in (("--runs", args.runs), ("--seed", args.seed), ("--alpha", args.alpha),
                              ("--tuples", args.tuples), ("--stages", args.stages), ("--no-threats", args.threats),
                              ("--siblings", args.siblings), ("--curve-every", args.curve_every)):
            if value is not None:
                raise UsageError(f"--resume {args.resume}: its runs keep their settings; give no {option}")
        folder = args.resume
        runs = train_runs.read_manifest(folder) or []

        def on_from(run: dict) -> train_runs.RunOrder:
            """A run of the folder resumed from its checkpoint (to the games it was asked for, unless told
            otherwise), or begun anew with its settings when it had none yet."""
            run_folder = os.path.abspath(os.path.join(folder, run["name"]))
            if not os.path.isfile(os.path.join(run_folder, "checkpoint.npz")):
                return train_runs.RunOrder(run["name"], run_folder, run["settings"], episodes, args.minutes, changes,
                                           announce=not args.quiet)
            try:
                target = ntuple.load(run_folder).target
            except ValueError as error:
                raise UsageError(f"--resume {error}") from None
            asked = target if args.episodes is None and args.minutes is None and target is not None else episodes
            return train_runs.RunOrder(run["name"], run_folder, None, asked, args.minutes, changes,
                                       announce=not args.quiet)

        orders = [on_from(run) for run in runs]
    else:
        if args.out is None:
            raise UsageError("--out DIR is required (or --resume DIR)")
        check_out(args.out)
        folder = args.out
        count = args.runs
        seed = 1 if args.seed is None else args.seed
        alphas = args.alpha or [None]
        if len(alphas) not in (1, count):
            raise UsageError(f"--alpha gives {len(alphas)} values for {count} runs: give one, or one a run")
        settings = [ntuple_settings(seed=seed + index, alpha=alphas[index % len(alphas)], tuples=args.tuples,
                                    stages=args.stages, threats=args.threats, siblings=args.siblings,
                                    curve_every=args.curve_every, checkpoint_seconds=checkpoint_seconds)
                    for index in range(count)]
        if os.path.exists(os.path.join(folder, train_runs.MANIFEST)) or os.path.exists(
                os.path.join(folder, "checkpoint.npz")):
            raise UsageError(f"--out {folder}: holds runs already; go on with --resume {folder}, or choose another "
                             "folder")
        orders = [train_runs.RunOrder(f"run{index + 1}", os.path.abspath(os.path.join(folder, f"run{index + 1}")),
                                      record, episodes, args.minutes, announce=not args.quiet)
                  for index, record in enumerate(settings)]
        os.makedirs(folder, exist_ok=True)
        train_runs.write_manifest(folder, orders, settings)
    where = (f"a Ray cluster ({os.environ['RAY_ADDRESS']})" if backend == RAY and os.environ.get("RAY_ADDRESS")
             else "a local Ray" if backend == RAY else
             f"local processes, {min(len(orders), args.workers or os.cpu_count() or 1)} at a time")
    budget = " and ".join(([f"{episodes:,} episodes in all"] if episodes is not None else [])
                          + ([f"{args.minutes:g} minutes"] if args.minutes is not None else []))
    print(f"training {len(orders)} runs on {where}, each to {budget}: {', '.join(o.name for o in orders)} in "
          f"{folder}", file=out, flush=True)
    started = time.perf_counter()
    reports = train_runs.run_all(orders, train_run, backend, args.workers)
    seconds = time.perf_counter() - started
    chosen = train_runs.most_accurate(reports)
    print(f"{len(reports)} runs in {seconds:.1f} s of wall time "
          f"({sum(r.cpu_seconds for r in reports) / 60:.1f} CPU minutes of training in all):", file=out)
    for line in train_runs.table(reports, chosen):
        print("  " + line, file=out)
    rows = train_runs.combined_rows(reports)
    if rows:
        ntuple.write_csv(rows, folder, name=train_runs.CURVES_CSV)
        write_runs_png({r.name: r.curve for r in reports if r.curve},
                                    os.path.join(folder, train_runs.CURVES_PNG))
        print(f"learning curves: {os.path.join(folder, train_runs.CURVES_CSV)} and .png", file=out)
    if chosen is None:
        print("no run reached a curve point: OUT's agent is not written", file=out)
        return 130 if any(r.why == "interrupted" for r in reports) else 1
    if args.average:
        main_path, weights_path = write_averaged_agent(folder, reports, out)
    else:
        print(f"* the most accurate run, by {train_runs.SELECTION_RULE}: {chosen.name}", file=out)
        main_path, weights_path = write_ntuple_agent(
            folder, chosen.weights, f"{chosen.name} of {len(reports)} runs (the most accurate), {chosen.episodes:,} "
            f"self-play episodes, seed {chosen.settings.get('seed')}")
        print(f"wrote {main_path}", file=out)
        print(f"      {weights_path} ({len(chosen.weights):,} bytes): {chosen.name}'s weights", file=out)
    print(f"each run's folder holds its checkpoint, agent and curve ({os.path.join(folder, orders[0].name)}, ...); "
          f"go on with all: connectx train --resume {folder} ...", file=out)
    print(f"build it: connectx build {folder} -o submission.py", file=out)
    if any(r.why == "failed" for r in reports):
        return 1
    return 130 if any(r.why == "interrupted" for r in reports) else 0


def write_averaged_agent(folder: str, reports: list[train_runs.RunReport], out: IO[str] | TextIO) -> tuple[str, str]:
    """``--average``: OUT's agent is the mean of the tables of the runs that did not fail (from their checkpoints:
    the tables as trained, not the agents' float16), measured on the benchmark as a curve point is."""
    from connectx_toolkit.training import ntuple

    kept = [r for r in reports if r.why != "failed"]
    try:
        states = [ntuple.load(r.folder) for r in kept]
        mean = ntuple.averaged_state(states)
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(f"--average: {error}") from None
    weights = ntuple.averaged_weights_bytes(states, [r.name for r in kept], mean)
    figures = benchmark_accuracy()(ntuple.network(mean))
    print(f"* the mean of {len(kept)} runs' tables ({', '.join(r.name for r in kept)}): accuracy {figures['all']:.1%} "
          f"all, {figures['critical']:.1%} critical (the network alone)", file=out)
    main_path, weights_path = write_ntuple_agent(
        folder, weights, f"the mean of {len(kept)} runs' tables, "
        f"{', '.join(f'{r.episodes:,}' for r in kept)} self-play episodes, seeds "
        f"{', '.join(str(r.settings.get('seed')) for r in kept)}")
    print(f"wrote {main_path}", file=out)
    print(f"      {weights_path} ({len(weights):,} bytes): the runs' mean", file=out)
    return main_path, weights_path


def benchmark_accuracy():
    """The n-tuple curve's measure: the network alone (the tactical filter, then the highest learned value) asked
    every position of the shipped benchmark in this process; its accuracy on all positions and the critical ones."""
    from connectx_toolkit.agents.ntuple_engine.search import choose
    from connectx_toolkit.measuring.benchmark import load_benchmark
    from connectx_toolkit.measuring.learning_curve import accuracy_figures

    benchmark = load_benchmark()

    def measure(network) -> dict[str, float]:
        return accuracy_figures(lambda position: choose(position, network), benchmark=benchmark, agent="ntuple")

    return measure
