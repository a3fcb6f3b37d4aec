#!/usr/bin/env python3
"""How often a multiprocess agent loses its own race, under kaggle_environments and under the toolkit (issue 54).

The agent (tests/fixtures/eval_agents/races_its_worker.py) forks a worker a move and raises KeyError when its
main process ran fewer search rounds than its tree needs: it loses when its processes get less CPU than its
budget assumes. Each sample is one first move in a fresh agent process, the three ways interleaved (so that the
machine's load falls on all of them alike):

- ``kaggle``: Kaggle's ``build_agent`` in a fresh interpreter (its own session, as the toolkit's agent process
  has: with the kernel's autogroups a session is a scheduling group of its own);
- ``pinned``: the toolkit's agent process started on one core and widened (``--pin-cores``, the default);
- ``unpinned``: the toolkit's agent process on every core (``--no-pin-cores``).

Prints each way's losses of N and its main process's median rounds. Before the fix the pinned process kept its
worker on its one core (it was widened only once it ran threads); a figure, never an assertion.

    nice -n 10 python bench/fork_race.py [-n 20] [--warm-up 0.6] [--budget 1.0]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys

from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

AGENT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures", "eval_agents",
                     "races_its_worker.py")
OBSERVATION = {"remainingOverageTime": 60, "step": 0, "board": [0] * 42, "mark": 1}
CONFIGURATION = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2, "timeout": 2, "episodeSteps": 1000}
UNDER_KAGGLE = f"""
import sys
from kaggle_environments.agent import build_agent
from kaggle_environments.utils import structify
agent, _ = build_agent(sys.argv[1], {{}}, "connectx")
try:
    print("answer", agent(structify({OBSERVATION!r}), structify({CONFIGURATION!r})))
except Exception as error:
    print("error", type(error).__name__, error)
"""
ROUNDS = re.compile(r"rounds main (\d+) worker (\d+)")


def under_kaggle() -> tuple[bool, int | None]:
    run = subprocess.run([sys.executable, "-c", UNDER_KAGGLE, AGENT], capture_output=True, text=True,
                         start_new_session=True)
    found = ROUNDS.search(run.stderr + run.stdout)
    return "error" in run.stdout or run.returncode != 0, int(found[1]) if found else None


def under_toolkit(pinned: bool) -> tuple[bool, int | None]:
    everything = frozenset(os.sched_getaffinity(0))
    if pinned:
        os.sched_setaffinity(0, {min(everything)})  # as a pinned worker forks it
    try:
        process = AgentProcess(resolve_agent(AGENT), widen_to=everything if pinned else None)
        process.new_game()
    finally:
        os.sched_setaffinity(0, everything)
    with process:
        move = process.act(dict(OBSERVATION), dict(CONFIGURATION), 60.0)
        found = ROUNDS.search("\n".join(process.logs()))
    return move.error is not None, int(found[1]) if found else None


def _steps_a_second() -> float:
    """The agent's warm-up loop's speed in this interpreter (the best of three runs of a million steps)."""
    import time

    namespace: dict = {}
    exec("def spin(steps):\n    total = 0\n    for step in range(steps):\n        total += step\n    return total\n",
         namespace)  # the agent's own loop, in a function as the agent runs it
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        namespace["spin"](1_000_000)
        best = min(best, time.perf_counter() - started)
    return 1_000_000 / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="first moves each way (default 20)")
    parser.add_argument("--warm-up", type=float, default=0.6,
                        help="the agent's warm-up, as a share of its budget on one core of its own (default 0.6: "
                             "a main process sharing its core with its worker cannot finish it in time)")
    parser.add_argument("--budget", type=float, default=1.0, help="the agent's seconds a move")
    arguments = parser.parse_args()
    steps = int(arguments.warm_up * arguments.budget * _steps_a_second())
    os.environ["RACE_WARM_UP"], os.environ["RACE_BUDGET"] = str(steps), str(arguments.budget)
    ways = {"kaggle": under_kaggle, "pinned": lambda: under_toolkit(True), "unpinned": lambda: under_toolkit(False)}
    results: dict[str, list[tuple[bool, int | None]]] = {name: [] for name in ways}
    for _ in range(arguments.n):
        for name, way in ways.items():
            results[name].append(way())
    print(f"{len(os.sched_getaffinity(0))} CPUs, warm-up {steps} steps ({arguments.warm_up:g} of the budget here), "
          f"budget {arguments.budget:g} s, "
          f"{arguments.n} first moves each way")
    for name, samples in results.items():
        lost = sum(failed for failed, _ in samples)
        rounds = [count for _, count in samples if count is not None]
        median = f"{statistics.median(rounds):.0f}" if rounds else "-"
        print(f"  {name:<9} lost its race {lost:>3} of {len(samples)}   main's median rounds {median}")


if __name__ == "__main__":
    main()
