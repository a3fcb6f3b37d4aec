#!/usr/bin/env python3
"""What ``--sandbox`` costs: games per second with and without it, on the evaluator's own engine.

For each pair (``random`` vs ``random``, ``solver`` vs ``negamax`` by default) the same scheduled games
(the shipped opening suite, seat-swapped pairs) are played by ``evaluation.scheduling.pool.run_games`` on one
worker, plainly (forked workers) and sandboxed (bubblewrap workers), in interleaved rounds; the best
round of each is kept. Two figures per mode: games per second including the worker's start-up (a
sandboxed worker is a fresh interpreter that imports the referee; a forked one starts warm), as a user
sees it, and per game with the start-up excluded (first record to last).

Wall clock on a shared machine moves with everyone else's load, and the CPU of processes inside the
sandbox does not come back through bubblewrap's reaping; so a second figure is the CPU time per game
measured inside the playing process itself: a fresh interpreter plays the same games one after another
(``evaluation.scheduling.runner.play_task``, the worker's own loop body), plainly and inside a sandbox.

    nice -n 10 python bench/sandbox_overhead.py [--random-games 200] [--solver-games 8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.openings import load_suite
from connectx_toolkit.evaluation.scheduling.pool import run_games
from connectx_toolkit.sandbox import Sandbox, require


def play(tasks: list, sandbox: bool, workers: int) -> tuple[float, float, list]:
    """(wall, steady wall) seconds per game and the records, by game id.

    Steady: from the first record to the last, per game after the first (worker start-up excluded)."""
    records: list = []
    stamps: list[float] = []

    def on_record(record) -> None:
        records.append(record)
        stamps.append(time.perf_counter())

    start = time.perf_counter()
    run_games(tasks, on_record=on_record, settings=PlaySettings(workers=workers, sandbox=sandbox))
    wall = time.perf_counter() - start
    assert len(records) == len(tasks)
    steady = (stamps[-1] - stamps[0]) / max(1, len(stamps) - 1)
    return wall / len(tasks), steady, sorted(records, key=lambda r: r.game_id)


def cpu_in_process(a: str, b: str, games: int) -> None:
    """Child mode: play the pair's games here, one after another; print CPU seconds per game."""
    from connectx_toolkit.evaluation.scheduling.runner import play_task
    from connectx_toolkit.evaluation.scheduling.worker import preload

    preload()
    config = Config()
    tasks = schedule(resolve_agent(a), resolve_agent(b), games, load_suite(None, config, 0), PlaySettings(seed=1))
    start = time.process_time()
    for task in tasks:
        play_task(task)
    print((time.process_time() - start) / games)


def cpu_per_game(a: str, b: str, games: int, sandbox: bool) -> float:
    command = [sys.executable, os.path.abspath(__file__), "--child", a, b, str(games)]
    run = Sandbox().run(command, capture_output=True, text=True) if sandbox else \
        subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"the {'sandboxed ' if sandbox else ''}child failed: {run.stderr.strip()[-500:]}")
    return float(run.stdout.split()[-1])


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        a, b, games = sys.argv[2], sys.argv[3], int(sys.argv[4])
        cpu_in_process(a, b, games)
        return 0
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
        tasks = schedule(resolve_agent(a), resolve_agent(b), games, suite, PlaySettings(seed=1))
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
        cpu = {False: float("inf"), True: float("inf")}
        for _ in range(args.rounds):
            for sandbox in (False, True):
                cpu[sandbox] = min(cpu[sandbox], cpu_per_game(a, b, games, sandbox))
        print(f"  CPU per game inside the playing process: plain {cpu[False] * 1000:.1f} ms, sandboxed "
              f"{cpu[True] * 1000:.1f} ms ({100 * (cpu[True] / cpu[False] - 1):+.1f} %)")
    print(f"load {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
