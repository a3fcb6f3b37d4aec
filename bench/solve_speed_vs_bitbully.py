#!/usr/bin/env python3
"""``connectx solve --all`` next to bitbully's engine, on the same random positions: milliseconds a position, by ply.

    nice -n 10 python bench/solve_speed_vs_bitbully.py [--plies 10 12 ... 36] [--positions 60] [--seed 0]

One ``connectx solve --all --analysis-cache none`` process (warm: it has answered a position searched in its
worker and one searched in the process before the clock starts) is fed the positions of each ply one line
at a time, each line written when the previous answer has been read, as a user's pipe would; bitbully
(``score_all_moves``, its opening book off, its table kept from one position to the next as the command
keeps its own) scores every column of the same positions in this process. The positions are random games
of exactly that many moves, none finished and none where the player to move can win at once (as in
``bench/solver_speed.py``). The command's scores must be bitbully's, column by column.

Per ply, the table gives both engines' milliseconds a position in CPU time (the command's: its process and
its worker, read from ``/proc``, so other work on the machine counts little; bitbully's: this process's)
and the command's wall time a position (the round trip of a line), the ratio ours / bitbully's in CPU time,
and whether the target holds: within 3x of bitbully, or under 1 ms a position. Asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

from bench.solver_speed import random_positions
from tools.oracle import Oracle  # dev-only: bitbully

PLIES = list(range(10, 37, 2))
TARGET_RATIO = 3.0
TARGET_MS = 1.0
# Before the clock starts: a ply-16 position off the opening book (searched in the command's worker) and a
# ply-30 one (searched in the command's process), so neither start is counted.
WARM_UP = ("4145627754477725", "257771314744647214154617633623")


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of process ``pid`` and of its children alive now (each thread's run time in nanoseconds, from
    ``/proc/PID/task/TID/schedstat``), and of its children that ended (clock ticks, from ``/proc/PID/stat``)."""
    total = 0.0
    children: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                total += int(schedstat.read().split()[0]) / 1e9
            with open(f"/proc/{pid}/task/{task}/children") as listed:
                children += [int(child) for child in listed.read().split()]
        except (OSError, ValueError, IndexError):  # a thread that just ended
            continue
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    total += (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime, cstime
    for child in children:
        try:
            total += tree_cpu_seconds(child)
        except OSError:  # it ended between the listing and now: counted in cutime next time
            continue
    return total


class SolveCommand:
    """One ``connectx solve --all`` process answering a line at a time."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "connectx_toolkit.cli.solve", "--all", "--analysis-cache", "none"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def scores(self, moves: str) -> list[int | None]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(moves + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        fields = line.split()
        if len(fields) != 8 - (moves == "") or "error:" in line:
            raise RuntimeError(f"connectx solve answered {line!r} to {moves!r}")
        return [None if field == "-" else int(field) for field in fields[-7:]]

    def cpu_seconds(self) -> float:
        return tree_cpu_seconds(self.process.pid)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(60)


def measure(ply: int, games: list[list[int]], command: SolveCommand, oracle: Oracle) -> dict[str, float]:
    lines = ["".join(str(column + 1) for column in moves) for moves in games]
    ours: list[list[int | None]] = []
    cpu, wall = command.cpu_seconds(), time.perf_counter()
    for line in lines:
        ours.append(command.scores(line))
    ours_wall, ours_cpu = time.perf_counter() - wall, command.cpu_seconds() - cpu
    theirs = []
    started = time.process_time()
    for moves in games:
        theirs.append(oracle.column_scores(moves))
    theirs_cpu = time.process_time() - started
    n = len(games)
    return {"ply": ply, "positions": n, "ours_ms": 1000 * ours_cpu / n, "ours_wall_ms": 1000 * ours_wall / n,
            "bitbully_ms": 1000 * theirs_cpu / n, "disagree": sum(a != b for a, b in zip(ours, theirs))}


def row(result: dict[str, float]) -> str:
    ours, theirs = result["ours_ms"], result["bitbully_ms"]
    ratio = ours / theirs if theirs > 0 else float("inf")
    met = "yes" if ratio <= TARGET_RATIO or ours < TARGET_MS else "NO"
    return (f"| {result['ply']} | {result['positions']} | {ours:.2f} | {result['ours_wall_ms']:.2f} | {theirs:.2f} "
            f"| {ratio:.1f}x | {met} | {result['disagree']} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--plies", type=int, nargs="+", default=PLIES, help="plies (default 10 12 ... 36)")
    parser.add_argument("--positions", type=int, default=60, help="random positions a ply (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.positions < 1 or any(not 0 <= ply <= 40 for ply in args.plies):
        print("error: --positions must be >= 1 and every ply in 0..40", file=sys.stderr)
        return 2
    if not os.path.exists(f"/proc/{os.getpid()}/stat"):
        print("error: the command's CPU time is read from /proc, which this system does not have", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    oracle = Oracle(book=False)
    command = SolveCommand()
    try:
        for moves in WARM_UP:
            command.scores(moves)
        print(f"connectx solve --all (one warm process, no cache) and bitbully (book off), {args.positions} random "
              f"positions a ply, seed {args.seed}; ms a position; target: within {TARGET_RATIO:g}x of bitbully "
              f"or under {TARGET_MS:g} ms")
        print("| ply | positions | ours CPU ms | ours wall ms | bitbully CPU ms | ours / bitbully | target | disagree |")
        print("|---|---|---|---|---|---|---|---|")
        disagreements = 0
        for ply in args.plies:
            result = measure(ply, random_positions(ply, args.positions, rng), command, oracle)
            disagreements += int(result["disagree"])
            print(row(result), flush=True)
    finally:
        command.close()
    if disagreements:
        print(f"error: {disagreements} positions scored differently from bitbully", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
