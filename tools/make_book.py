"""Build the Connect 4 opening book (``agents/data/connect4_book.bin``) with the project's own solver.

Which positions get a best move:
  * the agent's tree, for both seats: every position the agent can face up to ply ``--depth``
    when it plays the book's own moves and the opponent plays anything;
  * every position up to ply ``--all-plies`` (so openings of any origin are covered too).
A position and its mirror share one entry. The best move has the exact best score (fastest win,
longest resistance, or the draw), the most central among equals, so the output depends only on
the arguments: the build is deterministic.

Every solved position is appended to ``--checkpoint`` at once; ``--resume`` continues from it, so a
long build can be stopped and restarted at any time.

    nice -n 10 python tools/make_book.py --depth 15 --all-plies 1 --jobs 2 --table-mb 288 --resume

How long (measured on this 2-core machine, --table-mb 288, each worker's table kept from one position
to the next): plies 0-4 (57 positions) 48 min and plies 5-7 (862) about 25 min with one process;
ply 8 (651) about 2 min, ply 9 (2,375) about 5 min, plies 10-15 (178,713) 27 min with --jobs 2
(ply 11: 477 s, 13: 510 s, 15: 200 s). The depth-15 book of 182,658 positions took about 1 h 50 min
in all, across resumed runs. ``--depth -1`` writes the empty book.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.agents.solver_engine.opening_book import encode_book

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STANDARD = Config()
DEFAULT_OUT = os.path.join(ROOT, "agents", "data", "connect4_book.bin")
DEFAULT_CHECKPOINT = os.path.join(ROOT, "tools", "book_checkpoint.txt")


def canonical_position(position: Position) -> Position:
    """The orientation (position or its mirror) whose key is the book's key."""
    return position if position.canonical_key() == position.key() else position.mirrored()


_worker_solver = None  # each worker process keeps one solver (and its transposition table)
_table_size = 0  # entries of that table; 0 = the solver's default


def _set_table_size(entries: int) -> None:
    global _table_size
    _table_size = entries


def _solve_in_worker(task: tuple[int, int, int]) -> tuple[int, int, int, int]:
    """(key, move, score, nodes searched) for a canonical position given as (current, mask, plies)."""
    global _worker_solver
    from connectx_toolkit.analysis.fast_solver import TABLE_SIZE, Solver

    if _worker_solver is None:
        _worker_solver = Solver(_table_size or TABLE_SIZE)
    current, mask, plies = task
    before = _worker_solver.nodes
    move, score = _worker_solver.best_move_bitboards(current, mask, plies)
    return current + mask, move, score, _worker_solver.nodes - before


class Book:
    """Solved positions ``{canonical key: (move, score)}``, kept in step with the checkpoint file."""

    def __init__(self, checkpoint: str, resume: bool, jobs: int = 1, table_size: int = 0) -> None:
        self.solved: dict[int, tuple[int, int]] = {}
        if resume and os.path.exists(checkpoint):
            with open(checkpoint) as handle:
                for line in handle:
                    parts = line.split()
                    if line.endswith("\n") and len(parts) == 3:  # a line cut short by a kill is ignored
                        self.solved[int(parts[0])] = (int(parts[1]), int(parts[2]))
        self._log = open(checkpoint, "a")
        if self._log.tell() and not open(checkpoint, "rb").read().endswith(b"\n"):
            self._log.write("\n")  # end the line a kill cut short, so the next one starts clean
        self.jobs = jobs
        self.table_size = table_size
        _set_table_size(table_size)
        self.nodes = 0
        self._pool = None

    def _record(self, key: int, move: int, score: int, nodes: int) -> None:
        self.solved[key] = (move, score)
        self.nodes += nodes
        self._log.write(f"{key} {move} {score}\n")
        self._log.flush()

    def solve_all(self, positions: list[Position], bar) -> None:
        """Solve every canonical-orientation position not solved yet (in parallel with ``jobs`` > 1)."""
        tasks = [(p.current, p.mask, p.moves) for p in positions if p.key() not in self.solved]
        bar.update(len(positions) - len(tasks))
        if self.jobs == 1:
            for task in tasks:
                self._record(*_solve_in_worker(task))
                bar.update(1)
            return
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(self.jobs, initializer=_set_table_size, initargs=(self.table_size,))
        from concurrent.futures import as_completed

        for future in as_completed([self._pool.submit(_solve_in_worker, task) for task in tasks]):
            self._record(*future.result())
            bar.update(1)

    def move(self, position: Position) -> int:
        return self.solved[position.key()][0]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self._log.close()


def largest_prime_at_most(n: int) -> int:
    """A prime table size spreads Pons' keys (which are far from uniform) over the slots."""
    def is_prime(k: int) -> bool:
        return k >= 2 and all(k % d for d in range(2, int(k ** 0.5) + 1))

    while not is_prime(n):
        n -= 1
    return n


