#!/usr/bin/env python3
"""Throughput of ``connectx accuracy``: positions per second and the cost of asking them as games ask them.

For each agent (default ``greedy``) and each worker count (default 1 and 2) it asks every position of the shipped
benchmark (``measuring.play``: one evaluator game per source game, the agent in both seats, the game's moves
forced) and prints:
- positions per second (wall clock);
- the agent's own time per position (what Kaggle's clock measures around each call, summed over the answers);
- the overhead per position beside it: (wall seconds x workers - the agent's own seconds) / positions, which is
  everything else (process starts and loads, the socket round trips, the referee, the forced plies that are not
  scored, the free moves after a game's last position);
- the accuracy found (so a run shows it measured what it should).

    nice -n 10 python bench/accuracy_throughput.py [--agent greedy] [--workers 1 2] [--games N]
"""

from __future__ import annotations

import argparse
import time

from connectx_toolkit.measuring.benchmark import load_benchmark
from connectx_toolkit.measuring.play import play_benchmark
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.settings import PlaySettings


def measure(agent: str, workers: int, games: int | None) -> dict:
    benchmark = load_benchmark()
    if games:
        benchmark = benchmark.only(game.id for game in benchmark.games[:games])
    spec = resolve_agent(agent)
    started = time.monotonic()
    (answers,) = play_benchmark([spec], benchmark, PlaySettings(workers=workers))
    wall = time.monotonic() - started
    own = sum(answer.seconds or 0.0 for answer in answers)
    return {"agent": agent, "workers": workers, "positions": len(answers), "games": len(benchmark.games),
            "wall_s": wall, "positions_per_s": len(answers) / wall, "agent_s_per_position": own / len(answers),
            "overhead_s_per_position": (wall * workers - own) / len(answers),
            "accuracy": sum(answer.accurate for answer in answers) / len(answers)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", action="append", help="agent(s) to time (default greedy)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--games", type=int, default=None, help="the benchmark's first N games only")
    args = parser.parse_args()
    print(f"{'agent':<28} {'workers':>7} {'positions':>9} {'wall s':>8} {'pos/s':>8} {'agent ms/pos':>12} "
          f"{'overhead ms/pos':>15} {'accuracy':>8}")
    for agent in args.agent or ["greedy"]:
        for workers in args.workers:
            row = measure(agent, workers, args.games)
            print(f"{row['agent']:<28} {row['workers']:>7} {row['positions']:>9} {row['wall_s']:>8.1f} "
                  f"{row['positions_per_s']:>8.1f} {1000 * row['agent_s_per_position']:>12.2f} "
                  f"{1000 * row['overhead_s_per_position']:>15.2f} {row['accuracy']:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
