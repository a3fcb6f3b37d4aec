#!/usr/bin/env python3
"""Speed of the evaluator: the native referee against kaggle_environments', with agents in their own processes.

Prints, for one run on this machine:
- games/s of ``greedy`` vs ``greedy`` on 1 worker with ``--referee native`` and ``--referee kaggle``
  (same games: the shipped opening suite, same seeds) and their ratio;
- the evaluator's own CPU per game (everything: the evaluator, its workers, the referee, the agent
  processes' protocol work) against the agents' own CPU per game (``greedy``'s function called in this
  process on every position of the same games, its arguments made beforehand, as Kaggle times a move),
  and their ratio;
- games/s of ``greedy`` vs ``greedy`` with 2 workers against 1 (native referee);
- the same with ``--no-pin-cores`` (the kernel places the workers and agents);
- games/s of ``alphabeta`` vs ``alphabeta`` under both referees (agent time dominates).

    nice -n 10 python bench/referee_speed.py [--games 2000] [--kaggle-games 100] [--alphabeta-games 6]
"""

from __future__ import annotations

import argparse
import resource
import time
from typing import NamedTuple

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.openings import load_suite
from connectx_toolkit.evaluation.scheduling.pool import run_games
from connectx_toolkit.evaluation.seats.observation import structify


def cpu_seconds() -> float:
    """CPU of this process and of every reaped descendant (workers reap their agents' processes)."""
    total = 0.0
    for kind in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(kind)
        total += usage.ru_utime + usage.ru_stime
    return total


class Run(NamedTuple):
    """One run of games: ``rate`` in games/s, counted from the first game's end to the last's (the
    start-up of the workers and their agents' processes, about 25 ms, stays out of it, as it does out
    of ``--json``'s ``games_per_s``); ``cpu`` seconds per game; ``elapsed``: the whole run's wall seconds."""

    rate: float
    cpu: float
    records: list
    elapsed: float


def play(agent: str, games: int, workers: int, referee: str, pin_cores: bool = True) -> Run:
    """``games`` games of ``agent`` against itself."""
    spec = resolve_agent(agent)
    config = Config()
    tasks = schedule(spec, spec, games, load_suite(None, config), PlaySettings(seed=1))
    settings = PlaySettings(workers=workers, referee=referee, pin_cores=pin_cores)
    run_games(tasks[:workers], on_record=lambda record: None, settings=settings)  # warm up
    records: list = []
    ends: list[float] = []

    def on_record(record) -> None:
        records.append(record)
        ends.append(time.perf_counter())

    cpu, start = cpu_seconds(), time.perf_counter()
    run_games(tasks, on_record=on_record, settings=settings)
    elapsed = time.perf_counter() - start
    assert len(records) == games
    return Run((games - 1) / (ends[-1] - ends[0]), (cpu_seconds() - cpu) / games, records, elapsed)


