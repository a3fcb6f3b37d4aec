#!/usr/bin/env python3
"""Throughput of the evaluation engine on cheap agents (Kaggle's "random" against itself).

Prints two figures:
- overhead: seconds per game of ``run_games`` on 1 worker against a raw ``env.run`` loop in one process
  (same games: same openings-free empty board, same agents), as a percentage;
- scaling: games per second with 2 workers divided by games per second with 1 worker.

    nice -n 10 python bench/evaluate_throughput.py [--games 400] [--agent random]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.pool import run_games


def cpu_seconds(who: int | None = None) -> float:
    """CPU time of this process and/or its reaped children (robust to other load on the machine)."""
    total = 0.0
    for kind in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        if who is None or who == kind:
            usage = resource.getrusage(kind)
            total += usage.ru_utime + usage.ru_stime
    return total


def raw_env_run(agent: str, games: int) -> tuple[float, float]:
    """(wall, CPU) seconds per game of ``make("connectx").run`` in a loop (kaggle_environments alone)."""
    from kaggle_environments import make

    make("connectx").run([agent, agent])  # warm up
    start, cpu = time.perf_counter(), cpu_seconds()
    for _ in range(games):
        make("connectx").run([agent, agent])
    return (time.perf_counter() - start) / games, (cpu_seconds() - cpu) / games


def engine(agent: str, games: int, workers: int) -> tuple[float, float]:
    """(wall, CPU) seconds per game of the engine (isolated workers, records collected in the parent)."""
    spec = resolve_agent(agent)
    tasks = schedule(spec, spec, games, [[]], PlaySettings(seed=1))
    settings = PlaySettings(workers=workers)
    run_games(tasks[:workers], on_record=lambda record: None, settings=settings)  # warm up the fork path
    received = []
    start, cpu, parent = time.perf_counter(), cpu_seconds(), cpu_seconds(resource.RUSAGE_SELF)
    run_games(tasks, on_record=received.append, settings=settings)
    elapsed = time.perf_counter() - start
    assert len(received) == games
    PARENT_CPU.append((cpu_seconds(resource.RUSAGE_SELF) - parent) / games)
    return elapsed / games, (cpu_seconds() - cpu) / games


def burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_speedup(work: int = 3_000_000) -> float:
    """What 2 processes gain over 1 on this machine right now, for pure CPU work (2 idle cores: 2.0)."""
    import multiprocessing

    def timed(processes: int) -> float:
        context = multiprocessing.get_context("fork")
        start = time.perf_counter()
        jobs = [context.Process(target=burn, args=(work,)) for _ in range(processes)]
        for job in jobs:
            job.start()
        for job in jobs:
            job.join()
        return time.perf_counter() - start

    return 2 * timed(1) / timed(2)


PARENT_CPU: list[float] = []  # the parent's own CPU per game: the part that does not scale with workers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--agent", default="random")
    parser.add_argument("--rounds", type=int, default=3, help="repeat and keep the best of each (noisy machines)")
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, float]]] = {"raw env.run, 1 process": [], "engine, 1 worker": [], "engine, 2 workers": []}
    machine = []
    for _ in range(args.rounds):  # interleaved, so that a change in the machine's load hits all alike
        runs["raw env.run, 1 process"].append(raw_env_run(args.agent, args.games))
        runs["engine, 1 worker"].append(engine(args.agent, args.games, 1))
        runs["engine, 2 workers"].append(engine(args.agent, args.games, 2))
        machine.append(machine_speedup())
    wall = {name: min(w for w, _ in values) for name, values in runs.items()}
    cpu = {name: min(c for _, c in values) for name, values in runs.items()}
    load = os.getloadavg()[0]
    print(f"agent {args.agent!r}, {args.games} games, best of {args.rounds}, {os.cpu_count()} cores, load {load:.1f}")
    for name in runs:
        print(f"{name:24s}: {wall[name] * 1000:7.2f} ms/game wall {1 / wall[name]:7.1f} games/s, "
              f"{cpu[name] * 1000:7.2f} ms/game CPU")
    raw, one, two = wall.values()
    raw_cpu, one_cpu, _ = cpu.values()
    print(f"per-game overhead over raw env.run: {100 * (one / raw - 1):+.1f} % wall, {100 * (one_cpu / raw_cpu - 1):+.1f} % CPU")
    print(f"speed-up of 2 workers over 1: {one / two:.2f}x wall clock; "
          f"pure CPU work gets {max(machine):.2f}x from 2 processes on this machine now (2 idle cores: 2.00x)")
    parent = min(PARENT_CPU)
    print(f"parent CPU per game: {parent * 1000:.2f} ms of {one_cpu * 1000:.2f} ms "
          f"({100 * parent / one_cpu:.1f} %); the workers' share is what 2 workers split")
    return 0


if __name__ == "__main__":
    sys.exit(main())
