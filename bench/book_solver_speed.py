#!/usr/bin/env python3
"""Speed of the offline numba solver (analysis/fast_solver.py) against bitbully on the same positions.

    nice -n 10 python bench/book_solver_speed.py [--set random] [--plies 16-41] [--limit 200]

Both solvers score every move of each oracle position exactly (bitbully without its opening book),
with the transposition table cleared before each position. Prints positions/s, nodes/s and the
ratios; also checks that both agree with the stored labels. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time

from tools.oracle import Oracle, load_oracle_set
from connectx_toolkit.analysis.fast_solver import Solver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="random", choices=("random", "strong"))
    parser.add_argument("--plies", default="16-41")
    parser.add_argument("--limit", type=int, default=200)
    args = parser.parse_args()
    try:
        low, _, high = args.plies.partition("-")
        low, high = int(low), int(high or low)
    except ValueError:
        print(f"book_solver_speed: bad --plies {args.plies!r}", file=sys.stderr)
        return 2
    entries = load_oracle_set(args.set, low, high)
    entries = entries[:: max(1, len(entries) // args.limit)][: args.limit]
    ours = Solver()
    ours.score_moves(entries[-1].moves)  # compile before timing
    oracle = Oracle(book=False)
    theirs = oracle.solver

    our_time = our_nodes = their_time = their_nodes = wrong = 0
    for entry in entries:
        ours.reset()
        started = time.perf_counter()
        scores = ours.score_moves(entry.moves)
        our_time += time.perf_counter() - started
        our_nodes += ours.nodes
        wrong += tuple(scores) != entry.scores

        theirs.reset_transposition_table()
        theirs.reset_node_counter()
        board = oracle.board([int(ch) - 1 for ch in entry.moves])
        started = time.perf_counter()
        by_column = theirs.score_all_moves(board)
        their_time += time.perf_counter() - started
        their_nodes += theirs.get_node_counter()
        wrong += tuple(by_column.get(c) for c in range(7)) != entry.scores

    n = len(entries)
    print(f"{n} positions of oracle_{args.set}, plies {low}-{high}; disagreements with labels: {wrong}")
    print(f"{'solver':<12}{'positions/s':>14}{'nodes/s':>14}{'nodes/position':>16}")
    print(f"{'fast_solver':<12}{n / our_time:>14.1f}{our_nodes / our_time:>14.0f}{our_nodes / n:>16.0f}")
    print(f"{'bitbully':<12}{n / their_time:>14.1f}{their_nodes / their_time:>14.0f}{their_nodes / n:>16.0f}")
    print(f"ratio fast_solver/bitbully: positions/s {their_time / our_time:.2f}, "
          f"nodes/s {(our_nodes / our_time) / (their_nodes / their_time):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
