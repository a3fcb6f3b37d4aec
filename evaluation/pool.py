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

With ``sandbox=True`` each worker is instead a fresh interpreter started inside a bubblewrap sandbox
(``sandbox.Sandbox``: no network, no home directory, a private size-limited /tmp, a process cap) running
``evaluation.worker``; it talks over an inherited socket pair, and the deadline cells live in a memfd
both sides map. Everything else (deadlines, kills, forfeits, replacement workers) is the same.
"""

from __future__ import annotations

import ctypes
import json
import math
import mmap
import multiprocessing
import os
import subprocess
import sys
import time
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable

from evaluation.record import LOG_LINES, GameRecord, GameTask, forfeit
from evaluation.worker import CELLS, CELLS_BYTES, IDLE, THINKING, SharedMonitor, preload, serve
from sandbox import Sandbox

__all__ = ["SharedMonitor", "default_workers", "run_games"]

GRACE_SECONDS = 0.5  # slack after Kaggle's deadline before a worker is killed (Kaggle itself times out first)
POLL_SECONDS = 0.2  # how often deadlines are checked while no worker reports anything
GAME_SLACK_SECONDS = 30.0  # see longest_game
MAX_RECORD_BYTES = 64 * 1024 * 1024  # a sandboxed worker's record (with Kaggle's steps) is far smaller
MAX_TEXT = 2000  # characters kept of a sandboxed record's error text or printed line
STATUSES = ("DONE", "INVALID", "ERROR", "TIMEOUT")
OUTCOMES = ("win", "draw", "loss", "invalid", "error", "timeout")
STOP_SECONDS = 2.0  # how long an idle sandboxed worker gets to exit on its own at the end of a run
DEFAULT_MEMORY_MB = 2048  # address space an agent may add on top of the worker's own

def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class _Worker:
    """Parent side of one worker process: forked (``sandbox`` None) or exec'd inside ``sandbox``."""

    def __init__(self, context: Any, memory_mb: int, sandbox: Sandbox | None = None) -> None:
        self.conn, child_conn = context.Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        if sandbox is None:
            self.cells = context.RawArray("d", [IDLE, -1.0, 0.0, 0.0])
            self.process: Any = context.Process(target=serve, args=(child_conn, self.cells, memory_mb), daemon=True)
            self.process.start()
            self.sentinel = self.process.sentinel
        else:
            memory = os.memfd_create("connectx-deadlines")
            try:
                os.ftruncate(memory, CELLS_BYTES)
                self._shared = mmap.mmap(memory, CELLS_BYTES)
                self.cells = (ctypes.c_double * CELLS).from_buffer(self._shared)
                self.cells[0], self.cells[1] = IDLE, -1.0
                argv = [sys.executable, "-m", "evaluation.worker", str(child_conn.fileno()), str(memory),
                        str(memory_mb)]
                self.process = sandbox.popen(argv, pass_fds=(child_conn.fileno(), memory), stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            finally:
                os.close(memory)
            self.sentinel = os.pidfd_open(self.process.pid)
        child_conn.close()
        self.task: GameTask | None = None

    def send(self, task: GameTask) -> None:
        self.cells[0], self.cells[1] = IDLE, -1.0
        self.task = task
        self.limit = time.monotonic() + longest_game(task)
        self.conn.send(task)

    def receive(self) -> GameRecord:
        """The finished game's record (raises EOFError/OSError if the worker died, ValueError if what a
        sandboxed worker sent is not a record of its task)."""
        if isinstance(self.process, subprocess.Popen):
            return checked_record(self.task, self.conn.recv_bytes(MAX_RECORD_BYTES))
        return self.conn.recv()

    # The cells live in memory the agent's process can write: read them as untrusted numbers, and
    # never wait past ``limit`` whatever they say.

    def overdue(self, now: float, grace: float) -> bool:
        deadline = self.next_deadline(grace)
        return deadline is not None and now > deadline

    def next_deadline(self, grace: float) -> float | None:
        if self.task is None:
            return None
        if self.cells[0] == THINKING and math.isfinite(self.cells[2]):
            return min(self.cells[2] + grace, self.limit)
        return self.limit

    def started(self) -> bool:
        """Has a move of the current game started?"""
        return self.cells[1] >= 0

    def seat(self) -> int:
        """The seat that was thinking last (0 if no move had started yet)."""
        return 1 if self.cells[1] == 1 else 0

    def thinking_for(self, now: float) -> float | None:
        """How long the current move has been running, if one is."""
        if self.cells[0] != THINKING or not 0 <= now - self.cells[3] < float("inf"):
            return None
        return now - self.cells[3]

    def exit_code(self) -> int | None:
        """The process's exit code, or None while it runs."""
        if isinstance(self.process, subprocess.Popen):
            return self.process.poll()
        return self.process.exitcode

    def stop(self) -> None:
        if isinstance(self.process, subprocess.Popen):
            if self.task is None and self.process.poll() is None:
                try:  # idle: let it exit, so that bubblewrap reaps (and accounts for) everything inside
                    self.conn.send(None)
                    self.process.wait(timeout=STOP_SECONDS)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            if self.process.poll() is None:
                self.process.kill()  # bubblewrap's --die-with-parent takes the whole sandbox with it
            self.process.wait()
            os.close(self.sentinel)
        else:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
        self.conn.close()


def bundle_mounts(seats: list[Any]) -> tuple[tuple[str, str], ...]:
    """The one Kaggle bundle among ``seats`` as a sandbox mount at /kaggle_simulations/agent (both seats of a
    worker share its file system, so two different bundles cannot play in one match)."""
    folders = sorted({spec.folder for spec in seats if spec.kind == "bundle"})
    if len(folders) > 1:
        raise ValueError("two Kaggle bundles cannot play each other: both need /kaggle_simulations/agent")
    return tuple((folder, "/kaggle_simulations/agent") for folder in folders)


def run_games(
    tasks: Iterable[GameTask],
    *,
    workers: int | None = None,
    on_record: Callable[[GameRecord], bool | None],
    memory_mb: int = DEFAULT_MEMORY_MB,
    grace: float = GRACE_SECONDS,
    sandbox: bool = False,
) -> None:
    """Play ``tasks`` on ``workers`` isolated processes; ``on_record`` gets each record as it ends.

    Records arrive in completion order. ``on_record`` returning True stops scheduling new games (games
    already running are finished and reported). Every task that is started is reported exactly once.
    ``sandbox``: run every worker inside a bubblewrap sandbox that shows it the tasks' agent files (call
    ``sandbox.require()`` first to fail early with a clear reason).
    """
    pending = list(tasks)
    if not pending:
        return
    box = None
    seats = [spec for task in pending for spec in task.seats]
    mounts = bundle_mounts(seats)
    if sandbox or mounts:  # a Kaggle bundle runs only where Kaggle unpacks it, which a sandbox provides
        if any(spec.kind == "callable" for spec in seats):
            raise ValueError("a callable agent cannot run in the sandbox (it lives in this process): save it to a file")
        files = sorted({spec.target for spec in seats if spec.kind in ("file", "built")})
        box = Sandbox(files=tuple(files), mounts=mounts)
    else:
        preload()
    context = multiprocessing.get_context("fork")
    pending.reverse()  # pop() from the end keeps the schedule's order

    def fresh() -> _Worker:
        return _Worker(context, memory_mb, box)

    pool = [fresh() for _ in range(max(1, min(workers or default_workers(), len(pending))))]
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
                        pool[index] = fresh()
                        pool[index].send(task)
            busy = [w for w in pool if w.task is not None]
            if not busy:
                return
            deadlines = [d for d in (w.next_deadline(grace) for w in busy) if d is not None]
            timeout = POLL_SECONDS
            if deadlines:
                timeout = min(timeout, max(0.0, min(deadlines) - time.monotonic()))
            ready = set(wait([w.conn for w in busy] + [w.sentinel for w in busy], timeout))
            now = time.monotonic()
            for index, worker in enumerate(pool):
                if worker.task is None:
                    continue
                record = None
                if worker.conn in ready:
                    try:
                        record = worker.receive()
                        worker.task = None
                    except (EOFError, OSError):
                        record = None
                    except ValueError as error:  # a sandboxed agent wrote to the worker's pipe itself
                        record = forfeit(worker.task, worker.seat(), "error",
                                         f"the worker sent no valid record: {error}")
                        worker.stop()
                        pool[index] = fresh()
                if record is None and (worker.sentinel in ready or worker.conn in ready):
                    code = worker.exit_code()
                    if not worker.started() and worker.task.game_id not in retried:
                        # died before any move of this game: not this game's fault; play it again once
                        retried.add(worker.task.game_id)
                        pending.append(worker.task)
                    else:
                        record = forfeit(worker.task, worker.seat(), "error", f"worker process died (exit code {code})",
                                         worker.thinking_for(now))
                    worker.stop()
                    pool[index] = fresh()
                elif record is None and worker.overdue(now, grace):
                    late = now > worker.limit
                    record = forfeit(worker.task, worker.seat(), "timeout",
                                     "the game ran past its longest possible duration: killed" if late
                                     else "no answer by the move's deadline: killed", worker.thinking_for(now))
                    worker.stop()
                    pool[index] = fresh()
                if record is not None and on_record(record):
                    stopping = True
    finally:
        for worker in pool:
            worker.stop()


def longest_game(task: GameTask) -> float:
    """Seconds no legitimate game can exceed: every move at act timeout + grace, both overage banks
    spent, and generous slack for the referee. A backstop only: the per-move deadline comes first."""
    config = dict(task.config)
    plies = config.get("rows", 6) * config.get("columns", 7)
    return plies * (task.act_timeout + GRACE_SECONDS) + 2 * task.overage + GAME_SLACK_SECONDS


def checked_record(task: GameTask, payload: bytes) -> GameRecord:
    """A sandboxed worker's record, read as JSON and tied to ``task``: the game id, agents, opening, seed
    and board are the parent's own; the rest must have the shapes and values a game can produce."""
    try:
        data = json.loads(payload)
        statuses, outcomes = data["statuses"], data["outcomes"]
        moves, times, steps, note = data["moves"], data["move_times"], data.get("steps", []), data.get("note", "")
        columns = dict(task.config).get("columns", 7)
        valid = (
            isinstance(statuses, list) and len(statuses) == 2 and all(s in STATUSES for s in statuses)
            and isinstance(outcomes, list) and len(outcomes) == 2 and all(o in OUTCOMES for o in outcomes)
            and isinstance(moves, list) and all(type(m) is int and 0 <= m < columns for m in moves)
            and isinstance(times, list) and len(times) == 2
            and all(isinstance(seat, list) and all(type(t) in (int, float) for t in seat) for seat in times)
            and isinstance(steps, list) and isinstance(note, str)
        )
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"unreadable ({type(error).__name__})") from None
    if not valid:
        raise ValueError("not a game record")
    return GameRecord(
        game_id=task.game_id, agents=[spec.name for spec in task.seats], opening=list(task.opening),
        moves=moves, statuses=statuses, outcomes=outcomes, move_times=times, config=dict(task.config),
        seed=task.seed, swapped=task.swapped, note=note[:1000], steps=steps,
        error=_seat_errors(data.get("error")), logs=_seat_logs(data.get("logs")),
    )


def _seat_errors(value: Any) -> list[str | None]:
    """Each seat's error text from a sandboxed record, or None where it is missing or not text (capped)."""
    seats = value if isinstance(value, list) and len(value) == 2 else [None, None]
    return [text[:MAX_TEXT] if isinstance(text, str) else None for text in seats]


def _seat_logs(value: Any) -> list[list[str]]:
    """Each seat's last printed lines from a sandboxed record: at most LOG_LINES strings each (capped)."""
    seats = value if isinstance(value, list) and len(value) == 2 else [[], []]
    return [[line[:MAX_TEXT] for line in lines if isinstance(line, str)][-LOG_LINES:] if isinstance(lines, list) else []
            for lines in seats]
