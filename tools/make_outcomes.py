"""Solve every Connect 4 position at one ply (7 by default) with the project's solver: its outcome, and
the most central move that keeps it.

The opening book answers the agent's own games; this table answers everything else early in a game,
where the pure-Python search cannot finish and its heuristic sometimes throws a win or a draw away.
From it, the command writes ``agents/data/connect4_outcomes.bin``: for every position up to ``--ply``
that is not lost, whoever reached it and however (an opening suite, a user's opening, the oracle
sets), a move that keeps its outcome. Before ``--ply`` the outcome is worked out by minimax from the
table, so no search is needed there at all.

Positions are visited in depth-first order from the empty board (centre first), one per mirror pair
and transposition, so neighbours in the list share most of their subtrees and a worker's table, kept
from one position to the next, saves most of the work. Each solved chunk is appended to
``--checkpoint`` ("canonical key, outcome for the player to move, move" lines; move -1 for a lost
position) at once, and the book is rewritten from it at the end of every run; ``--resume``
continues, so the table can be built over many runs, even on other machines: the checkpoint is
committed.

    nice -n 10 python tools/make_outcomes.py --jobs 2 --table-mb 2048 --resume --hours 1

The 27,109 positions of ply 7 (a mirror pair counted once) take many CPU hours here: the figures are
in docs/solver.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from agents.core import Config, Position
from agents.solver_engine.opening_book import encode_book
from analysis.outcome_table import CENTRE_FIRST, DEFAULT_CHECKPOINT, DEFAULT_PLY, outcome_moves, read_checkpoint
from tools.make_book import canonical_position, largest_prime_at_most, output_problem, write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STANDARD = Config(6, 7, 4)
DEFAULT_OUT = os.path.join(ROOT, "agents", "data", "connect4_outcomes.bin")


def positions_at(ply: int) -> list[Position]:
    """Every position at ``ply`` in which nobody has won, once per mirror pair, in depth-first order."""
    seen: list[set[int]] = [set() for _ in range(ply + 1)]
    found: list[Position] = []

    def visit(position: Position) -> None:
        if position.moves == ply:
            found.append(position)
            return
        for column in CENTRE_FIRST:
            if position.can_play(column) and not position.is_winning_move(column):
                child = position.played(column)
                key = child.canonical_key()
                if key not in seen[child.moves]:
                    seen[child.moves].add(key)
                    visit(child)

    visit(Position(STANDARD))
    return found


_worker_solver = None  # one solver (and transposition table) per worker process, kept between chunks


def _solve_chunk(task: tuple[int, list[tuple[int, int, int]]]) -> tuple[list[tuple[int, int, int]], int]:
    """([(canonical key, outcome, move)], nodes searched) for canonical positions as (current, mask, plies)."""
    global _worker_solver
    from analysis.fast_solver import Solver

    table_size, positions = task
    if _worker_solver is None:
        _worker_solver = Solver(table_size)
    before = _worker_solver.nodes
    results = []
    for current, mask, plies in positions:
        outcome, move = _worker_solver.outcome_and_move_bitboards(current, mask, plies)
        results.append((current + mask, outcome, move))
    return results, _worker_solver.nodes - before


def write_outcome_book(path: str, solved: dict[int, tuple[int, int]], ply: int, total: int) -> int:
    """Write the book of outcome-keeping moves atomically; return the number of its entries."""
    moves = outcome_moves(solved, ply)
    data = encode_book(moves, {"kind": "outcomes", "ply": ply, "solved": len(solved), "positions": total})
    write_atomically(path, data)
    return len(moves)


def main(argv: list[str] | None = None) -> int:
    from concurrent.futures import ProcessPoolExecutor

    from tqdm import tqdm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ply", type=int, default=DEFAULT_PLY, help="the ply to solve (default 7)")
    parser.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT)
    parser.add_argument("--out", default=DEFAULT_OUT, help="the book of outcome-keeping moves to write")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint file")
    parser.add_argument("--jobs", type=int, default=1, help="solver processes (default 1)")
    parser.add_argument("--table-mb", type=int, default=1024, help="transposition table per process in MB")
    parser.add_argument("--chunk", type=int, default=100, help="positions per task (default 100)")
    parser.add_argument("--positions", type=int, default=-1,
                        help="solve at most this many more positions (default: all; 0 only rewrites the book)")
    parser.add_argument("--hours", type=float, default=0.0, help="stop after about this long (0: never)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.ply <= 12 or args.jobs < 1 or args.table_mb < 1 or args.chunk < 1 or args.hours < 0:
        print("make_outcomes: need 1 <= --ply <= 12, --jobs, --table-mb and --chunk >= 1, --hours >= 0",
              file=sys.stderr)
        return 2
    problem = output_problem(args.checkpoint, args.resume, [args.checkpoint, args.out])
    if problem:
        print(f"make_outcomes: {problem}", file=sys.stderr)
        return 2
    started = time.time()
    solved = read_checkpoint(args.checkpoint)
    everything = positions_at(args.ply)
    todo = [(p.current, p.mask, p.moves) for p in map(canonical_position, everything) if p.key() not in solved]
    if args.positions >= 0:
        todo = todo[:args.positions]
    table_size = largest_prime_at_most(args.table_mb * 2**20 // 9)
    chunks = [(table_size, todo[i:i + args.chunk]) for i in range(0, len(todo), args.chunk)]
    nodes = 0
    if chunks:
        from analysis.fast_solver import Solver

        # Compile (and cache) here first: workers compiling at once can leave numba's cache broken.
        Solver(1009).outcome("444444333333555555222222")
        with open(args.checkpoint, "a") as log, \
                tqdm(total=len(everything), initial=len(solved), disable=args.no_progress) as bar, \
                ProcessPoolExecutor(args.jobs) as pool:
            if log.tell() and not open(args.checkpoint, "rb").read().endswith(b"\n"):
                log.write("\n")  # end the line a kill cut short, so the next one starts clean
            pending = [pool.submit(_solve_chunk, chunk) for chunk in chunks]
            for future in pending:  # in order, so the checkpoint grows in the visiting order
                if future.cancelled():
                    continue
                results, chunk_nodes = future.result()
                log.write("".join(f"{key} {outcome} {move}\n" for key, outcome, move in results))
                log.flush()
                nodes += chunk_nodes
                bar.update(len(results))
                if args.hours and time.time() - started > args.hours * 3600:
                    for later in pending:
                        later.cancel()  # the ones already running still finish and are recorded
    solved = read_checkpoint(args.checkpoint)
    entries = write_outcome_book(args.out, solved, args.ply, len(everything))
    print(f"{len(solved)} of {len(everything)} positions at ply {args.ply} solved -> {args.checkpoint} "
          f"({time.time() - started:.0f} s, {nodes} nodes searched); {entries} moves -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
