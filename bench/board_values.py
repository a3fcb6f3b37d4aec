#!/usr/bin/env python3
"""How long the board takes to show every column's value, position by position, from a cold cache.

    python bench/board_values.py tests/data/analysis_games.jsonl --plies 0 4 8 12 17 24
    python bench/board_values.py FILE --budget 10 --workers 1 --no-compiled-solver

For each game of FILE and each ply, the board's value service (``board.values``: the analysis' engine,
an in-memory cache that starts empty for every position, the outcome table) is asked for the position's
column values; printed: the wall seconds until they are shown, how many columns got an exact score, a
class only (win/draw/loss) and ``unknown``.
"""

from __future__ import annotations

import argparse
import threading
import time

from connectx_toolkit.analysis.settings import default_budget
from connectx_toolkit.analysis.games import read_games
from connectx_toolkit.analysis.solving import compiled_solver_available
from connectx_toolkit.board.values import ValueService


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--plies", type=int, nargs="+", default=[0, 4, 8, 12, 17, 24])
    parser.add_argument("--budget", type=float, default=None, help="CPU seconds per position (the board's default)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-compiled-solver", action="store_true")
    args = parser.parse_args()
    compiled = not args.no_compiled_solver and compiled_solver_available()
    budget = args.budget or default_budget(compiled)
    print(f"engine: {'compiled solver' if compiled else 'python search'}, budget {budget:g} CPU s/position, "
          f"{args.workers} worker(s)")
    print(f"{'game':>5} {'ply':>4} {'seconds':>8} {'exact':>6} {'class':>6} {'unknown':>8}")
    for game in read_games(args.file):
        for ply in args.plies:
            if ply >= len(game.moves):
                continue
            done = threading.Event()
            service = ValueService(budget, compiled, None, args.workers, on_done=done.set)
            moves = tuple(game.moves[:ply])
            started = time.monotonic()
            service.ask(moves)
            while service.columns(moves) is None:
                done.wait(1.0)
                done.clear()
            seconds = time.monotonic() - started
            values = list(service.columns(moves).values())
            exact = sum(v.exact for v in values)
            unknown = sum(v.outcome == "unknown" for v in values)
            print(f"{game.game_id:>5} {ply:>4} {seconds:>8.2f} {exact:>6} {len(values) - exact - unknown:>6} {unknown:>8}",
                  flush=True)


if __name__ == "__main__":
    main()
