"""Build the default 6x7 opening suite, ``evaluation/scheduling/openings_6x7.txt``.

    python tools/make_openings.py [--plies 4] [--max-score 2] [--seed 0] [-o evaluation/scheduling/openings_6x7.txt]

Every position ``--plies`` moves deep is enumerated with the project's game core; transpositions
(the same position from another move order) and mirror images are kept once (the lexicographically
smallest Pons string stands for its class). Each position is then solved by the independent oracle
``bitbully`` (dev-only; never imported by an agent) and kept only when it is balanced:

    |score| <= max_score, score = perfect-play score of the side to move on Pascal Pons' scale.

On that scale a score ``s > 0`` means the side to move wins with its ``(22 - s)``-th stone (``s = 1``:
with its very last stone), ``s < 0`` that it loses that way, ``0`` a draw. With ``max_score = 2`` a kept
opening is a draw, or a win that perfect play achieves only with one of the winner's last two stones
(ply 39 or later of 42): as balanced as the empty board itself (score +1). Nobody is "already lost";
both sides must play near-perfectly to the end to realise the result. Positions where the side to move
wins at once or soon (e.g. an open three on the bottom row) score far outside the bound and are dropped.

The kept openings are written in a seeded random order, so the first N lines of the file are a varied
sample rather than N openings that all begin in column 1.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass

from connectx_toolkit.agents.core.config import Config
from connectx_toolkit.agents.core.position import Position
from connectx_toolkit.atomic import write_atomically
from tools.oracle import Oracle  # imports bitbully only when an Oracle is made

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STANDARD = Config()
DEFAULT_OUTPUT = os.path.join(ROOT, "connectx_toolkit", "evaluation", "scheduling", "openings_6x7.txt")


@dataclass(frozen=True)
class Opening:
    moves: str  # Pons notation: 1-based column digits
    score: int  # perfect-play score of the side to move (Pons' scale)


def enumerate_positions(plies: int, config: Config = STANDARD) -> list[str]:
    """One Pons string per position ``plies`` moves deep, counting a position and its mirror once.

    Lines that end the game early are not extended (a finished game is no opening).
    """
    by_class: dict[int, str] = {}

    def walk(position: Position, moves: str) -> None:
        if len(moves) == plies:
            cls = position.canonical_key()
            if cls not in by_class or moves < by_class[cls]:
                by_class[cls] = moves
            return
        for column in position.legal_moves():
            if position.is_winning_move(column) or position.played(column).is_full():
                continue
            walk(position.played(column), moves + str(column + 1))

    walk(Position(config), "")
    return sorted(by_class.values())


def solve(moves: str) -> int:
    """Perfect-play score of the side to move after ``moves`` on 6x7 (Pons' scale), by bitbully."""
    global _ORACLE
    if _ORACLE is None:
        _ORACLE = Oracle()  # its 12-ply book makes shallow positions instant
    return _ORACLE.score([int(ch) - 1 for ch in moves])


_ORACLE: Oracle | None = None


def balanced_openings(plies: int, max_score: int) -> list[Opening]:
    """Every position ``plies`` deep (up to mirror/transposition) with ``|score| <= max_score``."""
    kept = []
    for moves in enumerate_positions(plies):
        score = solve(moves)
        if abs(score) <= max_score:
            kept.append(Opening(moves, score))
    return kept


def render(openings: list[Opening], plies: int, max_score: int, seed: int, total: int) -> str:
    header = [
        "# Default 6x7 opening suite: one opening per line in Pons notation (1-based columns).",
        f"# Made by: python tools/make_openings.py --plies {plies} --max-score {max_score} --seed {seed}",
        f"# {total} positions {plies} plies deep (mirror images and transpositions counted once);",
        f"# kept the {len(openings)} whose perfect-play score for the side to move (bitbully, Pons' scale)",
        f"# satisfies |score| <= {max_score}: a draw, or a win only with one of the winner's last",
        f"# {max_score} stones. Shuffled with seed {seed}.",
    ]
    return "\n".join(header + [o.moves for o in openings]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=4, help="depth of the openings (default 4)")
    parser.add_argument("--max-score", type=int, default=2, help="keep |score| <= this (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the output order (default 0)")
    parser.add_argument("-o", "--output", default=DEFAULT_OUTPUT, help="output file")
    args = parser.parse_args(argv)
    if not 1 <= args.plies <= 12 or args.max_score < 0:
        print("error: --plies must be in 1..12 and --max-score >= 0", file=sys.stderr)
        return 2
    try:
        import bitbully  # noqa: F401
    except ImportError:
        print("error: the oracle bitbully is not installed (pip install -r requirements-dev.txt)", file=sys.stderr)
        return 2
    total = len(enumerate_positions(args.plies))
    openings = balanced_openings(args.plies, args.max_score)
    random.Random(args.seed).shuffle(openings)
    text = render(openings, args.plies, args.max_score, args.seed, total)
    try:
        write_atomically(args.output, text)
    except OSError as error:
        print(f"error: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"{args.output}: {len(openings)} of {total} openings kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
