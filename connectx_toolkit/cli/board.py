"""``connectx board [AGENT]``: a local board in the browser to play an agent, with the exact value of every
column, or to step through a saved game (docs/board.md).

    connectx board                        # play the solver
    connectx board my_agent.py --port 8000 --no-browser
    connectx board --game results/a-vs-b.jsonl:7
    connectx board --position 4453        # open at a position (connectx accuracy names its worst so)

Serves on 127.0.0.1 until Ctrl-C (exit 0); bad input: one line, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

from connectx_toolkit.cli.options import ANALYSIS, PLAY, RULES, port
from connectx_toolkit.cli.playing import check_sandbox
from connectx_toolkit.errors import UsageError

HELP = "play an agent and probe positions in the browser"
DEFAULT_AGENT = "solver"


def configure(parser: argparse.ArgumentParser) -> None:
    # nargs="*" rather than "?": two agents get the board's own line, not argparse's "unrecognized arguments"
    parser.add_argument("agents", nargs="*", metavar="AGENT",
                        help=f"the agent to play against, in any form a match takes (default {DEFAULT_AGENT})")
    own = parser.add_argument_group("the board")
    own.add_argument("--game", metavar="FILE[:N]",
                     help="show game N (its game id; default the first) of a results file or a Kaggle episode JSON")
    own.add_argument("--position", metavar="MOVES",
                     help="open at the position after MOVES (columns 1-7 from the empty board, e.g. 4453; 6x7 only), "
                          "you to move there")
    own.add_argument("--port", type=port, default=0, help="port on 127.0.0.1 (default: a free one)")
    own.add_argument("--no-browser", action="store_true", help="do not open a browser")
    RULES.add_to(parser)
    PLAY.add_to(parser, "sandbox", "memory_mb", "workers", workers={"help": "solver processes (default: all cores)"})
    ANALYSIS.add_to(parser, "budget", "cache", "no_compiled_solver", "no_outcome_table")


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """Serve until Ctrl-C (0); bad input raises ``UsageError`` (``BoardError`` is one)."""
    from connectx_toolkit.agents.core import Config
    from connectx_toolkit.board.server import BoardOptions, BoardServer

    if len(args.agents) > 1:
        raise UsageError(f"{args.job} plays one agent, got {' '.join(args.agents)}")
    try:
        config = Config(args.rows, args.columns, args.inarow)
    except ValueError as error:
        raise UsageError(f"--{error}") from None
    check_sandbox(args, args.agents)
    options = BoardOptions(
        agent=args.agents[0] if args.agents else DEFAULT_AGENT, game=args.game, position=args.position,
        config=None if args.game else config, port=args.port, sandbox=args.sandbox, analysis_budget=args.analysis_budget, analysis_cache=args.analysis_cache,
        compiled_solver=not args.no_compiled_solver, outcome_table=not args.no_outcome_table,
        workers=args.workers, act_timeout=args.act_timeout, overage=args.overage, memory_mb=args.memory_mb)
    server = BoardServer(options)
    try:  # Ctrl-C may come at any point from here on (werkzeug's loop itself returns on it)
        out.write(f"board: {server.url}\n")
        out.flush()
        server.serve_forever(open_browser=not args.no_browser)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    print("board: stopped", file=sys.stderr)
    return 0
