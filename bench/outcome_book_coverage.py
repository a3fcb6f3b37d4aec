"""How much of the early game the solver answers from its books, ply by ply (6x7).

For every position before ply 8 (a mirror pair counted once; nobody has won), and for the oracle sets'
positions at those plies: the share where the mover wins at once (the agent plays the win), the share
the opening book answers, the share the outcome book answers when the opening book does not, and the
share the outcome table settles as lost (no move is needed to keep a loss; the agent searches for its
best resistance). What is left is searched, and there the heuristic search can throw the outcome away;
with the complete table nothing is. The table is built over many runs (tools/make_outcomes.py), so
this is also its progress report.

    python bench/outcome_book_coverage.py
"""

from __future__ import annotations

import argparse
import sys

from connectx_toolkit.agents.solver_engine.opening_book import book_move, load_outcome_book, outcome_move
from connectx_toolkit.analysis.outcome_table import DEFAULT_CHECKPOINT, read_checkpoint, settle
from tools.make_outcomes import positions_at
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

    def counts(positions: list) -> list[int]:
        """[win at once, opening book, outcome book, lost (table), searched] over ``positions``."""
        tally = [0, 0, 0, 0, 0]
        for position in positions:
            if position.immediate_wins():
                tally[0] += 1
            elif book_move(position) is not None:
                tally[1] += 1
            elif outcome_move(position) is not None:
                tally[2] += 1
            elif values.get(position.canonical_key()) == -1:
                tally[3] += 1
            else:
                tally[4] += 1
        return tally

    print(f"outcome table: {meta['solved']:,} of {meta['positions']:,} positions at ply {meta['ply']} solved "
          f"({len(solved):,} in {args.checkpoint}); outcome book: {meta['entries']:,} moves\n")
    print("| ply | positions | win at once | opening book | outcome book | lost (table) | searched |")
    print("|---|---|---|---|---|---|---|")
    for ply in range(meta["ply"] + 1):
        rows = positions_at(ply)
        print(f"| {ply} | {len(rows):,} | " + " | ".join(f"{n / len(rows):.1%}" for n in counts(rows)) + " |")
    print("\n| oracle set | positions at plies 0-7 | win at once | opening book | outcome book | lost (table) | searched |")
    print("|---|---|---|---|---|---|---|")
    for name in ORACLE_SETS:
        positions = [e.position() for e in load_oracle_set(name, 0, 7)]
        print(f"| {name} | {len(positions)} | " + " | ".join(str(n) for n in counts(positions)) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
