"""Games in isolated worker processes, each move under a hard deadline.

Each worker is a forked process that plays whole games (``runner.play_task``) one after another and
sends back a ``GameRecord``. Before every move the worker writes into a small shared-memory array which
seat is thinking and by when it must answer (Kaggle's rule: act timeout + what is left of that seat's
overage bank). The parent waits on the workers' pipes and process sentinels and, when a deadline plus a
grace period passes, kills the worker and records a TIMEOUT against the seat that was thinking; a worker
that dies on its own (``os._exit``, a segfault, the kernel's OOM killer) costs that seat an ERROR. Either
way a fresh worker takes its place and the run goes on.

Inside a worker: stdout and stderr point at /dev/null (an agent that floods its output fills nothing),
the address space is capped with ``RLIMIT_AS`` (an agent that allocates without bound gets MemoryError,
which Kaggle records as ERROR), SIGINT is ignored (the parent decides) and the worker dies with the
parent (``PR_SET_PDEATHSIG``), so a killed evaluation leaves no orphan behind.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal
import sys
import time
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable

from evaluation.record import GameRecord, GameTask
from evaluation.runner import play_task

GRACE_SECONDS = 0.5  # slack after Kaggle's deadline before a worker is killed (Kaggle itself times out first)
POLL_SECONDS = 0.2  # how often deadlines are checked while no worker reports anything
DEFAULT_MEMORY_MB = 2048  # address space an agent may add on top of the worker's own

IDLE, THINKING = -1.0, 1.0


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class SharedMonitor:
    """Worker side of the deadline protocol: [state, seat, deadline, start] in shared memory."""

    def __init__(self, cells: Any) -> None:
        self.cells = cells

    def start(self, seat: int, deadline: float) -> None:
        self.cells[1] = seat
        self.cells[2] = deadline
        self.cells[3] = time.monotonic()
        self.cells[0] = THINKING  # written last: the parent never sees THINKING with a stale deadline

    def stop(self) -> None:
        self.cells[0] = IDLE


class _Worker:
    """Parent side of one worker process."""

    def __init__(self, context: Any, memory_mb: int) -> None:
        self.cells = context.RawArray("d", [IDLE, -1.0, 0.0, 0.0])
        self.conn, child_conn = context.Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.process = context.Process(target=_worker_main, args=(child_conn, self.cells, memory_mb), daemon=True)
        self.process.start()
        child_conn.close()
        self.task: GameTask | None = None

    def send(self, task: GameTask) -> None:
        self.cells[0], self.cells[1] = IDLE, -1.0
        self.task = task
        self.conn.send(task)

    def overdue(self, now: float, grace: float) -> bool:
        return self.task is not None and self.cells[0] == THINKING and now > self.cells[2] + grace

    def next_deadline(self, grace: float) -> float | None:
        if self.task is not None and self.cells[0] == THINKING:
            return self.cells[2] + grace
        return None

    def started(self) -> bool:
        """Has a move of the current game started?"""
        return self.cells[1] >= 0

    def seat(self) -> int:
        """The seat that was thinking last (0 if no move had started yet)."""
        return max(0, int(self.cells[1]))

    def thinking_for(self, now: float) -> float | None:
        """How long the current move has been running, if one is."""
        return now - self.cells[3] if self.cells[0] == THINKING else None

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def run_games(
    tasks: Iterable[GameTask],
    *,
    workers: int | None = None,
    on_record: Callable[[GameRecord], bool | None],
    memory_mb: int = DEFAULT_MEMORY_MB,
    grace: float = GRACE_SECONDS,
) -> None:
    """Play ``tasks`` on ``workers`` isolated processes; ``on_record`` gets each record as it ends.

    Records arrive in completion order. ``on_record`` returning True stops scheduling new games (games
    already running are finished and reported). Every task that is started is reported exactly once.
    """
    pending = list(tasks)
    if not pending:
        return
    _preload()
    context = multiprocessing.get_context("fork")
    pending.reverse()  # pop() from the end keeps the schedule's order
    pool = [_Worker(context, memory_mb) for _ in range(max(1, min(workers or default_workers(), len(pending))))]
    stopping = False
    retried: set[int] = set()
    try:
        while True:
            for index, worker in enumerate(pool):
                if worker.task is None and pending and not stopping:
                    task = pending.pop()
                    try:
                        worker.send(task)
                    except OSError:  # the worker died between games: a fresh one takes the task
                        worker.stop()
                        pool[index] = _Worker(context, memory_mb)
                        pool[index].send(task)
            busy = [w for w in pool if w.task is not None]
            if not busy:
                return
            deadlines = [d for d in (w.next_deadline(grace) for w in busy) if d is not None]
            timeout = POLL_SECONDS
            if deadlines:
                timeout = min(timeout, max(0.0, min(deadlines) - time.monotonic()))
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
            now = time.monotonic()
            for index, worker in enumerate(pool):
                if worker.task is None:
                    continue
                record = None
                if worker.conn in ready:
                    try:
                        record = worker.conn.recv()
                        worker.task = None
                    except (EOFError, OSError):
                        record = None
                if record is None and (worker.process.sentinel in ready or worker.conn in ready):
                    code = worker.process.exitcode if not worker.process.is_alive() else None
                    if not worker.started() and worker.task.game_id not in retried:
                        # died before any move of this game: not this game's fault; play it again once
                        retried.add(worker.task.game_id)
                        pending.append(worker.task)
                    else:
                        record = forfeit(worker.task, worker.seat(), "error", f"worker process died (exit code {code})",
                                         worker.thinking_for(now))
                    worker.stop()
                    pool[index] = _Worker(context, memory_mb)
                elif record is None and worker.overdue(now, grace):
                    record = forfeit(worker.task, worker.seat(), "timeout", "no answer by the move's deadline: killed",
                                     worker.thinking_for(now))
                    worker.stop()
                    pool[index] = _Worker(context, memory_mb)
                if record is not None and on_record(record):
                    stopping = True
    finally:
        for worker in pool:
            worker.stop()


def forfeit(task: GameTask, seat: int, outcome: str, note: str, thinking: float | None = None) -> GameRecord:
    """The record of a game whose worker had to be killed: ``seat`` forfeits it.

    Only the fatal move's time is known (``thinking``); earlier moves died with the worker.
    """
    times: list[list[float]] = [[], []]
    if thinking is not None:
        times[seat].append(round(thinking, 6))
    outcomes = ["win", "win"]
    outcomes[seat] = outcome
    statuses = ["DONE", "DONE"]
    statuses[seat] = outcome.upper()
    return GameRecord(
        game_id=task.game_id,
        agents=[spec.name for spec in task.seats],
        opening=list(task.opening),
        moves=list(task.opening),
        statuses=statuses,
        outcomes=outcomes,
        move_times=times,
        config=dict(task.config),
        seed=task.seed,
        swapped=task.swapped,
        note=note,
    )


def _preload() -> None:
    """Import the referee once here, so that every forked worker starts warm (the import takes ~2 s)."""
    from kaggle_environments import make

    make("connectx")


def _worker_main(conn: Any, cells: Any, memory_mb: int) -> None:
    _isolate(memory_mb)
    monitor = SharedMonitor(cells)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            record = play_task(task, monitor)
        except Exception as error:  # e.g. MemoryError left over in the referee after an agent's hoarding
            record = forfeit(task, max(0, int(cells[1])), "error", f"{type(error).__name__}: {error}")
        conn.send(record)


def _isolate(memory_mb: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # Linux: die with the parent, even when it is SIGKILLed
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    if memory_mb > 0:
        limit = _address_space() + memory_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass


def _address_space() -> int:
    """This process's current virtual memory size in bytes (the cap is set relative to it)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
