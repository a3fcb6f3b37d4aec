"""Positions solved in parallel worker processes, each under a hard time budget.

Each worker is a forked process holding one :class:`~analysis.solving.PositionSolver`. The parent hands
a worker the positions of one game at a time (last ply first: the late positions fill the worker's table
and make the earlier ones cheaper), one position per message, and waits on the workers' pipes. While
it searches, a worker sends the bounds it has proven so far (the compiled solver, after each null
window). A worker still busy when its position's budget (plus a little slack for the compiled solver's
hand-over) has run out is killed — the compiled solver cannot watch a clock — the position keeps the
last bounds it sent (often the outcome class; unknown without any), and a fresh worker takes its
place. Workers ignore SIGINT (the parent decides) and die with the parent.

The budget is the worker's CPU time (read from ``/proc/PID/stat``), not wall time: on a machine busy with
other work a worker gets a smaller share of a core, and a wall-clock budget would then leave positions
unknown that an idle machine solves. A wall-clock backstop still ends a worker that stops using CPU.
Where ``/proc`` is missing the budget falls back to wall time.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Callable, Sequence

from connectx_toolkit.analysis.values import Value

__all__ = ["Job", "SolverPool", "default_workers", "die_with_parent", "process_cpu_seconds"]

KILL_SLACK_SECONDS = 0.05  # a compiled search is stopped this long after its budget
PYTHON_SLACK_SECONDS = 1.0  # the Python search stops itself; the kill is only a safety net
START_TIMEOUT_SECONDS = 120.0  # a worker loading (or compiling) the solver
WALL_BACKSTOP_FACTOR = 10.0  # a worker this many budgets past its start in wall time is ended anyway
SHORTEST_WAIT_SECONDS = 0.01
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def process_cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU seconds used so far by process ``pid``, or None where ``/proc`` cannot tell (or no pid)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # the name, in parentheses, may hold spaces
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime, stime: fields 14 and 15 of stat


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@dataclass(frozen=True)
class Job:
    """One position to solve: its canonical key and the moves from the empty board that reach it."""

    key: int
    moves: tuple[int, ...]


def _serve(connection: Connection, compiled: bool) -> None:
    """Worker main loop: answer (moves, budget) with a Value until the pipe closes, sending the bounds
    proven on the way as (low, high) tuples."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    from connectx_toolkit.analysis.solving import PositionSolver

    solver = PositionSolver(compiled)
    connection.send("ready")
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        moves, budget = message
        connection.send(solver.solve(moves, budget, lambda low, high: connection.send((low, high))))


def die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (a worker never outlives the run that started it)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except OSError:
            pass


@dataclass
class _Worker:
    process: BaseProcess
    connection: Connection
    ready: bool = False
    job: Job | None = None
    started: float = 0.0  # wall clock (time.monotonic) when the worker started or took its job
    cpu_started: float | None = None  # the worker's CPU seconds when it took its job
    proven: tuple[int, int] | None = None  # the last bounds the worker sent for its current job
    queue: deque = field(default_factory=deque)

    def spent(self, now: float) -> float:
        """Seconds of the budget the current job has used: CPU time where known, else wall time."""
        if self.cpu_started is not None:
            cpu = process_cpu_seconds(self.process.pid)
            if cpu is not None:
                return cpu - self.cpu_started
        return now - self.started


