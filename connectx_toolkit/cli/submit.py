"""``connectx submit FILE -m MESSAGE``: the gate on FILE, then its upload to Kaggle's connectx competition on
PASS (docs/ladder.md).

    connectx submit submissions/submission.py -m "v2"
    connectx submit bot.tar.gz -m "v3" --baseline negamax --force

Credentials are found as Kaggle's own client finds them: KAGGLE_API_TOKEN, ~/.kaggle/kaggle.json,
KAGGLE_USERNAME/KAGGLE_KEY. Exit 0 uploaded, 1 the gate failed (not uploaded), 2 bad input or a failed upload.
"""

from __future__ import annotations

import argparse
from typing import IO

from connectx_toolkit.cli.gate import BASELINE_HELP, add_gate_options, gate_settings
from connectx_toolkit.cli.options import OUTPUT
from connectx_toolkit.on_kaggle.submit import DEFAULT_BASELINE

HELP = "the gate, then the upload to Kaggle on PASS"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the submission: a .py file or a .tar.gz bundle")
    parser.add_argument("-m", "--message", metavar="MESSAGE", help="the submission's description on Kaggle (required)")
    parser.add_argument("--baseline", metavar="BASELINE", default=DEFAULT_BASELINE,
                        help=f"{BASELINE_HELP} (default {DEFAULT_BASELINE})")
    parser.add_argument("--force", action="store_true", help="upload even when the gate fails")
    add_gate_options(parser)
    OUTPUT.add_to(parser, "json", "no_progress")


def run(args: argparse.Namespace, out: IO[str]) -> int:
    from connectx_toolkit.on_kaggle.submit import submit

    settings = gate_settings(args, args.file, args.baseline)
    return submit(settings, args.file, args.message, args.force, out, args.json, progress=not args.no_progress)  # errors: one line, exit 2
