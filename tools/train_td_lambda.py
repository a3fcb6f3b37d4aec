"""Train the ``td_lambda`` agent by TD(λ) self-play and draw its learning curve.

    python -m tools.train_td_lambda --episodes 20000 --seed 1 \
        [--out agents/data/td_lambda_6x7.json] [--curve docs/td_lambda_learning_curve.png]

Both players share one weight vector; each has its own eligibility trace over its own afterstates
(the positions right after its moves). Moves are ε-greedy: with probability ε a uniformly random
legal move, else the highest-valued one (through the agent's tactical filter too with ``--tactics``;
by default not, so that the values themselves must learn what an open threat costs). Every ``--eval-every``
episodes the current weights play ``--eval-games`` games (half in each seat, same evaluation seed
every time) on the project's own game core: against a uniformly random player as the full agent and
on learned values alone, and against the project's ``greedy`` agent from random 4-ply openings (random
is beaten almost from the start; greedy shows what the values add). Those win rates make the curve.
Same seed, same arguments -> the same weights, bit for bit.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from connectx_toolkit.agents import greedy
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.td_lambda import (
    DRAW, LOSS, WIN, Features, TDLambda, choose, features_for, weights_document,
)


@dataclass
class TrainingSettings:
    episodes: int
    seed: int = 1
    alpha: float = 0.003
    alpha_end: float | None = 0.0005  # step size decays linearly from alpha to alpha_end (None: constant)
    lam: float = 0.7
    gamma: float = 1.0
    epsilon: float = 0.2
    tactics: bool = False  # self-play moves judged by values alone, so blunders teach the threat weights
    eval_every: int = 1000
    eval_games: int = 200
    eval_seed: int = 12345
    config: Config = field(default_factory=Config)


@dataclass
class CurvePoint:
    episodes: int
    win_rate: float  # the full agent (tactics + values) against random
    value_only_win_rate: float  # greedy on learned values alone against random
    vs_greedy: float  # the full agent against the project's greedy agent, from random 4-ply openings


def self_play_episode(
    learners: list[TDLambda], features: Features, settings: TrainingSettings, rng: random.Random
) -> float:
    """One self-play game with TD(λ) updates; returns the first player's outcome."""
    weights = learners[0].weights  # shared by both learners
    position = Position(settings.config)
    previous: list[np.ndarray | None] = [None, None]
    for learner in learners:
        learner.reset()
    while True:
        player = position.moves % 2
        if rng.random() < settings.epsilon:
            column = rng.choice(position.legal_moves())
        else:
            column = choose(position, weights, features, settings.tactics, rng)
        won = position.is_winning_move(column)
        position.play(column)
        if won or position.is_full():
            outcomes = (WIN, LOSS) if won else (DRAW, DRAW)
            for who, outcome in ((player, outcomes[0]), (1 - player, outcomes[1])):
                if previous[who] is not None:
                    learners[who].update(previous[who], outcome)
            mover_outcome = outcomes[0]
            return mover_outcome if player == 0 else -mover_outcome
        x = features(position)
        if previous[player] is not None:
            learners[player].update(previous[player], settings.gamma * float(weights @ x))
        previous[player] = x


def random_move(position: Position, rng: random.Random) -> int:
    return rng.choice(position.legal_moves())


Opponent = Callable[[Position, random.Random], int]
GREEDY_OPENING = 4  # random plies before a game against greedy starts


def win_rate(
    weights: np.ndarray,
    features: Features,
    games: int,
    seed: int,
    tactics: bool = True,
    opponent: Opponent = random_move,
    opening_plies: int = 0,
) -> float:
    """Share of ``games`` won against ``opponent`` (uniformly random by default), alternating seats.

    The first ``opening_plies`` moves of every game are random, so that two deterministic players
    do not repeat one game.
    """
    rng = random.Random(seed)
    wins = 0
    for game in range(games):
        agent_seat = game % 2
        position = Position(features.config)
        while True:
            if position.moves < opening_plies:
                column = random_move(position, rng)
            elif position.moves % 2 == agent_seat:
                column = choose(position, weights, features, tactics)
            else:
                column = opponent(position, rng)
            won = position.is_winning_move(column)
            position.play(column)
            if won:
                wins += (position.moves - 1) % 2 == agent_seat
                break
            if position.is_full():
                break
    return wins / games


