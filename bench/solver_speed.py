#!/usr/bin/env python3
"""How fast the pure-Python exact solver is, next to bitbully (C++) on the same positions.

    nice -n 10 python bench/solver_speed.py [--plies 16 20 24 28] [--positions 20] [--seed 0]

Positions come from random play (no move that wins at once, so every game lasts to the asked ply;
none with a win available to the player to move). Each position is solved from scratch by
``agents.solver_engine.negamax.ExactSolver.solve`` (a fresh transposition table) and by bitbully's MTD(f)
without its opening book; the two scores must agree. Per ply: positions solved per second, median
and maximum nodes per position, nodes per second (process CPU time, so other jobs on the machine
count less), and the ratios bitbully / ours. Prints a Markdown table; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.negamax import ExactSolver
from tools.oracle import Oracle  # dev-only: never imported by agents/
from tools.sample_positions import quiet_game


def random_positions(ply: int, count: int, rng: random.Random) -> list[list[int]]:
    """``count`` move lists of ``ply`` random moves, none ending the game, the mover unable to win at once."""
    found: list[list[int]] = []
    while len(found) < count:
        moves, position = quiet_game(rng, ply)
        if len(moves) == ply and not position.immediate_wins():
            found.append(moves)
    return found


def measure(ply: int, games: list[list[int]]) -> dict[str, float]:
    ours_nodes, ours_time, theirs_nodes, theirs_time, disagreements = [], 0.0, [], 0.0, 0
    oracle = Oracle(book=False)
    engine = oracle.solver
    for moves in games:
        solver = ExactSolver(Config())
        start = time.process_time()
        score = solver.solve(Position.from_moves(moves))
        ours_time += time.process_time() - start
        ours_nodes.append(solver.nodes)

        engine.reset_transposition_table()
        engine.reset_node_counter()
        board = oracle.board(moves)
        start = time.process_time()
        reference = engine.mtdf(board)
        theirs_time += time.process_time() - start
        theirs_nodes.append(engine.get_node_counter())
        disagreements += score != reference
    n = len(games)
    return {
        "ply": ply, "positions": n, "disagree": disagreements,
        "ours_pos_s": n / ours_time, "ours_med": statistics.median(ours_nodes), "ours_max": max(ours_nodes),
        "ours_nodes_s": sum(ours_nodes) / ours_time,
        "bb_pos_s": n / max(theirs_time, 1e-9), "bb_med": statistics.median(theirs_nodes),
        "bb_max": max(theirs_nodes), "bb_nodes_s": sum(theirs_nodes) / max(theirs_time, 1e-9),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plies", type=int, nargs="+", default=[16, 20, 24, 28])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.positions < 1 or any(not 0 <= p <= 40 for p in args.plies):
        print("error: --positions must be >= 1 and every ply in 0..40", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    print("| ply | positions | ours pos/s | ours nodes median (max) | ours nodes/s "
          "| bitbully pos/s | bitbully nodes median (max) | bitbully nodes/s | time ratio | node ratio | disagree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for ply in args.plies:
        r = measure(ply, random_positions(ply, args.positions, rng))
        print(f"| {ply} | {r['positions']} | {r['ours_pos_s']:.1f} | {r['ours_med']:.0f} ({r['ours_max']:.0f}) "
              f"| {r['ours_nodes_s']:.0f} | {r['bb_pos_s']:.0f} | {r['bb_med']:.0f} ({r['bb_max']:.0f}) "
              f"| {r['bb_nodes_s']:.0f} | {r['bb_pos_s'] / r['ours_pos_s']:.0f}x "
              f"| {r['ours_med'] / max(r['bb_med'], 1):.1f} | {r['disagree']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