class SolverPool:
    """``workers`` processes solving positions with the compiled solver or the Python exact search."""

    def __init__(self, workers: int, compiled: bool, budget: float, keep_workers: bool = False) -> None:
        """``keep_workers``: the workers outlive :meth:`run`, idle, for the next call (each starts with a fresh
        solver: a fork, a table of tens of MB, the compiled code's warm-up, far more than a late position's
        search), their tables kept, until :meth:`close`. Without it, each :meth:`run` starts and stops its own."""
        self.workers = max(1, workers)
        self.compiled = compiled
        self.budget = budget
        self.keep_workers = keep_workers
        self.slack = KILL_SLACK_SECONDS if compiled else PYTHON_SLACK_SECONDS
        self.context = multiprocessing.get_context("fork")
        self.killed = 0
        self.started = 0  # worker processes started so far
        self._spare: _Worker | None = None  # started in advance, so a killed worker is replaced at once
        self._idle: list[_Worker] = []  # workers kept between runs (keep_workers)

    def _spawn(self) -> _Worker:
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(child, self.compiled), daemon=True)
        process.start()
        child.close()
        self.started += 1
        return _Worker(process, parent, started=time.monotonic())

    def _workers_for(self, games: int) -> list[_Worker]:
        """The workers of one run: the kept ones still alive first, then new ones, ``min(workers, games)`` in all."""
        kept, self._idle = self._idle, []
        pool: list[_Worker] = []
        for worker in kept:
            if len(pool) < games and worker.process.is_alive():
                pool.append(worker)
            else:
                self._stop(worker)
        while len(pool) < min(self.workers, games):
            pool.append(self._spawn())
        return pool

    def close(self) -> None:
        """Stop the workers kept between runs (``keep_workers``), and the spare."""
        for worker in self._idle + ([self._spare] if self._spare else []):
            self._stop(worker)
        self._idle, self._spare = [], None

    def run(self, games: Sequence[Sequence[Job]], on_result: Callable[[Job, Value], None],
            known: Callable[[int], bool]) -> None:
        """Solve every job of ``games`` not ``known`` yet; ``on_result`` gets each answer (in the parent)."""
        pending = deque(list(jobs) for jobs in games if jobs)
        if not pending:
            return
        in_flight: set[int] = set()
        pool = self._workers_for(len(pending))
        finished = False
        try:
            while True:
                for worker in pool:
                    if worker.ready and worker.job is None:
                        self._dispatch(worker, pending, in_flight, known)
                busy = [w for w in pool if w.job is not None or not w.ready]
                if not busy:
                    break
                now = time.monotonic()
                # CPU time never runs faster than wall time, so a job cannot be over its budget before
                # the CPU it has left has passed on the wall clock: wait that long, then look again.
                timeouts = [self.budget + self.slack - w.spent(now) for w in busy if w.job is not None]
                starting = [w.started + START_TIMEOUT_SECONDS - now for w in busy if w.job is None]
                wait_for = max(SHORTEST_WAIT_SECONDS, min(timeouts + starting)) if timeouts or starting else None
                ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy], wait_for)
                now = time.monotonic()
                for index, worker in enumerate(pool):
                    if worker not in busy:
                        continue
                    message = False  # a message that says the worker lives on (bounds, while searching)
                    if worker.connection in ready:
                        try:
                            answer = worker.connection.recv()
                        except (EOFError, OSError):
                            answer = None
                        if answer == "ready":
                            worker.ready, worker.started = True, now
                            continue
                        if isinstance(answer, Value) and worker.job is not None:
                            job, worker.job = worker.job, None
                            in_flight.discard(job.key)
                            on_result(job, answer)
                            continue
                        if isinstance(answer, tuple) and worker.job is not None:
                            worker.proven, message = answer, True
                    overdue = worker.job is not None and (
                        worker.spent(now) > self.budget + self.slack
                        or now > worker.started + WALL_BACKSTOP_FACTOR * (self.budget + self.slack))
                    dead = worker.process.sentinel in ready or (worker.connection in ready and not message)
                    if overdue or dead:
                        if not worker.ready and not worker.process.is_alive():
                            raise RuntimeError(f"an analysis worker failed to start (exit code {worker.process.exitcode})")
                        pool[index] = self._replace(worker, pending, in_flight, on_result)
                    elif not worker.ready and now > worker.started + START_TIMEOUT_SECONDS:
                        raise RuntimeError("an analysis worker did not start in time")
            finished = True
        finally:
            if finished and self.keep_workers:  # every worker idle: kept, with its table, for the next run
                self._idle = pool
            else:  # a worker may be mid-search (an error, a Ctrl-C): none is kept
                for worker in pool:
                    self._stop(worker, kill=worker.job is not None)
                self.close()

    def _dispatch(self, worker: _Worker, pending: deque, in_flight: set[int], known: Callable[[int], bool]) -> None:
        while True:
            if not worker.queue:
                if not pending:
                    return
                worker.queue.extend(pending.popleft())
            job = worker.queue.popleft()
            if job.key in in_flight or known(job.key):
                continue
            worker.job, worker.started = job, time.monotonic()
            worker.cpu_started = process_cpu_seconds(worker.process.pid)
            worker.proven = None
            in_flight.add(job.key)
            worker.connection.send((job.moves, self.budget))
            return

    def _replace(self, worker: _Worker, pending: deque, in_flight: set[int],
                 on_result: Callable[[Job, Value], None]) -> _Worker:
        """Kill ``worker`` (over budget or dead); its position keeps the bounds the worker proved (unknown
        without any); a fresh worker takes its games."""
        job = worker.job
        spent = worker.spent(time.monotonic())
        answer = None
        try:
            while job is not None and answer is None and worker.connection.poll():
                message = worker.connection.recv()  # what it sent before it was stopped still counts
                if isinstance(message, tuple):
                    worker.proven = message
                elif isinstance(message, Value):
                    answer = message
        except (EOFError, OSError):
            pass
        self._stop(worker, kill=True)
        self.killed += 1
        fresh = self._spare or self._spawn()
        fresh.queue = worker.queue
        self._spare = self._spawn()
        if job is not None:
            in_flight.discard(job.key)
            if answer is None:
                engine = "compiled" if self.compiled else "python"
                answer = (Value(*worker.proven, engine, spent, timed_out=True) if worker.proven is not None
                          else Value.unknown(len(job.moves), engine, spent))
            on_result(job, answer)
        return fresh

    @staticmethod
    def _stop(worker: _Worker, kill: bool = False) -> None:
        if worker.process.is_alive():
            if kill:
                worker.process.kill()
            else:
                try:
                    worker.connection.send(None)
                except OSError:
                    pass
                worker.process.join(2.0)
                if worker.process.is_alive():
                    worker.process.kill()
        worker.process.join()
        worker.connection.close()
