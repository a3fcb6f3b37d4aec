"""The analysis's jobs, as plain functions of an :class:`AnalysisSettings`:

- :func:`analyze_file`: every game of a results file or a Kaggle episode JSON (``connectx analyze FILE``);
- :func:`analyze_records`: the games a match has just played (``connectx match A B --analyze``);
- :func:`label`: every move of some games labelled, with the settings and counts the reports print (the ladder).

Bad input raises ``AnalysisInputError`` (a ``UsageError``: one line, exit 2 at the command line); a solver
worker that cannot start raises ``RuntimeError``.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

from connectx_toolkit.analysis.cache import PositionCache, default_cache_path
from connectx_toolkit.analysis.games import AnalysisInputError, Game, from_record, read_games
from connectx_toolkit.analysis.labelling import GameAnalysis, label_games
from connectx_toolkit.analysis.settings import NO_CACHE, AnalysisSettings, default_budget
from connectx_toolkit.analysis.solving import compiled_solver_available
from connectx_toolkit.analysis.summary import analysis_json, analysis_table
from connectx_toolkit.analysis.table import OutcomeTable
from connectx_toolkit.analysis.workers import default_workers

__all__ = ["analyze_file", "analyze_games", "analyze_records", "label"]


def analyze_file(path: str, settings: AnalysisSettings) -> tuple[dict[str, Any], str]:
    """Analyse every finished game of ``path`` (a results file or a Kaggle episode JSON): the analysis's JSON
    object (what ``connectx analyze --json`` prints under ``"analysis"``) and its table for people. The
    annotated replays and the plot go to ``settings.directory`` (default: ``FILE-analysis`` beside it)."""
    games = read_games(path)
    if not games:
        raise AnalysisInputError(f"{path!r} holds no finished game")
    return analyze_games(games, settings.directory or os.path.splitext(path)[0] + "-analysis", settings)


def analyze_records(records: Sequence[Any], results_path: str, settings: AnalysisSettings) -> tuple[dict[str, Any], str]:
    """The ``"analysis"`` object and the table for the games a match just played (its records, and the results
    file they were written to: the replays and the plot go beside it unless ``settings.directory`` says)."""
    games = [from_record(record, results_path) for record in records]
    return analyze_games(games, settings.directory or os.path.splitext(results_path)[0] + "-analysis", settings)


def analyze_games(games: list[Game], directory: str, settings: AnalysisSettings) -> tuple[dict[str, Any], str]:
    """Label ``games``, save an annotated replay of every decided game and the plot in ``directory``."""
    from connectx_toolkit.analysis.plot import save_losing_moves_plot
    from connectx_toolkit.analysis.replay import save_annotated_replay

    analyses, figures = label(games, settings)
    replays = [save_annotated_replay(a, directory) for a in analyses if a.game.loser_seat is not None]
    plot = save_losing_moves_plot(analyses, os.path.join(directory, "losing-moves.png")) if analyses else None
    figures.update(replays=replays, plot=plot)
    text = analysis_table(analyses, figures)
    text += f"\nannotated replays: {len(replays)} in {directory}" + (f"\nplot: {plot}" if plot else "")
    return analysis_json(analyses, figures), text


def label(games: list[Game], settings: AnalysisSettings) -> tuple[list[GameAnalysis], dict[str, Any]]:
    """Label every move of ``games``; returns the analyses and the settings and counts the reports print
    (``engine``, ``budget_s``, ``searched``, ``timed_out``, ``from_table``, ``cache_hits``, ``cache``,
    ``elapsed_s``)."""
    compiled = settings.compiled_solver and compiled_solver_available()
    budget = settings.budget or default_budget(compiled)
    cache_path = settings.cache or default_cache_path()
    try:
        cache = PositionCache(None if cache_path == NO_CACHE else cache_path)
    except ValueError as error:
        raise AnalysisInputError(str(error)) from None
    started = time.monotonic()
    stats: dict[str, int] = {}
    try:
        analyses = label_games(games, budget, cache, settings.workers or default_workers(), compiled,
                               progress=settings.progress, stats=stats,
                               table=OutcomeTable() if settings.outcome_table else None)
    finally:
        cache.close()
    figures = {
        "engine": "compiled solver" if compiled else "python exact search",
        "budget_s": budget,
        "searched": stats["searched"],
        "timed_out": stats["timed_out"],
        "from_table": stats["from_table"],
        "cache_hits": cache.hits,
        "cache": cache.path,
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    return analyses, figures
