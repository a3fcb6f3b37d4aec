#!/usr/bin/env python3
"""How fast the game analysis runs and how much of each game it labels, with and without the compiled solver.

    python bench/analysis_throughput.py                 # 100 games each of solver-negamax and greedy-alphabeta
    python bench/analysis_throughput.py --games 30 --budget 3
    python bench/analysis_throughput.py --engines python --first 20   # the first 20 of the 100 games

For each pairing the games are played once with ``evaluate.py`` (default opening suite, seat-swapped
pairs; kept under --out, reused when the file exists), then analysed twice from an empty cache: with the
compiled solver (``analysis/fast_solver.py``) and with the agent's Python exact search only. Printed: games
analysed per minute (wall clock, all worker processes), CPU seconds per game (every process of the
analysis: the same on a loaded machine, where games/min is not), positions searched and timed out, and
the share of moves labelled (outcome before and after known) per ply band. The budget is CPU time of the
searching process, so the labels do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from connectx_toolkit.analysis.cache import PositionCache
from connectx_toolkit.analysis.settings import default_budget
from connectx_toolkit.analysis.games import read_games
from connectx_toolkit.analysis.labelling import label_games
from connectx_toolkit.analysis.solving import compiled_solver_available
from connectx_toolkit.analysis.summary import BANDS
from connectx_toolkit.analysis.table import OutcomeTable
from connectx_toolkit.analysis.workers import default_workers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PAIRINGS = (("solver", "negamax"), ("greedy", "alphabeta"))


def play(a: str, b: str, games: int, out: str) -> str:
    path = os.path.join(out, f"{a}-vs-{b}-{games}.jsonl")
    if not os.path.exists(path):
        started = time.monotonic()
        subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), a, b, "-n", str(games), "--results", path,
                        "--no-progress", "--json"], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        print(f"played {games} games of {a} vs {b} in {time.monotonic() - started:.0f} s -> {path}", flush=True)
    return path


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the analysis workers, once joined)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def measure(path: str, budget: float, workers: int, compiled: bool, table: bool, first: int = 0) -> None:
    games = read_games(path)
    if first:
        games = games[:first]
    stats: dict[str, int] = {}
    started, cpu_started = time.monotonic(), cpu_seconds()
    analyses = label_games(games, budget, PositionCache(None), workers, compiled, progress=True, stats=stats,
                           table=OutcomeTable() if table else None)
    elapsed, cpu = time.monotonic() - started, cpu_seconds() - cpu_started
    shares = []
    for low, high in BANDS:
        moves = [m for a in analyses for m in a.moves if low <= m.ply <= high]
        known = sum(m.known for m in moves)
        shares.append(f"{low}-{high}: {known / len(moves):6.1%} of {len(moves)}" if moves else f"{low}-{high}: -")
    from_8 = [m for a in analyses for m in a.moves if m.ply >= 8]
    losing = sum(m.loses_outcome for a in analyses for m in a.moves if m.agent)
    print(f"  {'compiled' if compiled else 'python  '}  {len(games)} games, {len(games) / elapsed * 60:6.1f} games/min "
          f"({elapsed:.0f} s; {cpu / len(games):.1f} CPU s/game; {stats['searched']} positions searched, {stats['timed_out']} timed out, "
          f"{stats['from_table']} from the outcome table)  labelled: "
          + "  ".join(shares) + f"  | ply >= 8: {sum(m.known for m in from_8) / len(from_8):.1%}; "
          f"outcome-losing moves found: {losing}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--budget", type=float, default=None,
                        help="CPU seconds per position (default: the default of --analysis-budget for each engine)")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "bench-analysis"))
    parser.add_argument("--engines", default="compiled,python", help="compiled,python (either or both)")
    parser.add_argument("--first", type=int, default=0, help="analyse only the first N games of each file (0: all)")
    parser.add_argument("--pairings", default=",".join(f"{a}-{b}" for a, b in PAIRINGS))
    parser.add_argument("--no-outcome-table", action="store_true", help="search positions up to ply 7 too (as before the table)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    engines = args.engines.split(",")
    if "compiled" in engines and not compiled_solver_available():
        print("the compiled solver is not installed (numba): measuring the Python search only")
        engines = [e for e in engines if e != "compiled"]
    load = os.getloadavg()[0]
    budgets = {engine: args.budget or default_budget(engine == "compiled") for engine in engines}
    print(f"{args.games} games per pairing, CPU s per position: "
          + ", ".join(f"{engine} {budget:g}" for engine, budget in budgets.items()) + f"; {args.workers} workers, "
          f"load average {load:.1f} at the start")
    for pairing in args.pairings.split(","):
        a, b = pairing.split("-")
        path = play(a, b, args.games, args.out)
        print(f"{a} vs {b}:")
        for engine in engines:
            measure(path, budgets[engine], args.workers, engine == "compiled", not args.no_outcome_table, args.first)
    return 0


if __name__ == "__main__":
    sys.exit(main())
