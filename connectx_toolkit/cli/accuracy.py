"""``connectx accuracy AGENT [AGENT ...]``: how close to perfect play each agent is, on labelled positions.

    connectx accuracy submissions/submission.py
    connectx accuracy new.py old.py --json                  # and whether one is significantly more accurate
    connectx accuracy my_bot.py --positions results/my_bot-vs-greedy-20250101-120000.jsonl
    connectx accuracy my_bot.py --positions pons --sample 100 --seed 1   # Pons' six test sets, 100 positions each

Each agent is asked every position of the shipped benchmark (docs/accuracy.md: games of real play, every move of
every position scored exactly by the solver) as a Kaggle game asks it, in a process of its own on Kaggle's clock.
The report: outcome accuracy (the share of moves that keep the mover's win, draw or loss) with its 95 % interval
overall and by phase, for all positions and the critical ones (where some move changes the outcome), the share of
best moves, blunders by kind, time per move, forfeits with their reasons, the worst positions (each opens with
`connectx board --position MOVES`), and with two agents or more McNemar's exact test, position by position. Every
answer goes to a JSON Lines file and the accuracy by ply to a PNG beside it. With ``--positions`` (one file or
several, ``pons`` for Pascal Pons' six public test sets) each file gets its own section: positions asked and left
out, and each agent's accuracy and error rate there (AlphaZero.jl's measure), beside AlphaZero.jl's published
figures for Pons' sets. Only 6x7, four in a row: other
boards have no perfect labels. Exit 0, 2 bad input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO

from connectx_toolkit.cli.options import ANALYSIS, OUTPUT, PLAY, RULES, analysis_budget, integer
from connectx_toolkit.cli.playing import check_before_play, play_settings

HELP = "how close to perfect play agents are, on positions with exact values"


def configure(parser: argparse.ArgumentParser) -> None:
    # nargs="*": no agent gets the settings' own line rather than argparse's
    parser.add_argument("agents", nargs="*", metavar="AGENT", help="one or more agents, in any form a match takes")
    from connectx_toolkit.measuring.settings import DEFAULT_WORST

    own = parser.add_argument_group("positions and report")
    own.add_argument("--positions", metavar="FILE", nargs="+", action="extend",
                     help="ask the positions of results files, Kaggle episode JSONs or files of move strings "
                          "(labelled by the solver) instead of the benchmark, each file reported on its own; "
                          "'pons': Pascal Pons' six test sets (shipped), 'pons:begin-hard' one of them")
    own.add_argument("--sample", type=integer, default=None, metavar="N",
                     help="a seeded sample of N games (lines) of each --positions file (seeded by --seed)")
    own.add_argument("--analysis-early-budget", type=analysis_budget, default=None, metavar="SECONDS",
                     help="CPU seconds a column for --positions' positions of fewer than 8 stones (default 0.05: "
                          "those off the opening book take minutes; for Pons' sets, the --analysis-budget)")
    own.add_argument("--benchmark", metavar="FILE", help="another benchmark file (default: the shipped one)")
    own.add_argument("-n", "--games", type=integer, default=None, metavar="N",
                     help="ask only the positions of the benchmark's first N games (default: all)")
    own.add_argument("--worst", type=int, default=DEFAULT_WORST, metavar="N",
                     help=f"worst positions the report names (default {DEFAULT_WORST})")
    own.add_argument("--answers", metavar="FILE",
                     help="JSON Lines file of every answer (default: results/accuracy-<agents>-<time>.jsonl)")
    own.add_argument("--plot", metavar="FILE", help="PNG of accuracy by ply (default: beside the answers, .png)")
    RULES.add_to(parser)
    PLAY.add_to(parser, "seed", "referee", "path", "sandbox", "memory_mb", "workers", "backend", "pin_cores")
    OUTPUT.add_to(parser, "json", "no_progress")
    ANALYSIS.add_to(parser, "budget", "cache",
                    budget={"help": "CPU seconds of search per column when labelling --positions (default 10)"})


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """The report (or ``--json``'s object); 0, or 130 when interrupted."""
    from connectx_toolkit.measuring.jobs import run_accuracy
    from connectx_toolkit.measuring.report import render_text
    from connectx_toolkit.measuring.settings import AccuracySettings

    check_before_play(args, args.agents)
    settings = AccuracySettings(
        agents=tuple(args.agents), positions=None if args.positions is None else tuple(args.positions),
        benchmark=args.benchmark, games=args.games, sample=args.sample, worst=args.worst, answers=args.answers,
        plot=args.plot, budget=args.analysis_budget, early_budget=args.analysis_early_budget,
        cache=args.analysis_cache, progress=not args.no_progress, **play_settings(args))
    log = None if args.json else (lambda line: print(line, file=out, flush=True))
    try:
        report = run_accuracy(settings, log=log)
    except KeyboardInterrupt:
        print(f"\n{args.program}: interrupted; no file written", file=sys.stderr)
        return 130
    out.write(json.dumps(report) + "\n" if args.json else render_text(report) + "\n")
    out.flush()
    return 0
