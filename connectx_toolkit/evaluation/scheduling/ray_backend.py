"""``--backend ray``: the same games on a Ray cluster, for suites that outgrow one machine.

Games are sent to Ray in small batches (one Ray task each). Inside a task the games run exactly as on the
default backend: in an isolated worker process forked by ``evaluation.scheduling.pool`` with Kaggle's per-move hard
deadline, so a hung or crashing agent forfeits its own game and leaves the Ray worker healthy. Ray only
adds the scheduling across cores and machines.

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
from typing import Any

from dataclasses import replace

from connectx_toolkit.evaluation.referees.record import ERROR, GameRecord, GameTask, forfeit
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.pool import OnRecord, backend
from connectx_toolkit.evaluation.seats.agent_kinds import MODULE

# where connectx_toolkit is imported from (the checkout, or site-packages)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MAX_GAMES_PER_TASK = 8

try:
    import ray  # pyright: ignore[reportMissingImports]  optional (requirements-ray.txt): absent where it is not installed
    import ray.exceptions  # pyright: ignore[reportMissingImports]  (the same; named, so a checker sees the submodule)
except ImportError as error:  # raised as the module's own ImportError so `--backend ray` can name the fix
    raise ModuleNotFoundError(
        "--backend ray needs Ray: pip install -r requirements-ray.txt", name="connectx_toolkit.evaluation.scheduling.ray_backend"
    ) from error


def play_isolated(tasks: list[GameTask], settings: PlaySettings, grace: float) -> list[GameRecord]:
    """A few games, one after another, in an isolated worker process with hard deadlines (the default
    backend with one worker); a killed game's worker is replaced as usual."""
    from connectx_toolkit.evaluation.scheduling.pool import run_games as run_in_processes

    _warm_up(tasks)
    records: list[GameRecord] = []
    run_in_processes(tasks, on_record=records.append, settings=settings, grace=grace)
    return records


def _warm_up(tasks: list[GameTask]) -> None:
    """Import the referee and the agents' modules in this long-lived Ray worker before forking the game's
    process, as the default backend's parent has them imported: otherwise every game's first move would pay
    for the imports (about a second) and be timed with them."""
    import importlib

    import kaggle_environments  # noqa: F401

    for spec in {spec for task in tasks for spec in task.seats}:
        if spec.kind == MODULE:
            importlib.import_module(spec.target)


@backend  # called as run_games(tasks, *, on_record, settings, grace)
def run_games(pending: list[GameTask], on_record: OnRecord, settings: PlaySettings, grace: float) -> None:
    """Play ``tasks`` as Ray tasks; same contract as ``evaluation.scheduling.pool.run_games``.

    Records arrive in completion order; ``on_record`` returning True stops scheduling new games (games
    already running are finished and reported). At most ``settings.workers`` games run at once (default:
    every CPU of the cluster). Cores are not pinned unless ``settings.pin_cores`` is True: a Ray node
    places its own tasks.
    """
    workers = settings.workers
    # each Ray task plays its games on one worker process of the default backend
    in_task = replace(settings, workers=1, pin_cores=settings.pin_cores is True)
    started_here = connect(workers)
    try:
        play = ray.remote(num_cpus=1, max_retries=0)(play_isolated)
        capacity = max(1, workers or int(ray.cluster_resources().get("CPU", 1)))
        # Several games per Ray task amortise the task's cost (a fork of a large Ray worker); small enough
        # that every CPU gets about four tasks and a stop (SPRT) wastes little.
        chunk = max(1, min(MAX_GAMES_PER_TASK, len(pending) // (4 * capacity)))
        running: dict[Any, list[GameTask]] = {}
        stopping = False
        while running or (pending and not stopping):
            while pending and not stopping and len(running) < capacity:
                batch = [pending.pop() for _ in range(min(chunk, len(pending)))]
                running[play.remote(batch, in_task, grace)] = batch
            finished, _ = ray.wait(list(running), num_returns=1)
            for reference in finished:
                batch = running.pop(reference)
                try:
                    records = ray.get(reference)
                except ray.exceptions.RayError as error:  # the Ray worker itself died: nobody's move to blame
                    records = [forfeit(task, 0, ERROR, f"ray task failed: {type(error).__name__}") for task in batch]
                for record in records:
                    if on_record(record):
                        stopping = True
    finally:
        if started_here:
            ray.shutdown()


def connect(workers: int | None) -> bool:
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
