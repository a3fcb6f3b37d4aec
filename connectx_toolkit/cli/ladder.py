"""``connectx ladder SUBMISSION_ID``: download a submission's ladder games on Kaggle (replays and our agent's
logs) and analyse them (docs/ladder.md).

    connectx ladder 41234567 --max 20 --dir ladder/v2

Exit 0, 1 when the analysis cannot run, 2 bad input or a failure from Kaggle (one line), 130 when interrupted
(every file in the folder is whole: the same command carries on from there).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO

from connectx_toolkit.cli.options import ANALYSIS, OUTPUT, PLAY, analysis_settings, positive_id, positive_int

HELP = "fetch a submission's ladder games from Kaggle and analyse them"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submission", type=positive_id("a submission id", "41234567"), metavar="SUBMISSION_ID",
                        help="the submission whose episodes to fetch")
    parser.add_argument("--max", type=positive_int, metavar="N", help="the N most recent finished episodes")
    parser.add_argument("--dir", metavar="DIR", help="the cache folder (default ladder/SUBMISSION_ID)")
    ANALYSIS.add_to(parser)
    PLAY.add_to(parser, "workers", workers={"help": "solver processes (default: all cores)"})
    OUTPUT.add_to(parser, "json", "no_progress")


def run(args: argparse.Namespace, out: IO[str]) -> int:
    from connectx_toolkit.on_kaggle.ladder import ladder, ladder_directory
    from connectx_toolkit.on_kaggle.report import ladder_text

    settings = analysis_settings(args)
    try:
        summary, analysis_lines = ladder(args.submission, args.max, args.dir, settings)
    except RuntimeError as error:  # a solver worker that cannot start
        print(f"{args.program}: analysis failed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\ninterrupted; every file in {ladder_directory(args.submission, args.dir)}/ is whole: the same "
              "command carries on from there", file=sys.stderr)
        return 130
    out.write(json.dumps(summary) + "\n" if args.json else ladder_text(summary, analysis_lines) + "\n")
    out.flush()
    return 0
