"""An accuracy run from its settings to its report: the positions (the shipped benchmark, another benchmark
file, or ``--positions``' games labelled by the solver), the agents asked every one of them
(``measuring.play``), the report (``measuring.report``) and its files: the JSON Lines of every answer and the PNG
of accuracy by ply. Everything is checked before the first game; the files are written whole at the end (never
half of one), and a run cut short writes none."""

from __future__ import annotations

import dataclasses
import os
import time
from typing import Any, Callable, Sequence

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import Benchmark, BenchmarkError, DEFAULT_BENCHMARK, load_benchmark
from connectx_toolkit.measuring.play import game_task, play_benchmark
from connectx_toolkit.measuring.settings import AccuracySettings
from connectx_toolkit.errors import UsageError

__all__ = ["default_output", "positions_of", "run_accuracy"]


def positions_of(settings: AccuracySettings) -> Benchmark:
    """The positions the agents are asked: ``--positions``' (labelled here), another benchmark file, or the
    shipped benchmark; cut to the first ``games`` games."""
    if settings.positions is not None:
        from connectx_toolkit.measuring.positions_file import DEFAULT_BUDGET, PositionsSettings, read_positions

        bar: list[Any] = []  # made at the first position, when the total is known

        def on_position(done: int, total: int) -> None:
            if settings.progress and not bar:
                from connectx_toolkit.evaluation.reports.progress import progress_bar

                bar.append(progress_bar(total, unit="position", desc="labelling"))
            if bar and bar[0] is not None:
                bar[0].update(1)

        try:
            benchmark = read_positions(settings.positions, PositionsSettings(budget=settings.budget or DEFAULT_BUDGET,
                                                                              cache=settings.cache),
                                       on_position=on_position, games=settings.games)
        finally:
            if bar and bar[0] is not None:
                bar[0].close()
    else:
        try:
            benchmark = load_benchmark(settings.benchmark or DEFAULT_BENCHMARK)
        except BenchmarkError as error:
            raise UsageError(str(error)) from None
    if settings.games is not None:
        benchmark = benchmark.only(game.id for game in benchmark.games[:settings.games])
    if not benchmark.positions:
        from connectx_toolkit.measuring.report import left_out_figures, left_out_line

        why = left_out_line(left_out_figures(benchmark.metadata))
        raise UsageError(f"{benchmark.source}: no position to ask" + (f" ({why})" if why else ""))
    return benchmark


def default_output(names: Sequence[str], suffix: str) -> str:
    """``results/accuracy-<agents>-<UTC time>-<pid><suffix>``, as a match names its results file."""
    from connectx_toolkit.building.agent_names import file_stem as short

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return os.path.join("results", f"accuracy-{'-'.join(short(n) for n in names[:3])}-{stamp}-{os.getpid()}{suffix}")


def _writable(path: str, flag: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a folder, not a file")
    if not os.path.isdir(folder) and os.path.dirname(path) not in ("", "results"):
        raise UsageError(f"{flag} {path}: no such folder {os.path.dirname(path)!r}")


def run_accuracy(settings: AccuracySettings, *, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Ask every agent of ``settings`` the positions and return the report (``measuring.report``'s dict, with the
    paths of the files written under ``"files"``). Bad input raises ``UsageError`` (one line) before any game."""
    from connectx_toolkit.building.agent_names import resolved
    from connectx_toolkit.measuring.plot import save_accuracy_plot
    from connectx_toolkit.measuring.report import build_report, write_answers
    from connectx_toolkit.evaluation.reports.progress import progress_bar
    from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable, require_backend_can_load
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
    from connectx_toolkit.sandbox import SandboxUnavailable

    names = [agent if isinstance(agent, str) else getattr(agent, "__name__", "agent") for agent in settings.agents]
    answers_path = settings.answers or default_output(names, ".jsonl")
    plot_path = settings.plot or os.path.splitext(answers_path)[0] + ".png"
    _writable(answers_path, "--answers")
    _writable(plot_path, "--plot")
    if settings.sandbox:
        from connectx_toolkit.sandbox import require

        try:
            require()
        except SandboxUnavailable as error:
            raise UsageError(str(error)) from None
    specs = []
    for agent in settings.agents:
        try:
            spec = resolve_agent(agent, sandbox=settings.sandbox, paths=tuple(settings.path))
            specs.append(dataclasses.replace(spec, name=resolved(spec.name)))  # a folder given as . by its real path
        except AgentSpecError as error:
            raise UsageError(str(error)) from None
    shown = [spec.name for spec in specs]
    if len(set(shown)) < len(shown):
        raise UsageError(f"two agents are both named {next(n for n in shown if shown.count(n) > 1)!r}: each agent's "
                         "answers are compared by its name")
    benchmark = positions_of(settings)
    try:
        require_backend_can_load(settings.backend, [game_task(spec, benchmark.games[0], settings) for spec in specs])
    except BackendUnavailable as error:
        raise UsageError(str(error)) from None
    games = sum(1 for game in benchmark.games if game.positions)
    if log is not None:
        log(f"{len(benchmark.positions)} positions of {games} games ({benchmark.source}), "
            f"{len(specs)} agent{'s' if len(specs) > 1 else ''}, on Kaggle's clock "
            f"({settings.act_timeout:g} s a move, {settings.overage:g} s bank a game)")
    bar = progress_bar(games * len(specs), unit="game", desc="accuracy") if settings.progress else None
    started = time.monotonic()
    try:
        answers = play_benchmark(specs, benchmark, settings, on_game=lambda _: bar.update(1) if bar else None)
    finally:
        if bar is not None:
            bar.close()
    elapsed = time.monotonic() - started
    by_agent: dict[str, Sequence[Answer]] = dict(zip(shown, answers))
    report = build_report(benchmark, by_agent, worst=settings.worst, elapsed_s=elapsed)
    write_answers(answers_path, [answer for found in answers for answer in found])
    save_accuracy_plot(report["agents"], plot_path)  # drawn from the report's figures, not computed again
    report["files"] = {"answers": answers_path, "plot": plot_path}
    return report
