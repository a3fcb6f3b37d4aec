#!/usr/bin/env python3
"""The built solver submission in full games on Kaggle's referee: move times and every move checked.

    nice -n 10 python bench/solver_games.py [--submission PATH] [--games 4] [--seed 0]
                                            [--opponents negamax perfect perfect30 random mcts file:PATH]
                                            [--mcts-simulations 5000]
                                            [--openings empty|suite]

Without ``--submission`` the solver is built first (``build_submission.py solver``). The file is
loaded the way Kaggle loads it (``kaggle_environments.agent.build_agent``: exec, last callable)
once per game, and plays ``--games`` games per opponent in each seat on ``kaggle_environments``'
ConnectX referee with Kaggle's time rules:

- ``negamax``, ``random``: Kaggle's built-ins; ``negamax`` is deterministic, so its first move of
  each game is random (the solver's reply to it, or the game's first move) and games differ;
- ``perfect``: bitbully (C++, dev-only) playing a best move, ties broken at random;
- ``perfect30``: the same, but 30 % of its moves are random;
- ``mcts``: OpenSpiel's MCTS (its C++ ``MCTSBot``, random rollouts, ``--mcts-simulations`` a move,
  seeded per game): a player from outside the project that leads the solver off its own lines;
- ``file:PATH``: any Kaggle agent file (a public agent fetched under /tmp, never committed), loaded
  by Kaggle's loader once per game;
full games: the solver plays from the empty board as first player, and as second player after a
random first move in half of its games against the bitbully-driven opponents. Against ``negamax``,
``mcts`` and ``file:`` opponents the first move of the game that is not the solver's is random, so
that games differ.
``--openings suite`` instead starts the games against every opponent but the bitbully-driven ones from
openings of the project's suite (``evaluation/scheduling/openings_6x7.txt``, 4 plies): positions off the agent's own
lines, which the opening book does not cover — a harsher test than Kaggle's games, where the book answers
every reply up to ply 15 of the solver's own games.

Every solver move is scored by bitbully: does it keep the position's best outcome class (win /
draw / loss), does it have the exact best score? Prints per-opponent results, the share of moves
checked, the move-time distribution (median, p99, max) measured around each call and the smallest
overage bank left at a game's end (the referee draws each move's excess over ``actTimeout`` from it,
as Kaggle does), plus the submission's size and load time. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

from kaggle_environments import make
from kaggle_environments.agent import build_agent, get_last_callable

from connectx_toolkit.evaluation.scheduling.openings import SUITE_6X7, read_suite
from connectx_toolkit.agents.core import Config
from tools.oracle import Oracle  # bitbully, dev-only

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPPONENTS = ("negamax", "perfect", "perfect30", "random")
OUTSIDE = ("mcts", "file:PATH")


def opponent_kind(text: str) -> str:
    """An --opponents entry: a name of OPPONENTS, ``mcts``, or ``file:PATH`` of an existing file."""
    if text in OPPONENTS or text == "mcts":
        return text
    if text.startswith("file:") and os.path.isfile(text[5:]):
        return text
    raise argparse.ArgumentTypeError(f"not an opponent: {text!r} (one of {', '.join(OPPONENTS + OUTSIDE)})")


def mcts_player(simulations: int, seed: int) -> Callable[[list[int]], int]:
    """OpenSpiel's MCTS on the game so far (a move list); returns its column."""
    import pyspiel

    game = pyspiel.load_game("connect_four")
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, simulations, 1000, True, seed, False)

    def play(moves: list[int]) -> int:
        state = game.new_initial_state()
        for column in moves:
            state.apply_action(column)
        return int(bot.step(state))

    return play


