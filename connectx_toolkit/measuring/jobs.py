"""An accuracy run from its settings to its report: the positions (the shipped benchmark, another benchmark
file, or the games of ``--positions``' files labelled by the solver, each file reported on its own), the agents asked every one of them
(``measuring.play``), the report (``measuring.report``) and its files: the JSON Lines of every answer and the PNG
of accuracy by ply. Everything is checked before the first game; the files are written whole at the end (never
half of one), and a run cut short writes none."""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import replace
from typing import Any, Callable, Sequence

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import (Benchmark, BenchmarkError, DEFAULT_BENCHMARK, SourceGame,
                                                  load_benchmark)
from connectx_toolkit.measuring.play import game_task, play_benchmark
from connectx_toolkit.measuring.settings import AccuracySettings
from connectx_toolkit.errors import UsageError

__all__ = ["default_output", "labelled_files", "positions_of", "run_accuracy"]


def positions_of(settings: AccuracySettings) -> Benchmark:
    """The positions the agents are asked: ``--positions``' files (labelled here: :func:`labelled_files`), another
    benchmark file, or the shipped benchmark; cut to the first ``games`` games."""
    if settings.positions is not None:
        benchmark = labelled_files(settings)
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


def labelled_files(settings: AccuracySettings) -> Benchmark:
    """Every file of ``--positions`` labelled (``measuring.positions_file``: its first ``games`` games or a seeded
    ``sample`` of them, on ``workers`` processes), as one benchmark whose ``metadata["files"]`` holds each file's
    own metadata, with ``source``, its Pons set (``set``, ``title``: ``measuring.pons``) and the range of its game
    ids (``first_id``, ``last_id``): with several files, file k's games are numbered k * stride + their own id
    (stride a power of ten above every id), so that no two files share a game id."""
    from connectx_toolkit.analysis.workers import default_workers
    from connectx_toolkit.measuring.pons import pons_set
    from connectx_toolkit.measuring.positions_file import (DEFAULT_BUDGET, DEFAULT_EARLY_BUDGET, PositionsSettings,
                                                          read_positions)

    budget = settings.budget or DEFAULT_BUDGET
    parts = []
    for path in settings.position_files:
        found = pons_set(path)
        # every position of a Pons set is asked on purpose (65 % of Begin-Hard has fewer than 8 stones): the budget
        early = settings.early_budget or (budget if found is not None else DEFAULT_EARLY_BUDGET)
        bar: list[Any] = []  # made at the first position, when the total is known

        def on_position(done: int, total: int) -> None:
            if settings.progress and not bar:
                from connectx_toolkit.evaluation.reports.progress import progress_bar

                name = found.name if found is not None else os.path.basename(path)
                bar.append(progress_bar(total, unit="position", desc=f"labelling {name}"))
            if bar and bar[0] is not None:
                bar[0].update(1)

        try:
            part = read_positions(path, PositionsSettings(budget=budget, cache=settings.cache, early_budget=early),
                                  on_position=on_position, games=settings.games, sample=settings.sample,
                                  seed=settings.seed, workers=settings.workers or default_workers())
        finally:
            if bar and bar[0] is not None:
                bar[0].close()
        parts.append((part, found))
    if len(parts) == 1:
        part, found = parts[0]
        ids = [game.id for game in part.games] or [0]
        return Benchmark(part.games, dict(part.metadata, files=[_file_entry(part, found, min(ids), max(ids))]),
                         part.source)
    stride = 10 ** len(str(max((game.id for part, _ in parts for game in part.games), default=0)))
    games, files = [], []
    for index, (part, found) in enumerate(parts):
        offset = index * stride
        games += [SourceGame(game.id + offset, game.moves, game.agents,
                             tuple(replace(p, game=p.game + offset) for p in game.positions)) for game in part.games]
        files.append(_file_entry(part, found, offset, offset + stride - 1))
    metadata = _merged_metadata([part.metadata for part, _ in parts])
    metadata["files"] = files
    return Benchmark(tuple(games), metadata, f"{len(parts)} files of positions")


def _file_entry(part: Benchmark, found: Any, first_id: int, last_id: int) -> dict[str, Any]:
    return dict(part.metadata, source=part.source, set=None if found is None else found.name,
                title=None if found is None else f"{found.title} ({found.file})",
                published=None if found is None else {"alphazero": found.alphazero, "minimax": found.minimax},
                first_id=first_id, last_id=last_id)


def _merged_metadata(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The files' metadata added up, for the report's left-out line over all of them."""
    reasons = {key: dict(reason, by_phase=dict(reason["by_phase"])) for key, reason in parts[0]["left_out_by_reason"].items()}
    for metadata in parts[1:]:
        for key, reason in metadata["left_out_by_reason"].items():
            reasons[key]["positions"] += reason["positions"]
            if reason["reason"] != reasons[key]["reason"]:  # budgets differ between the files: the words only
                reasons[key]["reason"] = reasons[key]["reason"].split(",")[0]
            for phase, count in reason["by_phase"].items():
                reasons[key]["by_phase"][phase] += count
    summed = {key: sum(metadata[key] for metadata in parts)
              for key in ("games", "positions", "file_positions", "distinct_positions", "left_out", "searched")}
    return dict(summed, left_out_positions=[moves for metadata in parts for moves in metadata["left_out_positions"]],
                left_out_by_reason=reasons)


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
