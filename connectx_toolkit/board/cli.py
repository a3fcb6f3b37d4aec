"""The board's flags of ``evaluate.py``: ``--board [AGENT] [--game FILE[:N]] [--port P] [--no-browser]``.

``evaluate.py`` registers these flags and calls :func:`run` when ``--board`` is given; ``--rows``,
``--columns``, ``--inarow``, ``--sandbox``, ``--act-timeout``, ``--overage`` and the analysis flags
(``--analysis-budget``, ``--analysis-cache``, ``--no-compiled-solver``, ``--no-outcome-table``) are the
evaluator's own.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

from connectx_toolkit.cli.program import evaluate_program
from connectx_toolkit.agents.core import Config

__all__ = ["add_arguments", "run", "stray_flags"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the board (play your agent and probe positions in the browser)")
    group.add_argument("--board", action="store_true",
                       help="serve a local board: play AGENT (default solver) with exact values of every column")
    group.add_argument("--game", metavar="FILE[:N]",
                       help="with --board: show game N (its game id; default the first) of a results file or a "
                            "Kaggle episode JSON")
    group.add_argument("--port", type=_port, default=0, help="with --board: port on 127.0.0.1 (default: a free one)")
    group.add_argument("--no-browser", action="store_true", help="with --board: do not open a browser")


def stray_flags(args: argparse.Namespace) -> str | None:
    """One line when a flag of the board is given without ``--board``, else None."""
    given = [flag for flag, value in (("--game", args.game), ("--port", args.port), ("--no-browser", args.no_browser))
             if value]
    if given and not args.board:
        return f"{', '.join(given)} go{'es' if len(given) == 1 else ''} with --board"
    return None


def run(args: argparse.Namespace, out: IO[str]) -> int:
    """``evaluate.py --board``: serve until Ctrl-C (exit 0); bad input: one line on stderr, exit 2."""
    from connectx_toolkit.board.server import BoardError, BoardOptions, BoardServer

    if len(args.agents) > 1:
        print(f"{evaluate_program()}: error: --board plays one agent, got {' '.join(args.agents)}", file=sys.stderr)
        return 2
    for flag, given in (("--league", args.league), ("--gate", args.gate), ("--resume", args.resume),
                        ("--analyze", args.analyze), ("--analyze-file", args.analyze_file)):
        if given:
            print(f"{evaluate_program()}: error: --board cannot be combined with {flag}", file=sys.stderr)
            return 2
    options = BoardOptions(
        agent=args.agents[0] if args.agents else "solver", game=args.game,
        config=None if args.game else Config(args.rows, args.columns, args.inarow), port=args.port,
        sandbox=args.sandbox, analysis_budget=args.analysis_budget, analysis_cache=args.analysis_cache,
        compiled_solver=not args.no_compiled_solver, outcome_table=not args.no_outcome_table,
        workers=args.workers, act_timeout=args.act_timeout, overage=args.overage, memory_mb=args.memory_mb)
    try:
        server = BoardServer(options)
    except BoardError as error:
        print(f"{evaluate_program()}: error: {error}", file=sys.stderr)
        return 2
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
