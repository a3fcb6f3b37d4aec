#!/usr/bin/env python3
"""How long the compiled solver needs for the off-book positions from ply 8 of saved games.

    python bench/analysis_hard_positions.py results/bench-analysis/solver-vs-negamax-100.jsonl
    python bench/analysis_hard_positions.py FILE --budget 60 --over 6

Every position from ply 8 to 15 of the games that the opening book does not answer (and that is not
decided at once) is solved once, last ply first in each game as the analysis does, by one compiled-solver
worker under ``--budget`` CPU seconds. Printed: how many are solved within 3, 6, 10, 15, 20 and 30 CPU
seconds, and the slowest. Then, for each position over ``--over`` seconds, the CPU time a fresh solver
needs for the outcome class alone (null-window searches around 0) and then for the exact score: the
analysis asks for the class first, so a position stopped between the two keeps its class.
"""

from __future__ import annotations

import argparse
import sys
import time


from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.opening_book import book_move
from connectx_toolkit.analysis.games import read_games
from connectx_toolkit.analysis.solving import WARM_UP
from connectx_toolkit.analysis.values import trivial_value
from connectx_toolkit.analysis.workers import Job, SolverPool

STANDARD = Config()


def off_book_jobs(path: str, first: int, last: int) -> list[list[Job]]:
    seen: set[int] = set()
    games = []
    for game in read_games(path):
        jobs = []
        for ply in range(min(len(game.moves) - 1, last), first - 1, -1):
            position = Position.from_moves(game.moves[:ply], STANDARD)
            key = position.canonical_key()
            if key in seen or book_move(position) is not None or trivial_value(position) is not None:
                continue
            seen.add(key)
            jobs.append(Job(key, tuple(game.moves[:ply])))
        games.append(jobs)
    return games


def outcome_then_exact(moves: str) -> tuple[str, float, int, float]:
    """The outcome class and the CPU seconds it took, then the exact score and its seconds (fresh table)."""
    from connectx_toolkit.analysis import fast_solver

    solver = fast_solver.Solver()
    solver.solve(WARM_UP)
    started = time.process_time()
    outcome = {1: "win", 0: "draw", -1: "loss"}[solver.outcome(moves)]
    class_seconds = time.process_time() - started
    started = time.process_time()
    score = solver.solve(moves)
    return outcome, class_seconds, score, time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="an evaluate.py results file (6x7)")
    parser.add_argument("--budget", type=float, default=60.0, help="CPU seconds per position (default 60)")
    parser.add_argument("--over", type=float, default=6.0, help="look closer at positions slower than this")
    parser.add_argument("--plies", default="8-15", help="first-last ply (default 8-15)")
    args = parser.parse_args()
    first, last = (int(p) for p in args.plies.split("-"))
    games = off_book_jobs(args.results, first, last)
    results: list[tuple[int, float, bool, str]] = []
    started = time.monotonic()
    SolverPool(1, compiled=True, budget=args.budget).run(
        games, lambda job, value: results.append(
            (len(job.moves), value.seconds, value.timed_out, "".join(str(c + 1) for c in job.moves))),
        known=lambda key: False)
    results.sort(key=lambda r: -r[1])
    print(f"{len(results)} off-book positions at plies {first}-{last}, budget {args.budget:g} CPU s, "
          f"{time.monotonic() - started:.0f} s; over the budget: {sum(r[2] for r in results)}")
    for limit in (3, 6, 10, 15, 20, 30):
        print(f"  solved within {limit:>2} CPU s: {sum(1 for _, s, t, _m in results if s <= limit and not t)}")
    print("  slowest (ply, CPU s):", ", ".join(f"{m} ({p}, {s:.1f})" for p, s, _t, m in results[:8]))
    slow = [m for _p, s, t, m in results if s > args.over or t]
    if slow:
        print(f"over {args.over:g} s, asked again with a fresh table: outcome class first, then the exact score")
    for moves in slow:
        outcome, class_seconds, score, exact_seconds = outcome_then_exact(moves)
        print(f"  {moves:<12} {outcome:<4} in {class_seconds:6.2f} s, then score {score:+d} in {exact_seconds:6.2f} s",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