def output_problem(checkpoint: str, resume: bool, outputs: list[str]) -> str | None:
    """Why a build may not write its checkpoint and outputs (one line), or None."""
    if os.path.exists(checkpoint) and not resume:
        return f"{checkpoint} exists: pass --resume to continue it, or delete it"
    for path in outputs:
        if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            return f"no such directory for {path}"
    return None


def children(position: Position) -> list[Position]:
    """Positions after each legal move that does not end the game."""
    return [position.played(c) for c in position.legal_moves()
            if not position.is_winning_move(c) and position.moves + 1 < STANDARD.cells]


def write_book(path: str, entries: dict[int, int], depth: int, all_plies: int, root: Position) -> int:
    """Write the book file atomically; return its size."""
    metadata = {"depth": depth, "all_plies": all_plies, "format": 1}
    if root.moves:
        metadata["root_key"] = root.key()  # a sub-book: its trees start from this position
    data = encode_book(entries, metadata)
    write_atomically(path, data)
    return len(data)


def build(book: Book, depth: int, all_plies: int, out: str, progress: bool, root: Position | None = None,
          ) -> dict[int, int]:
    """Solve the needed positions ply by ply; return ``{canonical key: move}`` for the book.

    The book is rewritten after every ply, so a build stopped early still leaves a valid (shallower)
    book behind.
    """
    from tqdm import tqdm

    start = canonical_position(root or Position(STANDARD))
    every = {start.key(): start}  # all positions at this ply, canonical
    # The agent's tree for each seat (0: moves first, 1: moves second), canonical positions only.
    trees = [dict(every), dict(every)]
    entries: dict[int, int] = {}
    for ply in range(start.moves, depth + 1):
        todo = {}
        if ply <= all_plies:
            todo.update(every)
        agent_seat = ply % 2
        todo.update(trees[agent_seat])
        started, nodes = time.time(), book.nodes
        with tqdm(total=len(todo), desc=f"ply {ply:2d}", disable=not progress) as bar:
            book.solve_all([todo[key] for key in sorted(todo)], bar)
        for key in todo:
            entries[key] = book.move(todo[key])
        write_book(out, entries, ply, min(ply, all_plies), start)
        if progress:
            print(f"ply {ply}: {len(todo)} positions, {time.time() - started:.1f} s, "
                  f"{book.nodes - nodes} nodes", file=sys.stderr, flush=True)
        if ply == depth:
            break
        for seat in (0, 1):
            grown: dict[int, Position] = {}
            for position in trees[seat].values():
                if seat == agent_seat:
                    move = book.move(position)
                    nexts = [] if position.is_winning_move(move) else [position.played(move)]
                else:
                    nexts = children(position)
                for child in nexts:
                    child = canonical_position(child)
                    grown[child.key()] = child
            trees[seat] = grown
        if ply < all_plies:
            every = {c.key(): c for p in every.values() for c in map(canonical_position, children(p))}
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=15,
                        help="last ply of the agent's tree (default 15; -1 writes an empty book)")
    parser.add_argument("--all-plies", type=int, default=1,
                        help="every position up to this ply (default 1; -1 for none)")
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT)
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint file")
    parser.add_argument("--root", default="", help="build the trees from this position (Pons' move string)"
                        " instead of the empty board")
    parser.add_argument("--jobs", type=int, default=1, help="solver processes (default 1)")
    parser.add_argument("--table-mb", type=int, default=72,
                        help="transposition table per solver process in MB (default 72; bigger saves nodes)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        root = Position.from_string(args.root, STANDARD)
    except ValueError as error:
        print(f"make_book: bad --root: {error}", file=sys.stderr)
        return 2
    if root.last_player_won() or root.is_full():
        print("make_book: --root is a finished game", file=sys.stderr)
        return 2
    if not -1 <= args.all_plies <= args.depth <= 40 or args.depth < root.moves - 1:
        print("make_book: need -1 <= --all-plies <= --depth <= 40 and --depth >= the root's ply - 1"
              " (-1: no positions)", file=sys.stderr)
        return 2
    if args.jobs < 1 or args.table_mb < 1:
        print("make_book: --jobs and --table-mb must be >= 1", file=sys.stderr)
        return 2
    problem = output_problem(args.checkpoint, args.resume, [args.out, args.checkpoint])
    if problem:
        print(f"make_book: {problem}", file=sys.stderr)
        return 2
    started = time.time()
    book = Book(args.checkpoint, args.resume, args.jobs, largest_prime_at_most(args.table_mb * 2**20 // 9))
    try:
        entries = build(book, args.depth, args.all_plies, args.out, not args.no_progress, root)
    finally:
        book.close()
    size = write_book(args.out, entries, args.depth, args.all_plies, canonical_position(root))
    print(f"{len(entries)} positions, {size} bytes -> {args.out} "
          f"({time.time() - started:.0f} s, {book.nodes} nodes searched)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