def agent_cpu_per_game(records: list) -> tuple[float, float]:
    """CPU seconds ``greedy`` needs per game for the moves of ``records``, called directly here: the call
    alone (its arguments made beforehand, as Kaggle times a move), and with the making of its arguments."""
    import random

    from connectx_toolkit.agents.greedy import agent

    config = structify({"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2, "timeout": 2})
    observations = []
    for record in records:
        for number, step in enumerate(record.steps[len(record.opening):-1], start=len(record.opening)):
            observations.append({"board": list(step[0]["observation"]["board"]), "mark": number % 2 + 1,
                                 "step": number, "remainingOverageTime": 60})
    random.seed(0)
    start = time.process_time()
    for observation in observations:
        agent(structify(observation), config)
    with_arguments = time.process_time() - start
    ready = [structify(observation) for observation in observations]
    random.seed(0)
    start = time.process_time()
    for observation in ready:
        agent(observation, config)
    alone = time.process_time() - start
    return alone / len(records), with_arguments / len(records)


TIMED_GREEDY = """
import time

from agents.greedy import agent as greedy


def agent(obs, config):
    start = time.thread_time()
    move = greedy(obs, config)
    print(f"cpu {time.thread_time() - start:.9f}")
    return move
"""


def agent_cpu_in_games(games: int) -> float:
    """CPU seconds per game of ``greedy``'s calls timed inside the agents' processes during the same games
    (each call reports its own thread CPU time; caches as cold as the evaluator leaves them)."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "timed_greedy.py")
        with open(path, "w") as handle:
            handle.write(TIMED_GREEDY)
        spec = resolve_agent(path)
        config = Config()
        tasks = schedule(spec, spec, games, load_suite(None, config), PlaySettings(seed=1))
        records: list = []
        run_games(tasks, on_record=records.append, settings=PlaySettings(workers=1))
    total = sum(float(line.split()[1]) for record in records for seat in record.logs for line in seat
                if line.startswith("cpu "))
    return total / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--kaggle-games", type=int, default=100)
    parser.add_argument("--alphabeta-games", type=int, default=6)  # at least 2
    args = parser.parse_args()

    native_rate, native_cpu, records, _ = play("greedy", args.games, 1, "native")
    kaggle_rate, kaggle_cpu, _, _ = play("greedy", args.kaggle_games, 1, "kaggle")
    print(f"greedy vs greedy, 1 worker: native {native_rate:.1f} games/s, kaggle {kaggle_rate:.1f} games/s: "
          f"{native_rate / kaggle_rate:.1f}x")
    agents, with_arguments = agent_cpu_per_game(records)
    print(f"CPU per game: everything {native_cpu * 1000:.2f} ms (native), {kaggle_cpu * 1000:.2f} ms (kaggle); "
          f"the agents' own {agents * 1000:.2f} ms; evaluator's own work (native) "
          f"{(native_cpu - agents) * 1000:.2f} ms = {(native_cpu - agents) / agents:.1f}x the agents' "
          f"({(native_cpu - with_arguments) / with_arguments:.1f}x counting the agents' own as "
          f"{with_arguments * 1000:.2f} ms, with the making of their arguments)")
    in_games = agent_cpu_in_games(args.games)
    print(f"the agents' own CPU timed inside their processes during the games: {in_games * 1000:.2f} ms per game; "
          f"evaluator's own work {(native_cpu - in_games) * 1000:.2f} ms = {(native_cpu - in_games) / in_games:.1f}x that")
    moves = sum(sum(seat) for record in records for seat in record.move_times) / len(records)
    print(f"the moves' durations as the referee times them (round trips included): {moves * 1000:.2f} ms per game")
    two_rate, _, _, _ = play("greedy", args.games, 2, "native")
    print(f"greedy vs greedy, native: 2 workers {two_rate:.1f} games/s = {two_rate / native_rate:.2f}x 1 worker")
    free_rate, free_cpu, _, _ = play("greedy", args.games, 1, "native", pin_cores=False)
    free_two, _, _, _ = play("greedy", args.games, 2, "native", pin_cores=False)
    print(f"with --no-pin-cores: 1 worker {free_rate:.1f} games/s ({free_rate / kaggle_rate:.1f}x kaggle), CPU "
          f"{free_cpu * 1000:.2f} ms per game, evaluator's own work {(free_cpu - agents) / agents:.1f}x the agents'; "
          f"2 workers {free_two:.1f} games/s = {free_two / free_rate:.2f}x")
    ab_native, _, ab_native_records, native_elapsed = play("alphabeta", args.alphabeta_games, 1, "native")
    ab_kaggle, _, ab_kaggle_records, kaggle_elapsed = play("alphabeta", args.alphabeta_games, 1, "kaggle")
    print(f"alphabeta vs alphabeta, 1 worker: native {ab_native:.3f} games/s, kaggle {ab_kaggle:.3f} games/s "
          f"({ab_native / ab_kaggle:.2f}x; each move deepens within a time budget, so the games' lengths "
          f"differ from run to run); per move: the agent {move_ms(ab_native_records):.1f} ms, the rest "
          f"{beyond_ms(native_elapsed, ab_native_records):.2f} ms (native); the agent {move_ms(ab_kaggle_records):.1f} "
          f"ms, the rest {beyond_ms(kaggle_elapsed, ab_kaggle_records):.2f} ms (kaggle)")


def move_ms(records: list) -> float:
    """The agents' mean move as the referee timed it (round trip included)."""
    times = [duration for record in records for seat in record.move_times for duration in seat]
    return 1000 * sum(times) / len(times)


def beyond_ms(elapsed: float, records: list) -> float:
    """Wall time per move beyond the agents' moves (the run's start-up included): the evaluator's share."""
    moves = sum(len(seat) for record in records for seat in record.move_times)
    durations = sum(sum(seat) for record in records for seat in record.move_times)
    return 1000 * (elapsed - durations) / moves


if __name__ == "__main__":
    main()
