"""How much of the early game the solver answers from its books, ply by ply (6x7).

For every position before ply 8 (a mirror pair counted once; nobody has won), and for the oracle sets'
positions at those plies: the share the opening book answers, the share the outcome book answers
when the opening book does not, and the share the outcome table settles as lost (no move is needed
to keep a loss; the agent searches for its best resistance). What is left is searched, and there the heuristic search can throw the outcome away.
The outcome table is built over many runs (tools/make_outcomes.py), so this is its progress report.

    python bench/outcome_book_coverage.py
"""

from __future__ import annotations

import argparse
import sys

from agents.solver_engine.opening_book import book_move, load_outcome_book, outcome_move
from tools.make_outcomes import DEFAULT_CHECKPOINT, positions_at, read_checkpoint, settle
from tools.oracle import ORACLE_SETS, load_oracle_set


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=DEFAULT_CHECKPOINT, help="the outcome table's checkpoint")
    args = parser.parse_args(argv)
    outcomes = load_outcome_book()
    if outcomes is None:
        print("no outcome book: run tools/make_outcomes.py", file=sys.stderr)
        return 2
    solved = read_checkpoint(args.checkpoint)
    meta = outcomes.metadata
    values, _ = settle(solved, meta["ply"])
    print(f"outcome table: {meta['solved']:,} of {meta['positions']:,} positions at ply {meta['ply']} solved "
          f"({len(solved):,} in {args.checkpoint}); outcome book: {meta['entries']:,} moves\n")
    print("| ply | positions | opening book | outcome book | lost (table) | searched |")
    print("|---|---|---|---|---|---|")
    for ply in range(meta["ply"] + 1):
        rows = positions_at(ply)
        opening = sum(book_move(p) is not None for p in rows)
        outcome = sum(book_move(p) is None and outcome_move(p) is not None for p in rows)
        lost = sum(book_move(p) is None and values.get(p.canonical_key()) == -1 for p in rows)
        rest = len(rows) - opening - outcome - lost
        print(f"| {ply} | {len(rows):,} | {opening / len(rows):.1%} | {outcome / len(rows):.1%} | "
              f"{lost / len(rows):.1%} | {rest / len(rows):.1%} |")
    print("\n| oracle set | positions at plies 0-7 | opening book | outcome book | lost (table) | searched |")
    print("|---|---|---|---|---|---|")
    for name in ORACLE_SETS:
        entries = load_oracle_set(name, 0, 7)
        positions = [e.position() for e in entries]
        opening = sum(book_move(p) is not None for p in positions)
        outcome = sum(book_move(p) is None and outcome_move(p) is not None for p in positions)
        lost = sum(book_move(p) is None and values.get(p.canonical_key()) == -1 for p in positions)
        print(f"| {name} | {len(positions)} | {opening} | {outcome} | {lost} | "
              f"{len(positions) - opening - outcome - lost} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
