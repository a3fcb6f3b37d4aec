#!/usr/bin/env python3
"""What the board's agent process costs: its start, a move's round trip, and the board's own start.

    python bench/board_seat.py

A trivial agent (``tests/fixtures/eval_agents/leftmost.py``) is started in its own process (forked, then
in the bubblewrap sandbox when one can be built) and asked for 200 moves; printed: the start and the
median and longest round trip. Then ``evaluate.py --board solver --no-browser`` is started twice and the
time until it prints its address line is printed.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time

from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENT = os.path.join(ROOT, "tests", "fixtures", "eval_agents", "leftmost.py")


def seat_figures(sandbox: bool) -> str:
    seat = AgentProcess(resolve_agent(AGENT, sandbox=sandbox), sandbox=sandbox)
    started = time.monotonic()
    seat.new_game()
    start = time.monotonic() - started
    configuration = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2.0}
    observation = {"board": [0] * 42, "mark": 1, "step": 0, "remainingOverageTime": 60.0}
    times = []
    for _ in range(200):
        started = time.monotonic()
        seat.act(observation, configuration, 5.0)
        times.append(time.monotonic() - started)
    seat.close()
    return (f"agent process{' in the sandbox' if sandbox else ''}: start {start:.2f} s, move round trip median "
            f"{statistics.median(times) * 1000:.2f} ms, longest {max(times) * 1000:.2f} ms (200 moves)")


def main() -> None:
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    print(seat_figures(False))
    try:
        require()
        print(seat_figures(True))
    except SandboxUnavailable as error:
        print(f"no sandbox here: {error}")
    for _ in range(2):
        started = time.monotonic()
        board = subprocess.Popen([sys.executable, os.path.join(ROOT, "evaluate.py"), "--board", "solver", "--no-browser",
                                  "--analysis-cache", "none"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        board.stdout.readline()
        print(f"evaluate.py --board solver: address line after {time.monotonic() - started:.2f} s")
        board.send_signal(signal.SIGINT)
        board.wait()


if __name__ == "__main__":
    main()
