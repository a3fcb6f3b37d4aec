"""``connectx analyze FILE``: label every move of saved games with its exact value (6x7, four in a row).

    connectx analyze results/new-vs-old-20250101-120000.jsonl
    connectx analyze episode.json --json

FILE is a results file (``connectx match``'s) or a Kaggle episode JSON. The annotated replays and the plot go
to ``--analysis-dir`` (default: FILE-analysis beside it). Exit 0, 1 when a solver cannot start, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO

from connectx_toolkit.cli.options import ANALYSIS, OUTPUT, PLAY, analysis_settings

HELP = "label every move of saved games with its exact value"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a results file or a Kaggle episode JSON")
    ANALYSIS.add_to(parser, directory={"help": "where the annotated replays and the PNG go "
                                               "(default: FILE-analysis beside FILE)"})
    PLAY.add_to(parser, "workers", workers={"help": "solver processes (default: all cores)"})
    OUTPUT.add_to(parser, "json", "no_progress")


def run(args: argparse.Namespace, out: IO[str]) -> int:
    from connectx_toolkit.analysis.jobs import analyze_file

    try:
        result, text = analyze_file(args.file, analysis_settings(args))  # bad input: AnalysisInputError
    except RuntimeError as error:  # a solver worker that cannot start
        print(f"{args.program}: analysis failed: {error}", file=sys.stderr)
        return 1
    out.write(json.dumps({"analysis": result}) + "\n" if args.json else text + "\n")
    out.flush()
    return 0
