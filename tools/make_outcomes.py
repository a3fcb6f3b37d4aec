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

With the ply before solved (``--below``, by default ``analysis/data/outcomes_ply<ply-1>.txt``), each
position starts from a lower bound, the best of minus its parents' outcomes: a child of a lost parent
is a win with no search, a child of a drawn one needs only "is it a win?". ``--no-moves`` solves the
outcome alone, asking its questions column by column at the root, so that the column that answered is
kept for free (a win or a draw a question proved); where none did (a win settled by the bound, a draw
settled by the bound once "is it a win?" says no, a loss) the checkpoint says "?". No book is written;
``tools/pack_outcomes.py`` packs it (``--moves`` keeps the moves it has).

    nice -n 19 python tools/make_outcomes.py --ply 8 --no-moves --jobs 2 --table-mb 2048 \
        --checkpoint analysis/data/outcomes_ply8.txt --resume --hours 2

``--fill-moves`` then finds the move of each solved position that is not lost and has none, knowing its
outcome (one question: the win's, or the draw's), and appends the line with it; resumable the same way.

The 27,109 positions of ply 7 (a mirror pair counted once) take many CPU hours here: the figures are
in docs/solver.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.opening_book import encode_book
from connectx_toolkit.agents.solver_engine.outcome_table import parents
from connectx_toolkit.analysis.outcome_table import CENTRE_FIRST, DEFAULT_CHECKPOINT, DEFAULT_PLY, outcome_moves, read_checkpoint
from connectx_toolkit.atomic import write_atomically
from tools.make_book import canonical_position, largest_prime_at_most, output_problem

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STANDARD = Config()
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


def lower_bound(position: Position, below: dict[int, tuple[int, int | None]]) -> int:
    """The least outcome ``position`` can have for its player to move, from the solved outcomes of
    its parents (as the agent's ``outcome_bounds`` reads them from its table): a parent's player chose
    the best child, so every child is worth at least minus the parent's value (a lost parent makes
    every child a win; a drawn one, every child a draw or a win)."""
    bound = -1
    for parent in parents(position):
        known = below.get(parent.canonical_key())
        if known is not None:
            bound = max(bound, -known[0])
    return bound


