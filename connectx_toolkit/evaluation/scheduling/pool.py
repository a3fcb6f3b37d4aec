"""Games across worker processes: scheduling, crash isolation, hard deadlines.

Each worker is a forked process that referees whole games (``runner.play_task``) one after another and
sends back a ``GameRecord``; each game's two agents run in processes of their own that the worker starts,
times and kills (``evaluation.seats.agent_process``; with ``sandbox=True`` each inside its own bubblewrap
sandbox), kept alive between games for speed. A move past its deadline has its agent's process killed
by the worker: TIMEOUT for that seat, and the game is recorded as Kaggle would record it.

The worker also writes into a small shared-memory array which seat is thinking and by when the worker
must be done with that move. The parent waits on the workers' pipes and process sentinels and, should a
worker itself hang past that deadline plus a grace period, kills it and records a TIMEOUT against the
seat that was thinking; a worker that dies (a bug, the kernel's OOM killer) costs that seat an ERROR.
Either way a fresh worker takes its place and the run goes on. Workers ignore SIGINT (the parent decides)
and die with the parent (``PR_SET_PDEATHSIG``), and agents' processes die with their worker, so a killed
evaluation leaves no orphan behind.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
import time
from multiprocessing.connection import wait
from typing import Any, Callable, Iterable

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.played import KAGGLE
from connectx_toolkit.evaluation.referees.record import ERROR, TIMEOUT, GameRecord, GameTask, forfeit
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.worker import IDLE, THINKING, SharedMonitor, preload, serve
from connectx_toolkit.evaluation.seats.agent_kinds import BUILTIN, CALLABLE

__all__ = ["SharedMonitor", "default_workers", "run_games"]

QUEUED_PER_WORKER = 2  # a worker's next game waits in its pipe: it never idles waiting for this process
GRACE_SECONDS = 0.5  # slack after Kaggle's deadline before a worker is killed (Kaggle itself times out first)
POLL_SECONDS = 0.2  # how often deadlines are checked while no worker reports anything
GAME_SLACK_SECONDS = 30.0  # see longest_game
STOP_SECONDS = 5.0  # how long an idle worker gets to stop its agents (and their sandboxes) at the end of a run
EXIT_WAIT_SECONDS = 1.0  # see _Worker.exit_code

def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class _Worker:
    """Parent side of one worker process (forked; it starts each seat's agent process itself)."""

    def __init__(self, context: Any, settings: PlaySettings, cpu: int | None = None,
                 cpus: list[int] | None = None) -> None:
        self.conn, child_conn = context.Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        self.cells = context.RawArray("d", [IDLE, -1.0, 0.0, 0.0])
        self.process: Any = context.Process(target=serve, args=(child_conn, self.cells, settings, cpu, cpus),
                                            daemon=True)
        self.process.start()
        self.sentinel = self.process.sentinel
        child_conn.close()
        self.tasks: list[GameTask] = []  # sent, in the order the worker plays them; the first is under way

    @property
    def task(self) -> GameTask | None:
        """The game the worker is playing (or about to), None when it has nothing to do."""
        return self.tasks[0] if self.tasks else None

    def send(self, task: GameTask) -> None:
        if not self.tasks:  # idle: its cells say nothing yet of this game (it resets them after each game)
            self.cells[0], self.cells[1] = IDLE, -1.0
            self.limit = time.monotonic() + longest_game(task)
        self.conn.send(task)
        self.tasks.append(task)

    def receive(self) -> GameRecord:
        """The finished game's record (raises EOFError/OSError if the worker died)."""
        record = self.conn.recv()
        self.tasks.pop(0)
        if self.tasks:  # the next one starts now
            self.limit = time.monotonic() + longest_game(self.tasks[0])
        return record

    def unstarted(self) -> list[GameTask]:
        """The tasks queued behind the current one (never started: to be played elsewhere)."""
        return self.tasks[1:]

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

    def exit_code(self, wait: float = 0.0) -> int | None:
        """The process's exit code, or None while it runs (``wait``: seconds to let it finish dying: its
        pipe can report the end before the process has ended)."""
        if wait > 0:
            self.process.join(wait)
        return self.process.exitcode

    def stop(self) -> None:
        if self.task is None and self.process.is_alive():
            try:  # idle: let it stop its agents' processes (and their sandboxes) itself
                self.conn.send(None)
                self.process.join(STOP_SECONDS)
            except OSError:
                pass
        if self.process.is_alive():
            self.process.kill()  # its agents' processes die with it (PR_SET_PDEATHSIG, --die-with-parent)
        self.process.join()
        self.conn.close()


OnRecord = Callable[[GameRecord], bool | None]  # told each record; True stops scheduling new games


def backend(play: Callable[[list[GameTask], OnRecord, PlaySettings, float], None]):
    """A backend written as ``play(pending, on_record, settings, grace)``, called as every backend is:
    ``run_games(tasks, *, on_record, settings, grace)`` (the one home of that signature and its defaults, shared by
    this module and ``ray_backend``; ``match.backend_runner`` picks one). ``play`` is called only when there are
    games, and gets them in reverse order: ``pending.pop()`` is the next game in the schedule."""

    def run_games(tasks: Iterable[GameTask], *, on_record: OnRecord, settings: PlaySettings = PlaySettings(),
                  grace: float = GRACE_SECONDS) -> None:
        pending = list(tasks)
        if pending:
            pending.reverse()
            play(pending, on_record, settings, grace)

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):  # named as the backend's own, for tracebacks
        setattr(run_games, name, getattr(play, name))
    return run_games