def train(settings: TrainingSettings, progress: bool = False) -> tuple[np.ndarray, list[CurvePoint]]:
    """Train from zero weights; returns the weights and the learning curve."""
    features = features_for(settings.config)
    rng = random.Random(settings.seed)
    weights = np.zeros(features.size)
    learners = [TDLambda(weights, settings.alpha, settings.gamma, settings.lam) for _ in range(2)]

    def measure(done: int) -> CurvePoint:
        return CurvePoint(
            done,
            win_rate(weights, features, settings.eval_games, settings.eval_seed, True),
            win_rate(weights, features, settings.eval_games, settings.eval_seed, False),
            win_rate(weights, features, settings.eval_games, settings.eval_seed, True, greedy.choose, GREEDY_OPENING),
        )

    curve = [measure(0)] if settings.eval_every else []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings.episodes, unit="episode", file=sys.stderr)
    alpha_end = settings.alpha if settings.alpha_end is None else settings.alpha_end
    for episode in range(1, settings.episodes + 1):
        # A decaying step size lets late, noisy self-play games refine the weights, not throw them around.
        progress_fraction = (episode - 1) / max(1, settings.episodes - 1)
        for learner in learners:
            learner.alpha = settings.alpha + (alpha_end - settings.alpha) * progress_fraction
        self_play_episode(learners, features, settings, rng)
        if bar is not None:
            bar.update(1)
        if settings.eval_every and (episode % settings.eval_every == 0 or episode == settings.episodes):
            if curve[-1].episodes != episode:
                curve.append(measure(episode))
                if bar is not None:
                    last = curve[-1]
                    bar.set_postfix(random=f"{last.win_rate:.3f}", greedy=f"{last.vs_greedy:.3f}")
    if bar is not None:
        bar.close()
    return weights, curve


def plot_curve(curve: list[CurvePoint], settings: TrainingSettings, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    episodes = [p.episodes for p in curve]
    ax.plot(episodes, [p.win_rate for p in curve], marker=".", label="agent (tactics + learned values)")
    ax.plot(episodes, [p.value_only_win_rate for p in curve], marker=".", label="learned values alone")
    ax.plot(episodes, [p.vs_greedy for p in curve], marker=".", label="agent vs greedy (random 4-ply openings)")
    cfg = settings.config
    ax.set_title(
        f"TD(λ) self-play, {cfg.rows}x{cfg.columns} inarow {cfg.inarow}: win rate "
        f"({settings.eval_games} games per point)"
    )
    ax.set_xlabel("self-play episodes")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


def write_atomically(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    os.replace(tmp, path)


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
        gamma=args.gamma, epsilon=args.epsilon, tactics=args.tactics, eval_every=args.eval_every,
        eval_games=args.eval_games, eval_seed=args.eval_seed, config=config,
    )
    started = time.perf_counter()
    weights, curve = train(settings, progress=not args.quiet)
    seconds = time.perf_counter() - started
    training = {
        "episodes": settings.episodes, "seed": settings.seed, "alpha": settings.alpha,
        "alpha_end": settings.alpha_end,
        "lambda": settings.lam, "gamma": settings.gamma, "epsilon": settings.epsilon,
        "tactics": settings.tactics,
        "curve_columns": ["episodes", "vs_random", "vs_random_values_alone", "vs_greedy"],
        "curve": [[p.episodes, p.win_rate, p.value_only_win_rate, p.vs_greedy] for p in curve],
    }
    write_atomically(out, weights_document(weights, features_for(config), training))
    if args.curve:
        plot_curve(curve, settings, args.curve)
    final = ""
    if curve:
        last = curve[-1]
        final = (f", final win rate vs random {last.win_rate:.3f} (values alone {last.value_only_win_rate:.3f}),"
                 f" vs greedy {last.vs_greedy:.3f}")
    print(f"wrote {out} after {settings.episodes} episodes in {seconds:.0f} s{final}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
