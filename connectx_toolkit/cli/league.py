"""``connectx league A B C ...``: a round robin between agents, with ratings and cross tables.

    connectx league greedy random negamax -n 20 --results results/my-league

Every pair plays ``-n`` games (in pairs with seats swapped, as a match); the league's files (``league.md``,
``league.json``, ``league.png``, ``games.jsonl``) go to ``--results DIR``. Exit 0, 2 on bad input, 130 when
interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO

from connectx_toolkit.cli.options import GAMES, OUTPUT, PLAY, RULES
from connectx_toolkit.cli.playing import check_before_play, play_settings

HELP = "a round robin between agents: ratings and cross tables"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="two or more agents, in any form a match takes")
    GAMES.add_to(parser, "games", games={"help": f"games per pair (default {GAMES.options['games'][1]['default']})"})
    RULES.add_to(parser)
    PLAY.add_to(parser)
    OUTPUT.add_to(parser, results={"metavar": "DIR",
                                   "help": "the league's folder (default: results/league-<time>-<pid>)"})


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """The rating and cross tables and the files written (or ``--json``'s object); 0, or 130 when interrupted."""
    from connectx_toolkit.evaluation import league
    from connectx_toolkit.evaluation.display import LeagueReport

    check_before_play(args, args.agents)
    prepared = league.prepare(league.LeagueSettings(
        agents=tuple(args.agents), games=args.games, directory=args.results, progress=not args.no_progress,
        **play_settings(args)))  # bad input: UsageError
    try:
        report = LeagueReport(league.complete(prepared))
    except KeyboardInterrupt:
        print("\ninterrupted: the league was not finished; games so far are in "
              f"{os.path.join(prepared.directory, 'games.jsonl')}", file=sys.stderr)
        return 130
    out.write(json.dumps(report) + "\n" if args.json else report.text() + "\n")
    out.flush()
    return 0
