"""``--backend ray``: the same games on a Ray cluster, for suites that outgrow one machine.

Each game is one Ray task. Inside the task the game runs exactly as on the default backend: in an
isolated worker process forked by ``evaluation.pool`` with Kaggle's per-move hard deadline, so a hung or
crashing agent forfeits its own game and leaves the Ray worker healthy. Ray only adds the scheduling
across cores and machines.

Connection: when Ray is already initialised in this process it is used as is; otherwise ``ray.init``
joins the cluster named by ``RAY_ADDRESS`` (e.g. ``ray://head:10001`` or ``auto``), or starts a private
local instance with ``workers`` CPUs when that variable is unset (what the tests do). Every node needs
this project at the same path with the same environment (the usual Ray cluster setup): tasks import
``evaluation``/``agents`` and agent files are passed by absolute path.

Ray is optional (``pip install -r requirements-ray.txt``); without it ``--backend ray`` is a usage
error that says so, and the default multiprocessing backend needs nothing.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable

from evaluation.pool import DEFAULT_MEMORY_MB, GRACE_SECONDS, forfeit
from evaluation.record import GameRecord, GameTask

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import ray
except ImportError as error:  # raised as the module's own ImportError so `--backend ray` can name the fix
    raise ModuleNotFoundError(
        "--backend ray needs Ray: pip install -r requirements-ray.txt", name="evaluation.ray_backend"
    ) from error


def play_isolated(task: GameTask, memory_mb: int, grace: float) -> GameRecord:
    """One game in a fresh isolated worker process with hard deadlines (the default backend, for one game)."""
    from evaluation.pool import run_games as run_in_processes

    records: list[GameRecord] = []
    run_in_processes([task], workers=1, on_record=records.append, memory_mb=memory_mb, grace=grace)
    return records[0]


def run_games(
    tasks: Iterable[GameTask],
    *,
    workers: int | None = None,
    on_record: Callable[[GameRecord], bool | None],
    memory_mb: int = DEFAULT_MEMORY_MB,
    grace: float = GRACE_SECONDS,
) -> None:
    """Play ``tasks`` as Ray tasks; same contract as ``evaluation.pool.run_games``.

    Records arrive in completion order; ``on_record`` returning True stops scheduling new games (games
    already running are finished and reported). At most ``workers`` games run at once (default: every
    CPU of the cluster).
    """
    pending = list(tasks)
    pending.reverse()  # pop() from the end keeps the schedule's order
    if not pending:
        return
    started_here = _connect(workers)
    try:
        play = ray.remote(num_cpus=1, max_retries=0)(play_isolated)
        capacity = max(1, workers or int(ray.cluster_resources().get("CPU", 1)))
        running: dict[Any, GameTask] = {}
        stopping = False
        while running or (pending and not stopping):
            while pending and not stopping and len(running) < capacity:
                task = pending.pop()
                running[play.remote(task, memory_mb, grace)] = task
            finished, _ = ray.wait(list(running), num_returns=1)
            for reference in finished:
                task = running.pop(reference)
                try:
                    record = ray.get(reference)
                except ray.exceptions.RayError as error:  # the Ray worker itself died: nobody's move to blame
                    record = forfeit(task, 0, "error", f"ray task failed: {type(error).__name__}")
                if on_record(record):
                    stopping = True
    finally:
        if started_here:
            ray.shutdown()


def _connect(workers: int | None) -> bool:
    """Initialise Ray unless it already is; True when this call started it (and must shut it down)."""
    if ray.is_initialized():
        return False
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": "ERROR",
        "runtime_env": {"env_vars": {"PYTHONPATH": path}},  # the tasks import this project
    }
    address = os.environ.get("RAY_ADDRESS")
    if address:
        options["address"] = address
    elif workers:
        options["num_cpus"] = workers
    ray.init(**options)
    return True
