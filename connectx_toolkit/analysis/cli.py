"""The analysis flags of ``evaluate.py``: ``--analyze``, ``--analyze-file FILE``, ``--analysis-budget``.

``evaluate.py`` only registers these flags and calls :func:`check`, :func:`analyse_file` or
:func:`analyse_records`; everything else lives in this package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import IO, Any, Sequence

from connectx_toolkit.cli.program import evaluate_program
from connectx_toolkit.analysis.cache import PositionCache, default_cache_path
from connectx_toolkit.analysis.games import AnalysisInputError, Game, from_record, read_games
from connectx_toolkit.analysis.labelling import GameAnalysis, label_games
from connectx_toolkit.analysis.table import OutcomeTable
from connectx_toolkit.analysis.solving import compiled_solver_available
from connectx_toolkit.analysis.summary import analysis_json, analysis_table
from connectx_toolkit.analysis.workers import default_workers

__all__ = ["DEFAULT_BUDGETS", "add_arguments", "analyse_file", "analyse_records", "check", "default_budget", "label"]

# CPU seconds per position when --analysis-budget is not given. With the outcome table, only positions from
# ply 8 on are searched; the compiled solver settles nearly all of them at once and the few hard ones
# (docs/analysis.md) within this budget. The Python search cannot settle many positions at plies 8-11 in
# any budget, and each of them costs the whole budget, so it gets less.
DEFAULT_BUDGETS = {"compiled": 30.0, "python": 6.0}


def default_budget(compiled: bool) -> float:
    return DEFAULT_BUDGETS["compiled" if compiled else "python"]


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0 and <= 3600")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("game analysis (6x7, four in a row)")
    group.add_argument("--analyze", action="store_true", help="label every move of the games played with its exact value")
    group.add_argument("--analyze-file", metavar="FILE", help="analyse a results file or a Kaggle episode JSON, then exit")
    group.add_argument("--analysis-budget", type=_budget, default=None, metavar="SECONDS",
                       help=f"CPU seconds of search per position (default {DEFAULT_BUDGETS['compiled']:g} with the "
                            f"compiled solver, {DEFAULT_BUDGETS['python']:g} with the Python search)")
    group.add_argument("--analysis-cache", metavar="PATH", default=None,
                       help=f"SQLite file of solved positions (default {default_cache_path()}; 'none': no cache)")
    group.add_argument("--analysis-dir", metavar="DIR",
                       help="where the annotated replays and the PNG go (default: next to the results file)")
    group.add_argument("--no-compiled-solver", action="store_true",
                       help="search with the agent's Python solver only, even when numba is installed (analysis/fast_solver.py)")
    group.add_argument("--no-outcome-table", action="store_true",
                       help="search positions up to ply 7 too, instead of taking their class from analysis/data/outcomes_ply7.txt")


def check(args: argparse.Namespace) -> str | None:
    """One line saying why the analysis cannot run with these arguments, or None."""
    if getattr(args, "analyze_file", None) and getattr(args, "agents", None):
        return "--analyze-file analyses saved games: give no agents with it"
    if args.analyze or args.analyze_file:
        if args.league or args.gate:
            return "--analyze works with a head-to-head run or --analyze-file, not with --league or --gate"
        if not args.analyze_file:
            rows, columns, inarow = args.rows, args.columns, args.inarow
            if getattr(args, "resume", None):  # the run being resumed says which board it is on
                try:
                    with open(args.resume, encoding="utf-8") as handle:
                        header = json.loads(handle.readline())
                    rows, columns, inarow = (header["config"][k] for k in ("rows", "columns", "inarow"))
                except (OSError, ValueError, KeyError, TypeError):
                    return None  # the evaluator reports the unreadable file itself
            if (rows, columns, inarow) != (6, 7, 4):
                return (f"--analyze: exact labels exist only for 6x7, four in a row; this run is {rows}x{columns}, "
                        f"{inarow} in a row (no analysis of other boards)")
    return None


def analyse_file(args: argparse.Namespace, out: IO[str]) -> int:
    """``evaluate.py --analyze-file FILE``: exit 0, or 2 with one line on bad input."""
    try:
        games = read_games(args.analyze_file)
        if not games:
            raise AnalysisInputError(f"{args.analyze_file!r} holds no finished game")
        directory = args.analysis_dir or os.path.splitext(args.analyze_file)[0] + "-analysis"
        result, text = _analyse(args, games, directory)
    except AnalysisInputError as error:
        print(f"{evaluate_program()}: error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:  # a solver worker that cannot start
        print(f"{evaluate_program()}: analysis failed: {error}", file=sys.stderr)
        return 1
    out.write(json.dumps({"analysis": result}) + "\n" if args.json else text + "\n")
    out.flush()
    return 0


def analyse_records(args: argparse.Namespace, records: Sequence[Any], results_path: str) -> tuple[dict[str, Any], str]:
    """``evaluate.py A B --analyze``: the ``"analysis"`` object and the table for the games just played."""
    games = [from_record(record, results_path) for record in records]
    directory = args.analysis_dir or os.path.splitext(results_path)[0] + "-analysis"
    return _analyse(args, games, directory)


def _analyse(args: argparse.Namespace, games: list[Game], directory: str) -> tuple[dict[str, Any], str]:
    from connectx_toolkit.analysis.plot import save_losing_moves_plot
    from connectx_toolkit.analysis.replay import save_annotated_replay

    analyses, settings = label(args, games)
    replays = [save_annotated_replay(a, directory) for a in analyses if a.game.loser_seat is not None]
    plot = save_losing_moves_plot(analyses, os.path.join(directory, "losing-moves.png")) if analyses else None
    settings.update(replays=replays, plot=plot)
    text = analysis_table(analyses, settings)
    text += f"\nannotated replays: {len(replays)} in {directory}" + (f"\nplot: {plot}" if plot else "")
    return analysis_json(analyses, settings), text


def label(args: argparse.Namespace, games: list[Game]) -> tuple[list[GameAnalysis], dict[str, Any]]:
    """Label every move of ``games`` with the analysis options of ``args`` (budget, cache, engine, workers,
    progress); returns the analyses and the settings and counts the reports print (``engine``, ``budget_s``,
    ``searched``, ``timed_out``, ``from_table``, ``cache_hits``, ``cache``, ``elapsed_s``)."""
    compiled = not args.no_compiled_solver and compiled_solver_available()
    budget = args.analysis_budget or default_budget(compiled)
    cache_path = args.analysis_cache or default_cache_path()
    try:
        cache = PositionCache(None if cache_path == "none" else cache_path)
    except ValueError as error:
        raise AnalysisInputError(str(error)) from None
    started = time.monotonic()
    stats: dict[str, int] = {}
    try:
        analyses = label_games(games, budget, cache, args.workers or default_workers(), compiled,
                               progress=not getattr(args, "no_progress", False), stats=stats,
                               table=None if args.no_outcome_table else OutcomeTable())
    finally:
        cache.close()
    settings = {
        "engine": "compiled solver" if compiled else "python exact search",
        "budget_s": budget,
        "searched": stats["searched"],
        "timed_out": stats["timed_out"],
        "from_table": stats["from_table"],
        "cache_hits": cache.hits,
        "cache": cache.path,
        "elapsed_s": round(time.monotonic() - started, 3),
    }
    return analyses, settings
