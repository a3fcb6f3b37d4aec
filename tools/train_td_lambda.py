"""Train the ``td_lambda`` agent by TD(λ) self-play and draw its learning curve (the project's shipped weights).

    python -m tools.train_td_lambda --episodes 20000 --seed 1 \
        [--out agents/data/td_lambda_6x7.json] [--curve docs/td_lambda_learning_curve.png]

The training is ``connectx_toolkit.training.td_lambda_trainer`` (self-play in the PettingZoo self-play env, as
``connectx-train`` runs it for an agent folder of one's own; its docstring says how). Every ``--eval-every``
episodes the current weights play ``--eval-games`` games (half in each seat, same evaluation seed
every time) on the project's own game core: against a uniformly random player as the full agent and
on learned values alone, and against the project's ``greedy`` agent from random 4-ply openings (random
is beaten almost from the start; greedy shows what the values add). Those win rates make the curve, beside the
agent's accuracy against perfect play on the shipped benchmark (6x7 only: ``connectx_toolkit.measuring``, asked on
the core in this process, all positions and the critical ones), which games between weak agents cannot show.
Same seed, same arguments -> the same weights, bit for bit.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from connectx_toolkit.agents import greedy
from connectx_toolkit.agents.core import Config
from connectx_toolkit.agents.td_lambda import features_for, weights_document
from connectx_toolkit.atomic import write_atomically, write_figure
from connectx_toolkit.training.td_lambda_trainer import DEFAULT_ENV, EnvFactory, TrainingSettings, win_rate
from connectx_toolkit.training.td_lambda_trainer import train as train_in_env


@dataclass
class CurveSettings:
    every: int = 1000  # episodes between evaluations (0: none)
    games: int = 200
    seed: int = 12345


@dataclass
class CurvePoint:
    episodes: int
    win_rate: float  # the full agent (tactics + values) against random
    value_only_win_rate: float  # greedy on learned values alone against random
    vs_greedy: float  # the full agent against the project's greedy agent, from random 4-ply openings
    accuracy: float | None = None  # moves that keep the outcome class, on the benchmark's positions (6x7 only)
    critical_accuracy: float | None = None  # the same on its critical positions


GREEDY_OPENING = 4  # random plies before a game against greedy starts


def train(
    settings: TrainingSettings, curve_settings: CurveSettings | None = None, progress: bool = False,
    make_env: EnvFactory = DEFAULT_ENV,
) -> tuple[np.ndarray, list[CurvePoint]]:
    """Train in the self-play env (``connectx_toolkit.training``); returns the weights and the learning curve,
    measured every ``curve_settings.every`` episodes (no curve without ``curve_settings``)."""
    features = features_for(settings.config)
    every = curve_settings.every if curve_settings else 0

    def measure(done: int, weights: np.ndarray) -> CurvePoint:
        assert curve_settings is not None
        games, seed = curve_settings.games, curve_settings.seed
        return CurvePoint(
            done,
            win_rate(weights, features, games, seed, True),
            win_rate(weights, features, games, seed, False),
            win_rate(weights, features, games, seed, True, greedy.choose, GREEDY_OPENING),
            *accuracy(weights, features),
        )

    curve = [measure(0, np.zeros(features.size))] if every else []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings.episodes, unit="episode", file=sys.stderr)

    def after_episode(episode: int, weights: np.ndarray) -> None:
        if bar is not None:
            bar.update(1)
        if every and (episode % every == 0 or episode == settings.episodes):
            curve.append(measure(episode, weights))
            if bar is not None:
                bar.set_postfix(random=f"{curve[-1].win_rate:.3f}", greedy=f"{curve[-1].vs_greedy:.3f}")

    try:
        weights = train_in_env(settings, make_env, after_episode)
    finally:
        if bar is not None:
            bar.close()
    return weights, curve


def accuracy(weights: np.ndarray, features) -> tuple[float | None, float | None]:
    """The agent's accuracy on the shipped benchmark, all positions and critical ones (None off 6x7)."""
    if not features.config.is_standard:
        return None, None
    from connectx_toolkit.agents.td_lambda import choose
    from connectx_toolkit.measuring.benchmark import load_benchmark
    from connectx_toolkit.measuring.in_process import answers_in_process

    answers = answers_in_process(lambda position: choose(position, weights, features), load_benchmark())
    critical = [answer for answer in answers if answer.position.critical]
    return (round(sum(a.accurate for a in answers) / len(answers), 4),
            round(sum(a.accurate for a in critical) / len(critical), 4))


