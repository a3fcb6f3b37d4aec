"""The worker side of ``evaluation.pool``: a process that plays whole games and reports each record.

A worker is either forked from the evaluator (the default: it starts warm, with the referee imported)
or started fresh inside a sandbox (``--sandbox``), which sends each record as JSON (the parent must
never unpickle what a process running untrusted code wrote)::

    python -m evaluation.worker CONNECTION_FD DEADLINES_FD MEMORY_MB

where ``CONNECTION_FD`` is the worker's end of a socket pair (``multiprocessing.connection``) and
``DEADLINES_FD`` a 32-byte shared memory file holding the deadline cells (see ``SharedMonitor``).

Agent code runs in here, so two rules protect the parent's bookkeeping from what an agent does: only the
worker process itself may touch the deadline cells or send a record (a process the agent forked that
runs on into the game exits instead, so a game is never reported twice), and inside a sandbox every
process the agent left behind is killed after each game (the sandbox's own pid namespace makes that
exact).
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import resource
import signal
import sys
import time
from typing import Any

from evaluation.record import forfeit

IDLE, THINKING = -1.0, 1.0
CELLS = 4  # state, seat, deadline, start
CELLS_BYTES = CELLS * ctypes.sizeof(ctypes.c_double)


class SharedMonitor:
    """Worker side of the deadline protocol: [state, seat, deadline, start] in shared memory."""

    def __init__(self, cells: Any) -> None:
        self.cells = cells
        self.owner = os.getpid()

    def start(self, seat: int, deadline: float) -> None:
        self._only_owner()
        self.cells[1] = seat
        self.cells[2] = deadline
        self.cells[3] = time.monotonic()
        self.cells[0] = THINKING  # written last: the parent never sees THINKING with a stale deadline

    def stop(self) -> None:
        self._only_owner()
        self.cells[0] = IDLE

    def _only_owner(self) -> None:
        if os.getpid() != self.owner:  # a copy the agent forked, back in the referee's loop: it must not report
            os._exit(0)


def preload() -> None:
    """Import the referee (the import takes ~2 s): before the first game, never inside a timed move."""
    from kaggle_environments import make

    make("connectx")


def serve(conn: Any, cells: Any, memory_mb: int, sandboxed: bool = False) -> None:
    """Play each task received on ``conn`` and send its record back, until the pipe closes or None."""
    from evaluation.runner import play_task

    isolate(memory_mb)
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
        if sandboxed:
            _kill_leftovers()
        monitor._only_owner()
        if sandboxed:
            conn.send_bytes(record_bytes(record))
        else:
            conn.send(record)


def record_bytes(record: Any) -> bytes:
    """A record as JSON, Kaggle's steps included when they serialize (they are plain dicts and lists)."""
    data = record.to_json()
    try:
        return json.dumps({**data, "steps": record.steps}).encode()
    except (TypeError, ValueError):
        return json.dumps(data).encode()


def isolate(memory_mb: int) -> None:
    """Ignore SIGINT, die with the parent, silence output, cap the address space."""
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


def _kill_leftovers() -> None:
    """Kill every other process of this sandbox and reap this worker's children.

    Only in a sandbox: there this worker is pid 2 of its own pid namespace (bubblewrap's init is 1), so
    ``kill(-1)`` reaches exactly the processes the agent started. Reaping matters too: a zombie still
    counts against the sandbox's process cap.
    """
    if os.getpid() != 2:
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:  # nothing else was running
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


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


def main(argv: list[str]) -> None:
    from multiprocessing.connection import Connection

    conn_fd, cells_fd, memory_mb = (int(value) for value in argv)
    shared = mmap.mmap(cells_fd, CELLS_BYTES)
    os.close(cells_fd)
    cells = (ctypes.c_double * CELLS).from_buffer(shared)
    preload()
    serve(Connection(conn_fd), cells, memory_mb, sandboxed=True)


if __name__ == "__main__":
    main(sys.argv[1:])