@backend  # called as run_games(tasks, *, on_record, settings, grace)
def run_games(pending: list[GameTask], on_record: OnRecord, settings: PlaySettings, grace: float) -> None:
    """Play ``tasks`` on ``settings.workers`` isolated processes (default: one per CPU); ``on_record``
    gets each record as it ends.

    Records arrive in completion order. ``on_record`` returning True stops scheduling new games (games
    already sent to a worker, the one it plays and the one queued behind it, are finished and reported).
    Every task that is sent is reported exactly once. Of ``settings`` (the tasks carry the board and the
    clock) this takes:
    ``sandbox``: run every agent's process inside a bubblewrap sandbox of its own that shows it its
    agent file (call ``sandbox.require()`` first to fail early with a clear reason); the referee stays
    outside. ``referee``: "native" or "kaggle" (see ``evaluation.scheduling.runner``). ``memory_mb``: each
    agent's cap. ``pin_cores`` (None or True: the default here): worker ``i`` and its agents' processes
    start on CPU ``i`` (modulo the CPUs this process may use), so that a move's round trip stays on one
    core (measured 2.5 times cheaper than across two); an agent's process that runs a second thread is
    given all those CPUs back at the end of that move.
    """
    if settings.sandbox and any(spec.kind == CALLABLE for task in pending for spec in task.seats):
        raise ValueError("a callable agent cannot run in the sandbox (it lives in this process): save it to a file")
    if settings.referee == KAGGLE or any(spec.kind == BUILTIN for task in pending for spec in task.seats):
        preload()  # before the forks: never inside a timed move
    context = multiprocessing.get_context("fork")

    pin_cores = settings.pin_cores is not False
    cpus = _from_running_cpu(sorted(os.sched_getaffinity(0))) if pin_cores and hasattr(os, "sched_getaffinity") else []

    def fresh(index: int) -> _Worker:
        return _Worker(context, settings, cpus[index % len(cpus)] if cpus else None, cpus)

    pool = _Pool(pending, max(1, min(settings.workers or default_workers(), len(pending))), fresh, grace)
    restore = _share_core(cpus[0]) if cpus and len(pool.workers) == 1 else None
    try:
        while True:
            pool.fill()
            busy = pool.busy()
            if not busy:
                return
            pool.settle(pool.wait(busy), on_record)
    finally:
        pool.stop()
        if restore is not None:
            _set_affinity(restore)