def board_moves(board: list[int], previous: list[int], columns: int = 7) -> list[int]:
    """The move list of ``board``, given the moves up to the previous call (one or two moves ago)."""
    heights = [0] * columns
    for c in previous:
        heights[c] += 1
    counts = [sum(1 for r in range(len(board) // columns) if board[r * columns + c]) for c in range(columns)]
    added = [c for c in range(columns) for _ in range(counts[c] - heights[c])]
    if len(added) > 1:
        raise RuntimeError("lost track of the game")
    return previous + added


class Tracker:
    """Follows the game's moves from the boards each agent sees; checks and times the solver's moves."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle, self.moves = oracle, []
        self.times: list[float] = []
        self.checked = self.kept_outcome = self.exact = 0
        self.mistakes: list[str] = []
        self.bank_left = 60.0  # the solver's overage bank at the game's end (Kaggle's referee keeps it)

    def sync(self, board: list[int]) -> None:
        self.moves = board_moves(board, self.moves)

    def record(self, move: int) -> None:
        self.moves = self.moves + [move]


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


def solver_seat(path: str, tracker: Tracker, opening: list[int]) -> Callable[[Any, Any], int]:
    callable_agent, _ = build_agent(path, {}, "connectx")

    def play(obs: Any, config: Any) -> int:
        tracker.sync(obs.board)
        if len(tracker.moves) < len(opening):
            tracker.record(opening[len(tracker.moves)])
            return tracker.moves[-1]
        start = time.perf_counter()
        move = callable_agent(obs, config)
        tracker.times.append(time.perf_counter() - start)
        scores = tracker.oracle.scores(tracker.moves)
        best = max(scores.values())
        tracker.checked += 1
        tracker.kept_outcome += sign(scores.get(move, -99)) == sign(best)
        tracker.exact += scores.get(move) == best
        if sign(scores.get(move, -99)) != sign(best):
            tracker.mistakes.append(f"{''.join(str(c + 1) for c in tracker.moves)}: played {move + 1}, {scores}")
        tracker.record(move)
        return move

    return play


def opponent_seat(kind: str, tracker: Tracker, rng: random.Random, opening: list[int],
                  random_ply: int | None, mcts_simulations: int = 5000) -> Callable[[Any, Any], int]:
    """The opponent; its move at ply ``random_ply`` (if any) is a random legal column."""
    builtin: Any = None
    if kind in ("negamax", "random"):
        from kaggle_environments.envs.connectx.connectx import agents as builtins
        builtin = builtins[kind]
    elif kind.startswith("file:"):
        builtin, _ = build_agent(kind[5:], {}, "connectx")
    elif kind == "mcts":
        search = mcts_player(mcts_simulations, rng.randrange(2**31))
        builtin = lambda obs, config: search(tracker.moves)  # noqa: E731

    def play(obs: Any, config: Any) -> int:
        tracker.sync(obs.board)
        ply = len(tracker.moves)
        legal = [c for c in range(7) if obs.board[c] == 0]
        if ply < len(opening):
            move = opening[ply]
        elif ply == random_ply or (kind == "perfect30" and rng.random() < 0.3):
            move = rng.choice(legal)
        elif builtin is not None:
            move = int(builtin(obs, config))
        else:
            scores = tracker.oracle.scores(tracker.moves)
            best = max(scores.values())
            move = rng.choice([c for c, s in scores.items() if s == best])
        tracker.record(move)
        return move

    return play


def play_game(path: str, kind: str, solver_first: bool, opening: list[int], random_ply: int | None,
              rng: random.Random, oracle: Oracle, mcts_simulations: int = 5000) -> tuple[int, Tracker]:
    """Plays one game; returns the solver's reward (1 win, 0 draw, -1 loss) and the tracker."""
    tracker = Tracker(oracle)
    ours = solver_seat(path, tracker, opening)
    theirs = opponent_seat(kind, tracker, rng, opening, random_ply, mcts_simulations)
    env = make("connectx", configuration={"actTimeout": 2})
    env.run([ours, theirs] if solver_first else [theirs, ours])
    seat = 0 if solver_first else 1
    final = env.steps[-1][seat]
    if final.status not in ("DONE",):
        raise RuntimeError(f"solver ended with status {final.status}")
    tracker.bank_left = float(final.observation.remainingOverageTime)
    return int(final.reward or 0), tracker


def build(out: str) -> None:
    subprocess.run([sys.executable, os.path.join(ROOT, "build_submission.py"), "solver", "-o", out],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--submission", help="a built solver submission (default: build one)")
    parser.add_argument("--games", type=int, default=4, help="games per opponent and seat")
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS), type=opponent_kind,
                        metavar="OPPONENT", help=f"from {', '.join(OPPONENTS + OUTSIDE)} (default: the first four)")
    parser.add_argument("--mcts-simulations", type=int, default=5000, help="simulations a move for mcts")
    parser.add_argument("--openings", choices=("empty", "suite"), default="empty",
                        help="full games (default), or games from the 4-ply suite (all but the perfect opponents)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        print("error: --games must be >= 1", file=sys.stderr)
        return 2
    if args.submission and not os.path.isfile(args.submission):
        print(f"error: no such file: {args.submission}", file=sys.stderr)
        return 2
    path = args.submission
    if path is None:
        path = os.path.join(tempfile.mkdtemp(), "submission.py")
        build(path)
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    loads = []
    for _ in range(5):
        start = time.perf_counter()
        get_last_callable(source, path=path)
        loads.append(time.perf_counter() - start)
    print(f"submission {path}: {len(source.encode()):,} bytes, loads in {statistics.median(loads):.3f} s (median of 5)")

    rng, oracle = random.Random(args.seed), Oracle()
    suite = read_suite(SUITE_6X7, Config())
    all_times: list[float] = []
    all_banks: list[float] = []
    all_checked = all_kept = 0
    print("| opponent | solver seat | games | W-D-L | moves checked | kept outcome | exact best | median s | p99 s "
          "| max s | least bank left s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in args.opponents:
        for solver_first in (True, False):
            results, times, checked, kept, exact, mistakes, banks = [], [], 0, 0, 0, [], []
            for game in range(args.games):
                opening, random_ply = [], None
                if args.openings == "suite" and not kind.startswith("perfect"):
                    opening = rng.choice(suite)
                elif kind == "negamax" or kind == "mcts" or kind.startswith("file:"):
                    random_ply = 1 if solver_first else 0
                elif kind.startswith("perfect") and not solver_first and game % 2 == 1:
                    random_ply = 0
                reward, tracker = play_game(path, kind, solver_first, opening, random_ply, rng, oracle,
                                            args.mcts_simulations)
                results.append(reward)
                times += tracker.times
                checked += tracker.checked
                kept += tracker.kept_outcome
                exact += tracker.exact
                mistakes += tracker.mistakes
                banks.append(tracker.bank_left)
            all_times += times
            all_banks += banks
            all_checked += checked
            all_kept += kept
            wdl = f"{results.count(1)}-{results.count(0)}-{results.count(-1)}"
            print(f"| {kind} | {'first' if solver_first else 'second'} | {args.games} | {wdl} | {checked} "
                  f"| {100 * kept / max(checked, 1):.1f} % | {100 * exact / max(checked, 1):.1f} % "
                  f"| {statistics.median(times):.3f} | {percentile(times, 0.99):.3f} | {max(times):.3f} | {min(banks):.1f} |",
                  flush=True)
            for line in mistakes:
                print(f"  outcome lost: {line}", file=sys.stderr)
    print(f"all solver moves: {len(all_times)}, median {statistics.median(all_times):.3f} s, "
          f"p99 {percentile(all_times, 0.99):.3f} s, max {max(all_times):.3f} s; "
          f"outcome lost in {all_checked - all_kept} of {all_checked} moves "
          f"({100 * (all_checked - all_kept) / max(all_checked, 1):.1f} %); "
          f"least bank left at a game's end {min(all_banks):.1f} s; "
          f"solver seconds per game {sum(all_times) / len(all_banks):.1f} on average")
    return 0


if __name__ == "__main__":
    sys.exit(main())
