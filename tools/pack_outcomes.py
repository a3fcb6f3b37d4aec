"""Pack a solved ply's outcomes (``tools/make_outcomes.py``'s checkpoint) into the agent's outcome table.

The checkpoint holds "canonical key, outcome, move" lines ("?" for a move not found); the table keeps the
outcome only (with ``--moves``, the moves the checkpoint has too), one byte per slot of a numbering of every arrangement of the ply's stones,
zlib-compressed (:mod:`agents.solver_engine.outcome_table`). Positions the checkpoint does not hold yet are unknown in
the table, so a partial checkpoint packs into a partial table that the agent reads as such.

    python tools/pack_outcomes.py --checkpoint connectx_toolkit/analysis/data/outcomes_ply8.txt
    python tools/pack_outcomes.py --checkpoint part1.txt part2.txt --ply 8 --out table.bin

Every key is checked against the ply's positions (``positions_at``: about 4 s for ply 8), and a key
given twice with different outcomes is refused.
"""

from __future__ import annotations

import argparse
import os
import sys

from connectx_toolkit.agents.solver_engine.outcome_table import MAX_PLY, encode_outcome_table
from connectx_toolkit.analysis.outcome_table import read_checkpoint
from connectx_toolkit.atomic import write_atomically

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PLY = 8
DEFAULT_CHECKPOINT = os.path.join(ROOT, "connectx_toolkit", "analysis", "data", "outcomes_ply8.txt")
DEFAULT_OUT = os.path.join(ROOT, "agents", "data", "connect4_outcomes_ply8.bin")


def merged_checkpoints(paths: list[str]) -> dict[int, tuple[int, int | None]]:
    """``{canonical key: (outcome, move)}`` from one or more checkpoints; ValueError if two disagree."""
    outcomes: dict[int, tuple[int, int | None]] = {}
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError(f"no such checkpoint: {path}")
        try:
            solved = read_checkpoint(path)
        except (ValueError, UnicodeDecodeError) as error:
            raise ValueError(f"{path} is not a checkpoint of tools/make_outcomes.py: {error}") from None
        for key, entry in solved.items():
            if outcomes.setdefault(key, entry)[0] != entry[0]:
                raise ValueError(f"{path}: key {key} has outcome {entry[0]}, another checkpoint says "
                                 f"{outcomes[key][0]}")
    return outcomes


def pack(paths: list[str], ply: int, out: str, with_moves: bool = False) -> tuple[int, int, int]:
    """Write the table for ``ply`` from ``paths``; return (positions known, positions at the ply, bytes)."""
    from tools.make_outcomes import positions_at

    solved = merged_checkpoints(paths)
    keys = {position.canonical_key() for position in positions_at(ply)}
    for key in solved:
        if key not in keys:
            raise ValueError(f"key {key} is not a position at ply {ply} (a canonical one, nobody having won)")
    outcomes = {key: outcome for key, (outcome, _) in solved.items()}
    moves = None
    if with_moves:  # where the checkpoint has one: a position solved without its move has none in the table
        moves = {key: move for key, (outcome, move) in solved.items() if move is not None and outcome >= 0}
    data = encode_outcome_table(outcomes, ply, {"positions": len(keys)}, moves)
    write_atomically(out, data)
    return len(outcomes), len(keys), len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", nargs="+", default=[DEFAULT_CHECKPOINT],
                        help="checkpoint file(s) of tools/make_outcomes.py (default: the committed ply-8 one)")
    parser.add_argument("--ply", type=int, default=DEFAULT_PLY, help="the ply the checkpoint solved (default 8)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="the table to write")
    parser.add_argument("--moves", action="store_true",
                        help="keep the outcome-keeping moves the checkpoint has too (the agent plays them at once)")
    args = parser.parse_args(argv)
    if not 0 <= args.ply <= MAX_PLY:
        print(f"pack_outcomes: --ply must lie in 0..{MAX_PLY}", file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        print(f"pack_outcomes: no such directory for {args.out}", file=sys.stderr)
        return 2
    try:
        known, positions, size = pack(args.checkpoint, args.ply, args.out, args.moves)
    except ValueError as error:
        print(f"pack_outcomes: {error}", file=sys.stderr)
        return 2
    print(f"{known} of {positions} positions at ply {args.ply} -> {args.out} ({size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
