#!/usr/bin/env python3
"""The solver agent on labelled positions: per ply, how often its move keeps the outcome / is exact.

    nice -n 10 python bench/solver_oracle.py [--set random] [--plies 0-41] [--budget 0.8] [--limit N]

Each position of ``tests/data/oracle_<set>.jsonl`` (labels by bitbully, see tools/make_oracle_set.py)
is given to ``agents.solver.choose`` with a fresh engine (no transposition table carried over) and
the move budget Kaggle's default time rules give (0.8 s). Prints a Markdown table per ply group:
positions, moves keeping the best outcome class, moves with the exact best score, and the
median / max seconds per move. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from agents import solver  # noqa: E402
from agents.solving.time_manager import MoveClock  # noqa: E402
from tests.oracle import load_oracle_set  # noqa: E402

GROUPS = ((0, 11), (12, 15), (16, 19), (20, 23), (24, 29), (30, 41))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="random", help="oracle set name (tests/data/oracle_<name>.jsonl)")
    parser.add_argument("--plies", default="0-41", help="ply range, e.g. 12-23")
    parser.add_argument("--budget", type=float, default=0.8, help="seconds per move")
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions per ply (0: all)")
    args = parser.parse_args(argv)
    try:
        low, _, high = args.plies.partition("-")
        first, last = int(low), int(high or low)
        entries = load_oracle_set(args.set, first, last)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.limit:
        kept, per_ply = [], {}
        for entry in entries:
            per_ply[entry.ply] = per_ply.get(entry.ply, 0) + 1
            if per_ply[entry.ply] <= args.limit:
                kept.append(entry)
        entries = kept
    rows: dict[tuple[int, int], list[tuple[bool, bool, float]]] = {}
    for entry in entries:
        solver._engines.clear()
        position = entry.position()
        start = time.perf_counter()
        move = solver.choose(position, MoveClock(args.budget))
        seconds = time.perf_counter() - start
        group = next(g for g in GROUPS if g[0] <= entry.ply <= g[1])
        rows.setdefault(group, []).append((entry.keeps_outcome(move), entry.scores[move] == entry.best_score, seconds))
    print(f"oracle set {args.set!r}, plies {args.plies}, {args.budget} s per move")
    print("| plies | positions | keeps outcome | exact best score | median s | max s |")
    print("|---|---|---|---|---|---|")
    for group in sorted(rows):
        results = rows[group]
        n = len(results)
        kept = sum(r[0] for r in results)
        exact = sum(r[1] for r in results)
        times = [r[2] for r in results]
        print(f"| {group[0]}-{group[1]} | {n} | {kept} ({100 * kept / n:.1f} %) | {exact} ({100 * exact / n:.1f} %) "
              f"| {statistics.median(times):.3f} | {max(times):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
