#!/usr/bin/env python3
"""How long Pons' six test sets take to label exactly (the table in docs/accuracy.md#pons-test-sets).

For each set it labels a seeded sample of its positions (``--sample N --seed S``, as ``connectx accuracy
--positions pons --sample N --seed S`` takes it) with the solver and the opening book's scores, every column within
``--budget`` CPU seconds (a Pons set's early positions too), on one process with no cache (so nothing is reused),
and prints per set: the wall seconds per position (mean, median, max), the positions left out (not exact within the
budget), the labels that contradict the score Pons' file gives (0 expected), and the whole set's time on one core
projected from the mean.

    nice -n 10 python bench/pons_labelling.py [--sample 20] [--seed 1] [--budget 10] [--sets begin-hard end-easy]
"""

from __future__ import annotations

import argparse
import statistics
import time

from connectx_toolkit.measuring.pons import PONS_SETS
from connectx_toolkit.measuring.positions_file import PositionsSettings, read_positions


def measure(name: str, sample: int, seed: int, budget: float) -> dict:
    found = next(s for s in PONS_SETS if s.name == name)
    times: list[float] = []
    last = [time.perf_counter()]

    def told(done: int, total: int) -> None:
        now = time.perf_counter()
        times.append(now - last[0])
        last[0] = now

    benchmark = read_positions(found.path, PositionsSettings(budget=budget, early_budget=budget, cache="none"),
                               sample=sample, seed=seed, on_position=told)
    metadata = benchmark.metadata
    return {"set": name, "positions": len(times), "mean_s": statistics.fmean(times), "median_s": statistics.median(times),
            "max_s": max(times), "left_out": metadata["left_out"], "mismatches": len(metadata["score_mismatches"]),
            "whole_set_h": statistics.fmean(times) * metadata["file_games"] / 3600}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=10.0, help="CPU seconds a column (default 10)")
    parser.add_argument("--sets", nargs="+", default=[s.name for s in PONS_SETS], choices=[s.name for s in PONS_SETS])
    args = parser.parse_args()
    print(f"{'set':<14} {'positions':>9} {'mean s':>8} {'median s':>9} {'max s':>7} {'left out':>8} "
          f"{'mismatch':>8} {'whole set, h':>12}")
    for name in args.sets:
        row = measure(name, args.sample, args.seed, args.budget)
        print(f"{row['set']:<14} {row['positions']:>9} {row['mean_s']:>8.3f} {row['median_s']:>9.3f} {row['max_s']:>7.2f} "
              f"{row['left_out']:>8} {row['mismatches']:>8} {row['whole_set_h']:>12.2f}", flush=True)


if __name__ == "__main__":
    main()
