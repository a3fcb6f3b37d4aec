"""``connectx gate CANDIDATE --baseline B``: a submission's checks before an upload (docs/gate.md).

    connectx gate submissions/submission.py --baseline greedy -n 60

The checks are printed as they end, then the verdict (or one JSON object with ``--json``); a bar of the games
played on a terminal's stderr (``--no-progress``: none). Exit 0 PASS, 1 FAIL, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import IO, Any

from connectx_toolkit.cli.options import GAMES, OUTPUT, PLAY, RULES
from connectx_toolkit.cli.playing import check_before_play, play_settings
from connectx_toolkit.errors import UsageError
from connectx_toolkit.outcomes import Verdict

HELP = "a submission's checks before an upload: PASS or FAIL"
BASELINE_HELP = "the agent CANDIDATE must not lose to: a module in agents/, a .py file, a folder or a built-in"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("candidate", metavar="CANDIDATE", help="the submission: a .py file, a .tar.gz bundle or any agent")
    parser.add_argument("--baseline", metavar="BASELINE", help=BASELINE_HELP + " (required)")
    add_gate_options(parser)
    parser.add_argument("--accuracy", action="store_true",
                        help="also compare CANDIDATE's accuracy against perfect play with BASELINE's on the benchmark's "
                             "critical positions: FAIL when significantly less accurate (docs/accuracy.md#in-the-gate)")
    OUTPUT.add_to(parser, "json", "no_progress")  # the output options of every command that plays games


def add_gate_options(parser: argparse.ArgumentParser) -> None:
    """The options of the games the gate plays (``connectx gate``, ``connectx submit``)."""
    GAMES.add_to(parser, games={"help": f"games against the baseline at most (default "
                                        f"{GAMES.options['games'][1]['default']})"},
                 sprt={"help": "the SPRT that decides the match against the baseline (default: the gate's)"})
    RULES.add_to(parser)
    PLAY.add_to(parser)


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """The checks as they end and the verdict (or ``--json``'s object); 0 PASS, 1 FAIL."""
    from connectx_toolkit.evaluation import gate

    settings = gate_settings(args, args.candidate, args.baseline)
    log = None if args.json else (lambda line: print(line, file=out, flush=True))
    extra = []
    if args.accuracy:
        from connectx_toolkit.measuring.gate_check import accuracy_check

        try:
            extra.append(accuracy_check())
        except ValueError as error:  # the benchmark cannot be read: one line
            raise UsageError(str(error)) from None
    # bad input: UsageError; a candidate that cannot load: FAIL. The bar goes to stderr, on a terminal only
    report = gate.run(settings, log, progress=not args.no_progress, extra_checks=extra)
    out.write(json.dumps(report) + "\n" if args.json else gate.render_verdict(report) + "\n")
    out.flush()
    return 0 if report["verdict"] == Verdict.PASS else 1


def gate_settings(args: argparse.Namespace, candidate: str, baseline: str | None) -> Any:
    """The ``GateSettings`` of the gate's options, after the checks every game-playing command makes."""
    from connectx_toolkit.evaluation.gate import DEFAULT_SPRT, GateSettings

    if not baseline:
        raise UsageError(f"{args.job} needs --baseline BASELINE (a module in agents/, a .py file, a folder or a "
                         "built-in)")
    check_before_play(args, [candidate, baseline])
    return GateSettings(candidate=candidate, baseline=baseline, games=args.games,
                        sprt=(args.sprt[0], args.sprt[1]) if args.sprt else DEFAULT_SPRT, alpha=args.alpha,
                        beta=args.beta, **play_settings(args))
