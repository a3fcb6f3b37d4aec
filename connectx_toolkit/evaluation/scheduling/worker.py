"""The worker side of ``evaluation.scheduling.pool``: a process, forked from the evaluator, that referees whole games.

No agent code runs in here: each seat's agent is a process of its own (``evaluation.seats.agent_process``),
started and killed by this worker, sandboxed with ``--sandbox``. The worker tells the parent, through
small shared "deadline cells" (``SharedMonitor``), which seat is thinking and by when the worker itself
must be done with that move, so that the parent can still kill a worker that hangs.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

from connectx_toolkit.evaluation.seats.process_limits import die_with_parent
from connectx_toolkit.evaluation.referees.record import ERROR, forfeit
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

IDLE, THINKING = -1.0, 1.0


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

    def next_game(self) -> None:
        """No move of the next game has started (so a death before its first move costs no seat)."""
        self._only_owner()
        self.cells[0], self.cells[1] = IDLE, -1.0

    def _only_owner(self) -> None:
        if os.getpid() != self.owner:  # a copy the agent forked, back in the referee's loop: it must not report
            os._exit(0)


def preload() -> None:
    """Import the referee (the import takes ~2 s): before the first game, never inside a timed move."""
    from kaggle_environments import make

    make("connectx")


def serve(conn: Any, cells: Any, settings: PlaySettings, cpu: int | None = None, cpus: list[int] | None = None) -> None:
    """Play each task received on ``conn`` with ``settings.referee`` and send its record back, until the
    pipe closes or None.

    The agents run in processes of their own (``KeptAgents``), kept between games, each under
    ``settings.memory_mb`` and, with ``settings.sandbox``, inside its own bubblewrap sandbox.
    """
    from connectx_toolkit.evaluation.seats.kept_agents import KeptAgents
    from connectx_toolkit.evaluation.scheduling.runner import play_task

    isolate()
    gc.freeze()  # the evaluator's objects, inherited: out of the collector's walks (and their pages stay shared)
    widen_to = None
    if cpu is not None:  # the agents' processes, forked or sandboxed from here, inherit it
        try:
            os.sched_setaffinity(0, {cpu})
            widen_to = frozenset(cpus or (cpu,))  # an agent's process that runs threads gets them all
        except OSError:
            widen_to = None
    monitor = SharedMonitor(cells)
    hosts = KeptAgents(sandbox=settings.sandbox, memory_mb=settings.memory_mb, widen_to=widen_to)
    try:
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                return
            if task is None:
                return
            try:
                record = play_task(task, monitor, hosts, settings.referee)
            except Exception as error:  # a bug of ours: this game is lost for the seat that was thinking
                record = forfeit(task, max(0, int(cells[1])), ERROR, f"{type(error).__name__}: {error}")
            monitor.next_game()  # before the record goes: from then on the cells speak of the next game
            conn.send(record)
    finally:
        hosts.close()


def isolate() -> None:
    """Die with the parent and ignore SIGINT (see ``die_with_parent``), silence output."""
    die_with_parent()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
