"""``connectx train --learner ntuple --runs R``: R runs of the n-tuple learner side by side, the most accurate kept.

Each run trains in a folder of its own under OUT (``run1``, ``run2``, ...: its checkpoint, agent and learning
curve, as a single run writes them), on local processes (``--backend process``: at most ``--workers`` at once,
default one a core) or as tasks of a Ray cluster (``--backend ray``, connected as the evaluator's Ray backend
is: ``evaluation.scheduling.ray_backend.connect``). A run is trained by the caller's ``worker(order) ->
RunReport`` (``cli.train.train_run``, the function a single run is trained by), given here by reference so that a
process or a Ray task imports it by name. A report carries the run's curve and its agent's weights file, so the
driver writes OUT's agent and the curves from the reports alone: on a cluster of several machines the chosen
agent comes back whole, while each run's checkpoint stays in the run's folder on the machine that trained it.

The most accurate run is the one whose last curve point is the most accurate on the benchmark's critical
positions, then on all of them (the first run on a tie). ``OUT/runs.json`` lists the runs and their settings, so
``connectx train --resume OUT`` goes on with all of them.

Ctrl-C: every run finishes the chunk under way and writes its checkpoint (local processes get the signal from the
terminal, or from this process when it alone is sent one; Ray tasks are cancelled, which their trainer hears as
Ctrl-C); runs not yet started are not started.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.scheduling.play_settings import PROCESS, RAY

MANIFEST = "runs.json"
CURVES_CSV, CURVES_PNG = "learning_curves.csv", "learning_curves.png"
SELECTION_RULE = "the last curve point's accuracy on the critical positions, then on all positions"


@dataclass(frozen=True)
class RunOrder:
    """What one run is to do, in plain data (it travels to a process or a Ray task)."""

    name: str  # run1, run2, ...
    folder: str  # absolute: a Ray worker's working folder is not the caller's
    settings: dict[str, Any] | None  # a new run's ``NTupleSettings.record()``; None: on from the folder's checkpoint
    episodes: int | None  # games in all (None: no limit)
    minutes: float | None  # a wall budget for this run (None: no limit)
    changes: dict[str, Any] = field(default_factory=dict)  # settings a resumed run takes anew (checkpoint_seconds)
    announce: bool = False  # print a line at every curve point (local processes: their stderr is the terminal's)


@dataclass
class RunReport:
    """How a run ended: why it stopped ("episodes", "minutes", "interrupted"; "failed" with ``error``), its counts,
    settings and curve, and its agent's weights file (``weights``: the bytes of data/ntuple_6x7.npz)."""

    name: str
    folder: str
    why: str
    episodes: int = 0
    played: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)
    curve: list[dict[str, Any]] = field(default_factory=list)
    weights: bytes = b""
    error: str = ""


Worker = Callable[[RunOrder], RunReport]


# -- the runs' folder ------------------------------------------------------------------------------------------

def write_manifest(out: str, orders: Sequence[RunOrder], settings: Sequence[dict[str, Any]]) -> str:
    path = os.path.join(out, MANIFEST)
    document = {"learner": "ntuple", "runs": [{"name": order.name, "settings": record}
                                              for order, record in zip(orders, settings)]}
    write_atomically(path, json.dumps(document, indent=1) + "\n")
    return path


def read_manifest(out: str) -> list[dict[str, Any]] | None:
    """The runs ``OUT/runs.json`` lists (name and settings each); None when OUT is not a runs folder."""
    path = os.path.join(out, MANIFEST)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            runs = json.load(handle)["runs"]
        return [{"name": str(run["name"]), "settings": dict(run["settings"])} for run in runs]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{path}: not a runs list written by connectx train --runs ({error})") from None


# -- running them ----------------------------------------------------------------------------------------------

def run_all(orders: Sequence[RunOrder], worker: Worker, backend: str, workers: int | None = None) -> list[RunReport]:
    """Every order's report, in the orders' order."""
    if backend == PROCESS:
        return run_on_processes(orders, worker, workers or os.cpu_count() or 1)
    if backend == RAY:
        return run_on_ray(orders, worker, workers)
    raise UsageError(f"--backend must be one of {PROCESS}, {RAY}, not {backend!r}")


def _in_process(worker: Worker, order: RunOrder, results: Any) -> None:
    """A local run's process: the report (or the failure) goes back on ``results`` (its end of a pipe)."""
    try:
        report = worker(order)
    except KeyboardInterrupt:  # Ctrl-C before training began (its trainer hears it as a stop once it has)
        report = RunReport(order.name, order.folder, "interrupted")
    except Exception as error:  # a run's own failure is reported, the other runs go on
        traceback.print_exc()
        report = RunReport(order.name, order.folder, "failed", error=f"{type(error).__name__}: {error}")
    results.send(report)
    results.close()


