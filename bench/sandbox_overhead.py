#!/usr/bin/env python3
"""What ``--sandbox`` costs: games per second with and without it, on the evaluator's own engine.

For each pair (``random`` vs ``random``, ``solver`` vs ``negamax`` by default) the same scheduled games
(the shipped opening suite, seat-swapped pairs) are played by ``evaluation.pool.run_games`` on one
worker, plainly (forked workers) and sandboxed (bubblewrap workers), in interleaved rounds; the best
round of each is kept. Two figures per mode: games per second including the worker's start-up (a
sandboxed worker is a fresh interpreter that imports the referee; a forked one starts warm), as a user
sees it, and per game with the start-up excluded (first record to last). Wall-clock only: the CPU of
processes inside the sandbox is not reported back through bubblewrap's reaping.

    nice -n 10 python bench/sandbox_overhead.py [--random-games 200] [--solver-games 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from agents.core import Config  # noqa: E402
from evaluation.agents import resolve_agent  # noqa: E402
from evaluation.match import schedule  # noqa: E402
from evaluation.openings import load_suite  # noqa: E402
from evaluation.pool import run_games  # noqa: E402
from sandbox import require  # noqa: E402


def play(tasks: list, sandbox: bool, workers: int) -> tuple[float, float, list]:
    """(wall, steady wall) seconds per game and the records, by game id.

    Steady: from the first record to the last, per game after the first (worker start-up excluded)."""
    records: list = []
    stamps: list[float] = []

    def on_record(record) -> None:
        records.append(record)
        stamps.append(time.perf_counter())

    start = time.perf_counter()
    run_games(tasks, workers=workers, on_record=on_record, sandbox=sandbox)
    wall = time.perf_counter() - start
    assert len(records) == len(tasks)
    steady = (stamps[-1] - stamps[0]) / max(1, len(stamps) - 1)
    return wall / len(tasks), steady, sorted(records, key=lambda r: r.game_id)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random-games", type=int, default=200)
    parser.add_argument("--solver-games", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    require()
    config = Config()
    suite = load_suite(None, config, 0)
    pairs = [("random", "random", args.random_games), ("solver", "negamax", args.solver_games)]
    print(f"{args.workers} worker(s), best of {args.rounds} interleaved rounds, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f} at start")
    for a, b, games in pairs:
        tasks = schedule(resolve_agent(a), resolve_agent(b), games, config, suite, seed=1)
        best: dict[bool, tuple[float, float]] = {}
        moves: dict[bool, list] = {False: [], True: []}
        for _ in range(args.rounds):
            for sandbox in (False, True):
                *figures, records = play(tasks, sandbox, args.workers)
                old = best.get(sandbox, (float("inf"),) * 2)
                best[sandbox] = tuple(min(o, f) for o, f in zip(old, figures))
                moves[sandbox].append([(r.moves, r.statuses) for r in records])
        boxed = all(run == moves[False][0] for run in moves[True])
        plain = all(run == moves[False][0] for run in moves[False])
        # an agent whose search follows the clock (the solver) may differ from run to run even unsandboxed
        print(f"{a} vs {b}, {games} games: sandboxed runs identical to the first plain run: {boxed}; "
              f"plain runs identical to each other: {plain}")
        for sandbox, label in ((False, "plain"), (True, "sandbox")):
            wall, steady = best[sandbox]
            print(f"  {label:8s} {1 / wall:7.2f} games/s ({wall * 1000:8.1f} ms/game); "
                  f"start-up excluded {1 / steady:7.2f} games/s ({steady * 1000:8.1f} ms/game)")
        overhead = [100 * (best[True][i] / best[False][i] - 1) for i in range(2)]
        print(f"  sandbox overhead {overhead[0]:+.1f} % per game with the start-up, {overhead[1]:+.1f} % without")
    print(f"load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
