"""The Kaggle flags of ``evaluate.py``: ``--submit FILE -m MESSAGE [--baseline B] [--force]`` and
``--ladder SUBMISSION_ID [--max N] [--dir DIR] [--json]``.

``evaluate.py`` registers these flags, calls :func:`check`, then :func:`submit` or :func:`ladder`; the
analysis flags (``--analysis-budget``, ``--analysis-cache``, ``--analysis-dir``, ``--no-compiled-solver``,
``--no-outcome-table``), ``--workers`` and ``--no-progress`` are the evaluator's own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, Any

from connectx_toolkit.cli.program import evaluate_program
from connectx_toolkit.evaluation.settings import positive_id, positive_int
from connectx_toolkit.on_kaggle.submit import DEFAULT_BASELINE

__all__ = ["DEFAULT_BASELINE", "add_arguments", "check", "ladder", "submit"]


_submission_id = positive_id("a submission id", "41234567")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Kaggle (credentials as Kaggle's own client finds them: KAGGLE_API_TOKEN, "
                                      "~/.kaggle/kaggle.json, KAGGLE_USERNAME/KAGGLE_KEY)")
    group.add_argument("--submit", metavar="FILE",
                       help="run the gate on FILE (.py or .tar.gz) and upload it to the connectx competition only "
                            f"on PASS (--baseline defaults to {DEFAULT_BASELINE})")
    group.add_argument("-m", "--message", metavar="MESSAGE", help="with --submit: the submission's description")
    group.add_argument("--force", action="store_true", help="with --submit: upload even when the gate fails")
    group.add_argument("--ladder", type=_submission_id, metavar="SUBMISSION_ID",
                       help="download the submission's ladder games (replays and our agent's logs) and analyse them")
    group.add_argument("--max", type=positive_int, metavar="N", help="with --ladder: the N most recent finished episodes")
    group.add_argument("--dir", metavar="DIR", help="with --ladder: the cache folder (default ladder/SUBMISSION_ID)")


def check(args: argparse.Namespace) -> str | None:
    """One line saying why these flags cannot go together, or None."""
    for flags, given, needs in ((("-m", args.message), ("--force", args.force)), args.submit, "--submit"), (
            (("--max", args.max), ("--dir", args.dir)), args.ladder, "--ladder"):
        stray = [flag for flag, value in flags if value]
        if stray and not given:
            return f"{', '.join(stray)} go{'es' if len(stray) == 1 else ''} with {needs}"
    command = "--submit" if args.submit else "--ladder" if args.ladder else None
    if command is None:
        return None
    if args.submit and args.ladder:
        return "--submit and --ladder are two commands: give one"
    if args.agents:
        return f"{command} takes no positional agents, got {' '.join(args.agents)}"
    conflicts = [("--gate", args.gate), ("--league", args.league), ("--board", args.board), ("--resume", args.resume),
                 ("--analyze", args.analyze), ("--analyze-file", args.analyze_file), ("--replays", args.replays)]
    if args.ladder:
        conflicts.append(("--baseline", args.baseline))
    for flag, given in conflicts:
        if given:
            return f"{command} cannot be combined with {flag}"
    if args.submit and not (args.message or "").strip():
        return "--submit needs -m MESSAGE (the submission's description on Kaggle)"
    return None


def submit(args: argparse.Namespace, settings: Any, out: IO[str]) -> int:
    """``--submit``: the gate with ``settings``, then the upload on PASS."""
    from connectx_toolkit.on_kaggle.submit import submit as run_submit

    return run_submit(settings, args.submit, args.message.strip(), args.force, out, args.json)


def ladder(args: argparse.Namespace, out: IO[str]) -> int:
    """``--ladder``: fetch what the cache lacks, then analyse; exit 0, 2 with one line, 130 when interrupted."""
    from connectx_toolkit.analysis.games import AnalysisInputError
    from connectx_toolkit.on_kaggle.connection import Connection
    from connectx_toolkit.on_kaggle.credentials import find_credentials
    from connectx_toolkit.on_kaggle.download import fetch
    from connectx_toolkit.on_kaggle.errors import KaggleError
    from connectx_toolkit.on_kaggle.ladder import ladder_summary
    from connectx_toolkit.on_kaggle.report import ladder_text

    directory = args.dir or os.path.join("ladder", str(args.ladder))
    try:
        with Connection(find_credentials()) as connection:
            fetched = fetch(connection, args.ladder, directory, args.max, progress=not args.no_progress)
        summary, analysis_lines = ladder_summary(args, fetched, args.ladder)
    except (KaggleError, AnalysisInputError) as error:  # the latter: e.g. an analysis cache that cannot be opened
        print(f"{evaluate_program()}: error: {error}", file=sys.stderr)
        return 2
    except RuntimeError as error:  # a solver worker that cannot start
        print(f"{evaluate_program()}: analysis failed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\ninterrupted; every file in {directory}/ is whole: the same command carries on from there",
              file=sys.stderr)
        return 130
    out.write(json.dumps(summary) + "\n" if args.json else ladder_text(summary, analysis_lines) + "\n")
    out.flush()
    return 0