def run_on_processes(orders: Sequence[RunOrder], worker: Worker, workers: int) -> list[RunReport]:
    """The runs on local processes (spawned: each imports the toolkit afresh), at most ``workers`` at a time."""
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("spawn")
    pending = list(orders)
    running: dict[Any, tuple[RunOrder, Any]] = {}  # a run's end of its pipe: its order and process
    reports: dict[str, RunReport] = {}
    interrupted = False

    def on_interrupt(signum: int, frame: Any) -> None:
        nonlocal interrupted
        interrupted = True
        for _, process in running.values():  # those the terminal's Ctrl-C did not reach (a signal to us alone)
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGINT)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        while pending or running:
            while pending and not interrupted and len(running) < max(1, workers):
                order = pending.pop(0)
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(target=_in_process, args=(worker, order, writer), name=order.name)
                process.start()
                writer.close()  # the child's end: the parent's copy closed, so a dead child reads as an end
                running[reader] = (order, process)
            if interrupted and pending:
                reports.update({o.name: RunReport(o.name, o.folder, "interrupted") for o in pending})
                pending.clear()
            # the pipe, not the process's end: a report (a few MB of weights) is read while it is being sent
            ready: list[Any] = wait(list(running))  # our pipes' ends
            for reader in ready:
                order, process = running.pop(reader)
                try:
                    reports[order.name] = reader.recv()
                except EOFError:  # it died without a word (kill -9, a crash): its last checkpoint stays
                    process.join()  # its pipe can close before its exit code is known
                    reports[order.name] = RunReport(order.name, order.folder, "failed",
                                                    error=f"its process ended with exit code {process.exitcode}")
                reader.close()
                process.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    return [reports[order.name] for order in orders]


def ray_backend() -> Any:
    """The evaluator's Ray backend module; ``UsageError`` (one line naming requirements-ray.txt) without Ray."""
    import importlib

    name = "connectx_toolkit.evaluation.scheduling.ray_backend"
    try:  # by name: a from-import of a package's submodule would turn the module's own message into its own
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name == name:  # the module's message names the fix
            raise UsageError(error.msg) from None
        raise


def run_on_ray(orders: Sequence[RunOrder], worker: Worker, workers: int | None) -> list[RunReport]:
    """The runs as Ray tasks (one CPU each), on the cluster ``ray_backend.connect`` joins or starts."""
    backend = ray_backend()
    ray = backend.ray
    started_here = backend.connect(workers)
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(worker)
        running = {task.remote(order): order for order in orders}
        reports: dict[str, RunReport] = {}
        try:
            while running:
                finished, _ = ray.wait(list(running), num_returns=1)
                for reference in finished:
                    order = running.pop(reference)
                    reports[order.name] = _ray_result(ray, reference, order)
        except KeyboardInterrupt:
            for reference in running:  # a running task hears it as Ctrl-C: its chunk, then its checkpoint
                ray.cancel(reference, force=False)
            for reference, order in running.items():
                reports[order.name] = _ray_result(ray, reference, order)
        return [reports[order.name] for order in orders]
    finally:
        if started_here:
            ray.shutdown()


def _ray_result(ray: Any, reference: Any, order: RunOrder) -> RunReport:
    try:
        return ray.get(reference)
    except ray.exceptions.TaskCancelledError:  # cancelled before it began
        return RunReport(order.name, order.folder, "interrupted")
    except ray.exceptions.RayError as error:
        return RunReport(order.name, order.folder, "failed", error=f"ray task failed: {error}".splitlines()[0])


# -- what they gave --------------------------------------------------------------------------------------------

def last_point(report: RunReport) -> dict[str, Any] | None:
    return report.curve[-1] if report.curve else None


def most_accurate(reports: Sequence[RunReport]) -> RunReport | None:
    """The run whose last curve point is the most accurate on the critical positions, then on all of them (the
    first such run on a tie); None when no run has a curve point."""
    best: RunReport | None = None
    for report in reports:
        point = last_point(report)
        if report.why == "failed" or point is None or not report.weights:
            continue
        if best is None or (point["critical"], point["all"]) > (last_point(best)["critical"],  # type: ignore[index]
                                                                last_point(best)["all"]):  # type: ignore[index]
            best = report
    return best


def varying(reports: Sequence[RunReport]) -> list[str]:
    """The settings (other than the seed) whose values differ between the runs."""
    names: list[str] = []
    for report in reports:
        names += [k for k in report.settings if k not in names and k != "seed"]
    return [n for n in names if len({json.dumps(r.settings.get(n)) for r in reports}) > 1]


def combined_rows(reports: Sequence[RunReport]) -> list[dict[str, Any]]:
    """Every run's curve points in one table: the run, its seed and the settings that vary, then the point."""
    shown = varying(reports)
    return [{"run": r.name, "seed": r.settings.get("seed"), **{n: r.settings.get(n) for n in shown}, **point}
            for r in reports for point in r.curve]


def table(reports: Sequence[RunReport], chosen: RunReport | None) -> list[str]:
    """The runs as lines of a table: settings that vary, games, CPU minutes, the last point, why it stopped."""
    shown = varying(reports)
    header = ["run", "seed", *shown, "episodes", "CPU min", "all", "critical", "stopped"]
    rows = []
    for r in reports:
        point = last_point(r) or {}
        rows.append([r.name + (" *" if r is chosen else ""), str(r.settings.get("seed", "")),
                     *[f"{r.settings.get(n)}" for n in shown], f"{r.episodes:,}", f"{r.cpu_seconds / 60:.1f}",
                     f"{point['all']:.1%}" if "all" in point else "-",
                     f"{point['critical']:.1%}" if "critical" in point else "-",
                     r.why + (f" ({r.error})" if r.error else "")])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    left = {0, len(header) - 1}
    return ["  ".join(cell.ljust(w) if i in left else cell.rjust(w) for i, (cell, w) in
                      enumerate(zip(row, widths))).rstrip() for row in [header, *rows]]