def plot_curve(curve: list[CurvePoint], settings: TrainingSettings, games: int, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measured = [p for p in curve if p.accuracy is not None]
    fig, axes = plt.subplots(2 if measured else 1, 1, figsize=(7, 7 if measured else 4), sharex=True, squeeze=False)
    ax = axes[0][0]
    episodes = [p.episodes for p in curve]
    ax.plot(episodes, [p.win_rate for p in curve], marker=".", label="agent (tactics + learned values)")
    ax.plot(episodes, [p.value_only_win_rate for p in curve], marker=".", label="learned values alone")
    ax.plot(episodes, [p.vs_greedy for p in curve], marker=".", label="agent vs greedy (random 4-ply openings)")
    cfg = settings.config
    ax.set_title(
        f"TD(λ) self-play, {cfg.rows}x{cfg.columns} inarow {cfg.inarow}: win rate "
        f"({games} games per point)"
    )
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    if measured:
        below = axes[1][0]
        below.plot([p.episodes for p in measured], [p.accuracy for p in measured], marker=".",
                   label="all benchmark positions")
        below.plot([p.episodes for p in measured], [p.critical_accuracy for p in measured], marker=".",
                   label="critical positions")
        below.set_title("accuracy against perfect play on the shipped benchmark (docs/accuracy.md)")
        below.set_ylabel("accuracy")
        below.set_ylim(0, 1.02)
        below.grid(alpha=0.3)
        below.legend(loc="lower right")
        ax = below
    ax.set_xlabel("self-play episodes")
    fig.tight_layout()
    fig.set_dpi(100)
    write_figure(fig, path)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, required=True, help="self-play games to train on")
    parser.add_argument("--seed", type=int, default=1, help="training seed (same seed, same weights)")
    parser.add_argument("--alpha", type=float, default=0.003, help="initial step size α")
    parser.add_argument("--alpha-end", type=float, default=0.0005, help="final step size (linear decay from α)")
    parser.add_argument("--lambda", dest="lam", type=float, default=0.7, help="trace decay λ")
    parser.add_argument("--gamma", type=float, default=1.0, help="discount γ")
    parser.add_argument("--epsilon", type=float, default=0.2, help="exploration rate ε")
    parser.add_argument("--tactics", action="store_true", help="self-play through the agent's tactical move filter")
    parser.add_argument("--eval-every", type=int, default=1000, help="episodes between evaluations (0: none)")
    parser.add_argument("--eval-games", type=int, default=200, help="games against random per evaluation")
    parser.add_argument("--eval-seed", type=int, default=12345, help="seed of the evaluation games")
    parser.add_argument("--rows", type=int, default=6)
    parser.add_argument("--columns", type=int, default=7)
    parser.add_argument("--inarow", type=int, default=4)
    parser.add_argument("--out", default=None, help="weights file (default: agents/data/td_lambda_6x7.json on 6x7)")
    parser.add_argument("--curve", default=None, help="learning-curve PNG (e.g. docs/td_lambda_learning_curve.png)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def check(args: argparse.Namespace) -> str | None:
    """The first problem with the arguments, as one line, or None."""
    if args.episodes < 1:
        return "--episodes must be at least 1"
    if not (args.alpha > 0) or (args.alpha_end is not None and not args.alpha_end > 0):
        return "--alpha and --alpha-end must be positive"
    if not (0 <= args.lam <= 1 and 0 <= args.gamma <= 1 and 0 <= args.epsilon <= 1):
        return "--lambda, --gamma and --epsilon must lie in [0, 1]"
    if args.eval_every < 0 or args.eval_games < 1:
        return "--eval-every must be >= 0 and --eval-games >= 1"
    for path in (args.out, args.curve):
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            return f"directory of {path} does not exist"
    if args.curve and not args.curve.lower().endswith(".png"):
        return "--curve must name a .png file"
    if args.curve and not args.eval_every:
        return "--curve needs --eval-every > 0"
    return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        config = Config(args.rows, args.columns, args.inarow)
    except ValueError as error:
        print(f"train_td_lambda: {error}", file=sys.stderr)
        return 2
    problem = check(args)
    if problem is None and args.out is None and not config.is_standard:
        problem = "--out is required for a configuration other than 6x7 inarow 4"
    if problem:
        print(f"train_td_lambda: {problem}", file=sys.stderr)
        return 2
    out = args.out or os.path.join("agents", "data", "td_lambda_6x7.json")
    settings = TrainingSettings(
        episodes=args.episodes, seed=args.seed, alpha=args.alpha, alpha_end=args.alpha_end, lam=args.lam,
        gamma=args.gamma, epsilon=args.epsilon, tactics=args.tactics, config=config,
    )
    curve_settings = CurveSettings(args.eval_every, args.eval_games, args.eval_seed)
    started = time.perf_counter()
    try:
        weights, curve = train(settings, curve_settings, progress=not args.quiet)
    except ValueError as error:  # a board the env cannot play
        print(f"train_td_lambda: {error}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - started
    training = {
        **settings.record(),
        "curve_columns": ["episodes", "vs_random", "vs_random_values_alone", "vs_greedy", "accuracy_all",
                          "accuracy_critical"],
        "curve": [[p.episodes, p.win_rate, p.value_only_win_rate, p.vs_greedy, p.accuracy, p.critical_accuracy]
                  for p in curve],
    }
    write_atomically(out, weights_document(weights, features_for(config), training) + "\n")
    if args.curve:
        plot_curve(curve, settings, curve_settings.games, args.curve)
    final = ""
    if curve:
        last = curve[-1]
        final = (f", final win rate vs random {last.win_rate:.3f} (values alone {last.value_only_win_rate:.3f}),"
                 f" vs greedy {last.vs_greedy:.3f}")
        if last.accuracy is not None:
            final += f", accuracy {last.accuracy:.3f} (critical {last.critical_accuracy:.3f})"
    print(f"wrote {out} after {settings.episodes} episodes in {seconds:.0f} s{final}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
