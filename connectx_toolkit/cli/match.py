"""``connectx match A B``: play two agents against each other under Kaggle's rules and report which is stronger.

    connectx match greedy random -n 100
    connectx match new.py old.py -n 2000 --sprt 0 10          # stop as soon as the test decides
    connectx match A B --analyze --json                       # every move labelled with its exact value
    connectx match --resume results/new-vs-old-20250101-120000.jsonl

Games start from an opening suite, in pairs with seats swapped, each seat's agent in a process of its own
with Kaggle's time limits enforced by a hard deadline. Every finished game is appended to a JSON Lines results
file. Exit 0, 2 on bad input, 130 when interrupted (``--resume FILE`` carries on).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from typing import IO, Any, Sequence

from connectx_toolkit.cli.options import ANALYSIS, GAMES, OUTPUT, PLAY, RULES, analysis_settings
from connectx_toolkit.cli.playing import check_before_play, play_settings
from connectx_toolkit.errors import UsageError

HELP = "play two agents against each other (a match): which is stronger"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="*", metavar="AGENT",
                        help="A and B: module in agents/, .py file, folder, TARGET:FUNCTION, random or negamax "
                             "(none with --resume)")
    own = parser.add_argument_group("match")
    own.add_argument("--resume", metavar="FILE", help="continue the interrupted run recorded in FILE")
    own.add_argument("--analyze", action="store_true", help="label every move of the games played with its exact value")
    for group in (GAMES, RULES, PLAY, OUTPUT, ANALYSIS):
        group.add_to(parser)


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """The match table (or ``--json``'s object), 0; 130 when interrupted."""
    from connectx_toolkit.evaluation import head_to_head
    from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable
    from connectx_toolkit.sandbox import SandboxUnavailable

    check_before_play(args, args.agents)
    analysis = analysis_settings(args) if args.analyze else None
    if analysis is not None:
        check_analysed_board(args)
    try:
        prepared = head_to_head.prepare(match_settings(args))
    except (ValueError, BackendUnavailable, SandboxUnavailable) as error:  # each one line for the user
        raise UsageError(str(error)) from None
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        played = head_to_head.play(prepared)
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: {args.rerun} --resume {prepared.log.path}", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    report = played.report
    text = report.text() + "\n"
    if analysis is not None:
        from connectx_toolkit.analysis.jobs import analyze_records

        report["analysis"], analysis_text = analyze_records(played.records, prepared.log.path, analysis)
        text += analysis_text + "\n"
    out.write(json.dumps(report) + "\n" if args.json else text)
    out.flush()
    return 0


def check_analysed_board(args: argparse.Namespace) -> None:
    """``--analyze``: exact labels exist only for 6x7, four in a row (a resumed run's board is its file's)."""
    from connectx_toolkit.agents.core import Config
    from connectx_toolkit.analysis.settings import check_board

    rows, columns, inarow = args.rows, args.columns, args.inarow
    if args.resume:  # the run being resumed says which board it is on
        try:
            with open(args.resume, encoding="utf-8") as handle:
                header = json.loads(handle.readline())
            rows, columns, inarow = (header["config"][k] for k in ("rows", "columns", "inarow"))
        except (OSError, ValueError, KeyError, TypeError):
            return  # the match reports the unreadable file itself
    try:
        config = Config(rows, columns, inarow)
    except ValueError:
        return  # PlaySettings or the resumed file's reader says what is wrong
    check_board(config)


def match_settings(args: argparse.Namespace) -> Any:
    """``connectx match A B`` (or ``--resume FILE``) and its options, as ``MatchSettings``."""
    from connectx_toolkit.evaluation.head_to_head import MatchSettings

    named = not args.resume and len(args.agents) == 2  # else MatchSettings refuses them, or the header names them
    results = args.results or (default_results_path(args.agents) if named else None)
    return MatchSettings(
        agents=tuple(args.agents), games=args.games, sprt=(args.sprt[0], args.sprt[1]) if args.sprt else None,
        alpha=args.alpha, beta=args.beta, results=results, resume=args.resume, progress=not args.no_progress,
        **play_settings(args),
    )


def default_results_path(names: Sequence[str]) -> str:
    from connectx_toolkit.building.agent_names import file_stem as short

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return os.path.join("results", f"{short(names[0])}-vs-{short(names[1])}-{stamp}-{os.getpid()}.jsonl")


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # unwind: workers are killed, the results file is closed
