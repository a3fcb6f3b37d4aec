#!/usr/bin/env python3
"""What a book of a given depth costs to build: tree sizes per ply and solver CPU time per position.

    nice -n 10 python bench/book_cost.py [--tree-depth 12] [--cost-plies 13 12 11 10 9 8 7] [--per-ply 3]

1. Tree sizes: the canonical positions the agent must answer at each ply (both seats, the agent's
   own moves fixed, the opponent's arbitrary), as tools/make_book.py enumerates them. The agent's
   moves are taken from bitbully (dev-only) with the builder's tie-break, most central first: both
   solvers give the same exact scores, so this is the builder's tree, counted without building it.
2. Cost: CPU seconds (process time, so other jobs on the machine count less) for the numba solver to
   find the exact best move of positions on strong-play lines (oracle_strong), a fresh table per ply.
Prints both tables and, for the plies measured, their product. Figures only.
"""

from __future__ import annotations

import argparse
import sys
import time

from connectx_toolkit.agents.core import Position
from tools.oracle import Oracle, load_oracle_set
from tools.make_book import STANDARD, canonical_position, children


def tree_sizes(depth: int) -> list[int]:
    """Agent positions to answer at each ply 0..depth (canonical, both seats)."""
    oracle = Oracle()

    def best(position: Position) -> int:
        scores = oracle.position_scores(position)
        top = max(scores.values())
        return min((c for c in scores if scores[c] == top), key=lambda c: (abs(c - 3), c))

    trees = [{0: Position(STANDARD)}, {0: Position(STANDARD)}]
    sizes = []
    for ply in range(depth + 1):
        seat = ply % 2
        sizes.append(len(trees[seat]))
        for s in (0, 1):
            grown = {}
            for position in trees[s].values():
                if s == seat:
                    move = best(position)
                    nexts = [] if position.is_winning_move(move) else [position.played(move)]
                else:
                    nexts = children(position)
                for child in map(canonical_position, nexts):
                    grown[child.key()] = child
            trees[s] = grown
    return sizes


def cost_per_position(ply: int, count: int) -> float:
    from connectx_toolkit.analysis.fast_solver import Solver

    solver = Solver()
    entries = load_oracle_set("strong", ply, ply)[:count]
    started = time.process_time()
    for entry in entries:
        column, score = solver.best_move(entry.moves)
        if entry.scores[column] != entry.best_score:
            raise AssertionError(f"wrong best move for {entry.moves}")
    return (time.process_time() - started) / len(entries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree-depth", type=int, default=12)
    parser.add_argument("--cost-plies", type=int, nargs="*", default=[13, 12, 11, 10, 9, 8, 7])
    parser.add_argument("--per-ply", type=int, default=3)
    args = parser.parse_args()
    if not 0 <= args.tree_depth <= 20 or any(not 4 <= p <= 41 for p in args.cost_plies):
        print("book_cost: need --tree-depth in 0..20 and --cost-plies in 4..41", file=sys.stderr)
        return 2
    sizes = tree_sizes(args.tree_depth)
    costs = {ply: cost_per_position(ply, args.per_ply) for ply in args.cost_plies}
    print("| ply | positions to answer | CPU s / position | CPU s |\n|---|---|---|---|")
    for ply in range(max([len(sizes) - 1, *costs]) + 1):
        size, cost = sizes[ply] if ply < len(sizes) else None, costs.get(ply)
        total = "" if size is None or cost is None else f"{cost * size:.0f}"
        print(f"| {ply} | {'' if size is None else size} | {'' if cost is None else f'{cost:.2f}'} | {total} |")
    print(f"positions up to ply {args.tree_depth}: {sum(sizes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