class _Pool:
    """The workers of one run and the games still to send them (``run_games``'s loop, phase by phase)."""

    def __init__(self, pending: list[GameTask], size: int, fresh: Callable[[int], _Worker], grace: float) -> None:
        self.pending = pending  # in reverse: pop() gives the next game, append() puts one back in front
        self.fresh = fresh  # a new worker for slot ``index``
        self.grace = grace
        self.workers = [fresh(index) for index in range(size)]
        self.retried: set[int] = set()  # games already played again once after their worker died
        self.stopping = False  # on_record asked for no new games

    def fill(self) -> None:
        """Top up every worker's queue to ``QUEUED_PER_WORKER`` games."""
        for index, worker in enumerate(self.workers):
            while len(worker.tasks) < QUEUED_PER_WORKER and self.pending and not self.stopping:
                task = self.pending.pop()
                try:
                    worker.send(task)
                except OSError:  # the worker died
                    if worker.tasks:  # during a game: settle() handles it, as any death
                        self.pending.append(task)
                        break
                    worker = self._replace(index)  # between games: a fresh one takes the task
                    worker.send(task)

    def busy(self) -> list[_Worker]:
        return [w for w in self.workers if w.task is not None]

    def wait(self, busy: list[_Worker]) -> set[Any]:
        """The ``busy`` workers' pipes and sentinels that are ready, waiting no longer than the nearest
        deadline (nor than ``POLL_SECONDS``)."""
        deadlines = [d for d in (w.next_deadline(self.grace) for w in busy) if d is not None]
        timeout = POLL_SECONDS
        if deadlines:
            timeout = min(timeout, max(0.0, min(deadlines) - time.monotonic()))
        return set(wait([w.conn for w in busy] + [w.sentinel for w in busy], timeout))

    def settle(self, ready: set[Any], on_record: Callable[[GameRecord], bool | None]) -> None:
        """Report what each busy worker has to report; a dead or overdue worker is replaced."""
        now = time.monotonic()
        for index, worker in enumerate(self.workers):
            if worker.task is None:
                continue
            record = self._settle(index, worker, ready, now)
            if record is not None and on_record(record):
                self.stopping = True

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()

    def _settle(self, index: int, worker: _Worker, ready: set[Any], now: float) -> GameRecord | None:
        """The record of ``worker``'s game if it has ended (played, or forfeited as the worker died or
        ran past its deadline), else None."""
        record = None
        if worker.conn in ready:
            try:
                record = worker.receive()
            except (EOFError, OSError):
                record = None
        if record is not None:
            return record
        if worker.sentinel in ready or worker.conn in ready:
            return self._died(index, worker, now)
        if worker.overdue(now, self.grace):
            return self._overdue(index, worker, now)
        return None

    def _died(self, index: int, worker: _Worker, now: float) -> GameRecord | None:
        """ERROR for the seat that was thinking, or None if the game goes back to ``pending``."""
        code = worker.exit_code(wait=EXIT_WAIT_SECONDS)
        task = worker.task
        assert task is not None, "only a busy worker is settled"
        record = None
        if not worker.started() and task.game_id not in self.retried:
            # died before any move of this game: not this game's fault; play it again once
            self.retried.add(task.game_id)
            self.pending.append(task)
        else:
            record = forfeit(task, worker.seat(), ERROR, f"worker process died (exit code {code})",
                             worker.thinking_for(now))
        self._replace(index)
        return record

    def _overdue(self, index: int, worker: _Worker, now: float) -> GameRecord:
        """TIMEOUT for the seat that was thinking; the worker is killed."""
        late = now > worker.limit
        assert worker.task is not None, "only a busy worker is settled"
        record = forfeit(worker.task, worker.seat(), TIMEOUT,
                         "the game ran past its longest possible duration: killed" if late
                         else "no answer by the move's deadline: killed", worker.thinking_for(now))
        self._replace(index)
        return record

    def _replace(self, index: int) -> _Worker:
        """Stop worker ``index`` and start a fresh one in its place; the games queued behind its current
        one were never started and go back to ``pending``, in their order."""
        worker = self.workers[index]
        self.pending.extend(reversed(worker.unstarted()))
        worker.stop()
        self.workers[index] = self.fresh(index)
        return self.workers[index]


def _share_core(cpu: int) -> set[int] | None:
    """Run this thread on the one worker's CPU for the run (a finished game then wakes it there, not on an
    idle core: measured 6 % faster; with two workers, pinning it slowed them by 8 %); the CPUs to give
    back afterwards."""
    cpus = os.sched_getaffinity(0)
    return cpus if _set_affinity({cpu}) else None


def _from_running_cpu(cpus: list[int]) -> list[int]:
    """``cpus`` in turn from the one this process runs on, where worker 0 goes: runs started side by side (two
    commands, a notebook beside a shell, parallel tests) then start on the cores the scheduler spread them
    over, where always starting at the first CPU piled every one-worker run onto one core."""
    running = _running_cpu()
    if running not in cpus:
        return cpus
    start = cpus.index(running)
    return cpus[start:] + cpus[:start]


def _running_cpu() -> int | None:
    """The CPU this process last ran on (the 39th field of /proc/self/stat), None where unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[36])
    except (OSError, IndexError, ValueError):
        return None


def _set_affinity(cpus: set[int]) -> bool:
    try:
        os.sched_setaffinity(0, cpus)
        return True
    except OSError:
        return False


def longest_game(task: GameTask) -> float:
    """Seconds no legitimate game can exceed: every move at act timeout + grace, both overage banks
    spent, and generous slack for the referee. A backstop only: the per-move deadline comes first."""
    plies = Config.from_kaggle(dict(task.config)).cells
    return plies * (task.act_timeout + GRACE_SECONDS) + 2 * task.overage + GAME_SLACK_SECONDS