def _solve_chunk(task: tuple[int, str, list[tuple[int, int, int, int]]]) -> tuple[list[tuple[int, int, int | None]], int]:
    """([(canonical key, outcome, move or None)], nodes searched) for canonical positions given as
    (current, mask, plies, n). ``mode`` "moves": the outcome and its most central move, n a lower bound of
    the outcome; "outcomes": the outcome, and the move only where the outcome's own questions found one
    (no search for it), n a lower bound; "fill": n is the outcome, known, and the move is searched for."""
    global _worker_solver
    from connectx_toolkit.analysis.fast_solver import Solver

    table_size, mode, positions = task
    if _worker_solver is None:
        _worker_solver = Solver(table_size)
    before = _worker_solver.nodes
    results: list[tuple[int, int, int | None]] = []
    for current, mask, plies, n in positions:
        if mode == "moves":
            results.append((current + mask, *_worker_solver.outcome_and_move_bitboards(current, mask, plies, n)))
        elif mode == "fill":
            results.append((current + mask, n, _worker_solver.move_keeping_bitboards(current, mask, plies, n)))
        else:
            results.append((current + mask, *_worker_solver.outcome_with_move_bitboards(current, mask, plies, n)))
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
    parser.add_argument("--below", default=None,
                        help="checkpoint of the ply before, whose outcomes bound this ply's from below "
                             "(default: analysis/data/outcomes_ply<ply-1>.txt when it exists)")
    parser.add_argument("--no-moves", action="store_true",
                        help="solve outcomes only, keeping the move a question found on the way (\"?\" where "
                             "none did); no book is written: pack the checkpoint with tools/pack_outcomes.py")
    parser.add_argument("--fill-moves", action="store_true",
                        help="find the move of every solved position that is not lost and has none (\"?\"), "
                             "appending its line to the checkpoint (the last line of a key counts)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.ply <= 12 or args.jobs < 1 or args.table_mb < 1 or args.chunk < 1 or args.hours < 0:
        print("make_outcomes: need 1 <= --ply <= 12, --jobs, --table-mb and --chunk >= 1, --hours >= 0",
              file=sys.stderr)
        return 2
    if args.fill_moves and not os.path.isfile(args.checkpoint):
        print(f"make_outcomes: --fill-moves needs a checkpoint: no such file {args.checkpoint}", file=sys.stderr)
        return 2
    problem = output_problem(args.checkpoint, args.resume or args.fill_moves, [args.checkpoint, args.out])
    if problem:
        print(f"make_outcomes: {problem}", file=sys.stderr)
        return 2
    started = time.time()
    solved = read_checkpoint(args.checkpoint)
    everything = positions_at(args.ply)
    below_path = args.below or os.path.join(os.path.dirname(DEFAULT_CHECKPOINT), f"outcomes_ply{args.ply - 1}.txt")
    below = read_checkpoint(below_path) if args.below or os.path.exists(below_path) else {}
    if args.below and not below:
        print(f"make_outcomes: --below {args.below} holds no solved positions", file=sys.stderr)
        return 2
    if args.fill_moves:  # the solved positions, not lost, without their move: the outcome is the bound
        mode = "fill"
        todo = [(p.current, p.mask, p.moves, solved[p.key()][0]) for p in map(canonical_position, everything)
                if p.key() in solved and solved[p.key()][0] >= 0 and solved[p.key()][1] is None]
    else:
        mode = "outcomes" if args.no_moves else "moves"
        todo = [(p.current, p.mask, p.moves, lower_bound(p, below))
                for p in map(canonical_position, everything) if p.key() not in solved]
    if args.positions >= 0:
        todo = todo[:args.positions]
    nodes = 0
    with open(args.checkpoint, "a") as log:
        if log.tell() and not open(args.checkpoint, "rb").read().endswith(b"\n"):
            log.write("\n")  # end the line a kill cut short, so the next one starts clean
        settled = 0  # positions at the ply known before this run's searches
        if mode == "outcomes":  # a lost parent settles its children as wins with no search at all
            free = [f"{current + mask} 1 ?\n" for current, mask, _, at_least in todo if at_least == 1]
            log.write("".join(free))
            log.flush()
            todo = [task for task in todo if task[3] < 1]
            settled = len(solved) + len(free)
        elif mode == "moves":
            settled = len(solved)
        table_size = largest_prime_at_most(args.table_mb * 2**20 // 9)
        chunks = [(table_size, mode, todo[i:i + args.chunk]) for i in range(0, len(todo), args.chunk)]
        if chunks:
            from connectx_toolkit.analysis.fast_solver import Solver

            # Compile (and cache) here first: workers compiling at once can leave numba's cache broken.
            Solver(1009).outcome("444444333333555555222222")
            total = len(todo) if mode == "fill" else len(everything)
            with tqdm(total=total, initial=settled, disable=args.no_progress) as bar, \
                    ProcessPoolExecutor(args.jobs) as pool:
                pending = [pool.submit(_solve_chunk, chunk) for chunk in chunks]
                for future in pending:  # in order, so the checkpoint grows in the visiting order
                    if future.cancelled():
                        continue
                    results, chunk_nodes = future.result()
                    log.write("".join(f"{key} {outcome} {'?' if move is None else move}\n"
                                      for key, outcome, move in results))
                    log.flush()
                    nodes += chunk_nodes
                    bar.update(len(results))
                    if args.hours and time.time() - started > args.hours * 3600:
                        for later in pending:
                            later.cancel()  # the ones already running still finish and are recorded
    solved = read_checkpoint(args.checkpoint)
    done = (f"{len(solved)} of {len(everything)} positions at ply {args.ply} solved -> {args.checkpoint} "
            f"({time.time() - started:.0f} s, {nodes} nodes searched)")
    if args.no_moves or args.fill_moves:
        missing = sum(1 for outcome, move in solved.values() if outcome >= 0 and move is None)
        print(f"{done}; {missing} not lost without a move: pack them with tools/pack_outcomes.py --moves")
        return 0
    entries = write_outcome_book(args.out, solved, args.ply, len(everything))
    print(f"{done}; {entries} moves -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
