#!/usr/bin/env python3
"""Speed of the evaluator: the native referee against kaggle_environments', with agents in their own processes.

Prints, for one run on this machine:
- games/s of ``greedy`` vs ``greedy`` on 1 worker with ``--referee native`` and ``--referee kaggle``
  (same games: the shipped opening suite, same seeds) and their ratio;
- the evaluator's own CPU per game (everything: workers, referee, agent processes' protocol work)
  against the agents' own CPU per game (``greedy``'s function timed in this process on every position
  of the same games), and their ratio;
- games/s of ``alphabeta`` vs ``alphabeta`` under both referees (agent time dominates);
- games/s of ``greedy`` vs ``greedy`` with 2 workers against 1 (native referee);
- the same with ``--pin-cores`` (each worker and its agents on one CPU).

    nice -n 10 python bench/referee_speed.py [--games 300] [--kaggle-games 100] [--alphabeta-games 6]
"""

from __future__ import annotations

import argparse
import resource
import time

from agents.core import Config
from evaluation.agent_specs import resolve_agent
from evaluation.match import schedule
from evaluation.openings import load_suite
from evaluation.pool import run_games
from evaluation.observation import structify


def cpu_seconds() -> float:
    """CPU of this process and of every reaped descendant (workers reap their agents' processes)."""
    total = 0.0
    for kind in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(kind)
        total += usage.ru_utime + usage.ru_stime
    return total


def play(agent: str, games: int, workers: int, referee: str, pin_cores: bool = False) -> tuple[float, float, list]:
    """(games/s, CPU s per game, records) of ``games`` games of ``agent`` against itself."""
    spec = resolve_agent(agent)
    config = Config()
    tasks = schedule(spec, spec, games, config, load_suite(None, config), seed=1)
    run_games(tasks[:workers], workers=workers, on_record=lambda record: None, referee=referee,
              pin_cores=pin_cores)  # warm up
    records: list = []
    start, cpu = time.perf_counter(), cpu_seconds()
    run_games(tasks, workers=workers, on_record=records.append, referee=referee, pin_cores=pin_cores)
    elapsed = time.perf_counter() - start
    assert len(records) == games
    return games / elapsed, (cpu_seconds() - cpu) / games, records


def agent_cpu_per_game(records: list) -> float:
    """CPU seconds ``greedy`` needs per game for the moves of ``records``, called directly here."""
    import random

    from agents.greedy import agent

    config = structify({"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2, "timeout": 2})
    random.seed(0)
    start = time.process_time()
    for record in records:
        for number, step in enumerate(record.steps[len(record.opening):-1], start=len(record.opening)):
            seat = number % 2
            board = step[0]["observation"]["board"]
            agent(structify({"board": list(board), "mark": seat + 1, "step": number, "remainingOverageTime": 60}),
                  config)
    return (time.process_time() - start) / len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--kaggle-games", type=int, default=100)
    parser.add_argument("--alphabeta-games", type=int, default=6)
    args = parser.parse_args()

    native_rate, native_cpu, records = play("greedy", args.games, 1, "native")
    kaggle_rate, kaggle_cpu, _ = play("greedy", args.kaggle_games, 1, "kaggle")
    print(f"greedy vs greedy, 1 worker: native {native_rate:.1f} games/s, kaggle {kaggle_rate:.1f} games/s: "
          f"{native_rate / kaggle_rate:.1f}x")
    agents = agent_cpu_per_game(records)
    print(f"CPU per game: everything {native_cpu * 1000:.2f} ms (native), {kaggle_cpu * 1000:.2f} ms (kaggle); "
          f"the agents' own {agents * 1000:.2f} ms; evaluator's own work (native) "
          f"{(native_cpu - agents) * 1000:.2f} ms = {(native_cpu - agents) / agents:.1f}x the agents'")
    moves = sum(sum(seat) for record in records for seat in record.move_times) / len(records)
    print(f"the moves' durations as the referee times them (the issue's measure of the agents' time): "
          f"{moves * 1000:.2f} ms per game; evaluator's CPU beyond them {(native_cpu - moves) * 1000:.2f} ms = "
          f"{(native_cpu - moves) / moves:.1f}x")
    two_rate, _, _ = play("greedy", args.games, 2, "native")
    print(f"greedy vs greedy, native: 2 workers {two_rate:.1f} games/s = {two_rate / native_rate:.2f}x 1 worker")
    pinned_rate, pinned_cpu, _ = play("greedy", args.games, 1, "native", pin_cores=True)
    pinned_two, _, _ = play("greedy", args.games, 2, "native", pin_cores=True)
    print(f"with --pin-cores: 1 worker {pinned_rate:.1f} games/s ({pinned_rate / kaggle_rate:.1f}x kaggle), CPU "
          f"{pinned_cpu * 1000:.2f} ms per game, evaluator's own work {(pinned_cpu - agents) / agents:.1f}x the agents'; "
          f"2 workers {pinned_two:.1f} games/s = {pinned_two / pinned_rate:.2f}x")
    ab_native, _, _ = play("alphabeta", args.alphabeta_games, 1, "native")
    ab_kaggle, _, _ = play("alphabeta", args.alphabeta_games, 1, "kaggle")
    print(f"alphabeta vs alphabeta, 1 worker: native {ab_native:.3f} games/s, kaggle {ab_kaggle:.3f} games/s "
          f"({ab_native / ab_kaggle:.2f}x)")


if __name__ == "__main__":
    main()
