"""Make a labelled Connect 4 position set: every legal move of every position scored exactly.

The labels come from bitbully, an independent C++ perfect solver (dev-only; never imported by an
agent). Scores use Pascal Pons' scale, from the point of view of the player to move: a move that
wins with the mover's own n-th stone from now scores (43 - plies_at_win) // 2 > 0, a draw 0, a loss the
negation of the opponent's win. Full columns are ``null``.

Origins:
  random  uniform random moves from the empty board (games already won are restarted);
  strong  perfect play (random tie-break among the best moves) with a random deviation with
          probability ``--deviation`` at each move.

Output (JSON lines; the first line is a ``#`` header stating the command that produced the file):
    {"moves": "4453", "scores": [-3, -2, 1, 2, 0, -2, -4]}
``moves`` is Pons' notation (1-based column digits), ``scores[c]`` the exact score of 0-based column c.

    python tools/make_oracle_set.py --origin random --plies 4-41 --per-ply 30 --seed 1 \
        --out tests/data/oracle_random.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys

from connectx_toolkit.atomic import write_atomically
from tools.oracle import Oracle  # imports bitbully only when an Oracle is made

ROWS, COLUMNS = 6, 7


def parse_plies(text: str) -> range:
    """``"4-41"`` -> range(4, 42); ``"12"`` -> range(12, 13)."""
    low, _, high = text.partition("-")
    first, last = int(low), int(high or low)
    if not 0 <= first <= last <= ROWS * COLUMNS - 1:
        raise ValueError(f"plies must lie in 0..{ROWS * COLUMNS - 1}, got {text!r}")
    return range(first, last + 1)


def legal_columns(heights: list[int]) -> list[int]:
    return [c for c in range(COLUMNS) if heights[c] < ROWS]


def play_random_prefix(oracle: Oracle, rng: random.Random, ply: int) -> list[int] | None:
    """``ply`` uniform random moves; None if a move on the way ended the game."""
    moves: list[int] = []
    heights = [0] * COLUMNS
    board = oracle.board(moves)
    while len(moves) < ply:
        column = rng.choice(legal_columns(heights))
        if board.can_win_next(column):
            return None  # the game would end here: the position after it is not playable
        board.play(column)
        moves.append(column)
        heights[column] += 1
    return moves


def random_positions(oracle: Oracle, rng: random.Random, plies: range, per_ply: int, bar) -> list[dict]:
    """Independent random games, one position taken from each."""
    entries: list[dict] = []
    seen: set[str] = set()
    for ply in plies:
        found = tries = 0
        while found < per_ply and tries < per_ply * 1000:
            tries += 1
            moves = play_random_prefix(oracle, rng, ply)
            text = None if moves is None else "".join(str(c + 1) for c in moves)
            if text is None or text in seen:
                continue
            seen.add(text)
            entries.append({"moves": text, "scores": oracle.column_scores(moves)})
            found += 1
            bar.update(1)
    return entries


def strong_positions(oracle: Oracle, rng: random.Random, plies: range, per_ply: int, deviation: float,
                     bar) -> list[dict]:
    """Games of perfect play with random deviations; every position on the way is a candidate.

    The scores that choose the perfect move are the labels, so each game costs one oracle call per
    ply. A ply takes positions until it holds ``per_ply`` of them.
    """
    found = {ply: [] for ply in plies}
    seen: set[str] = set()
    for _ in range(per_ply * 50):
        if all(len(found[ply]) >= per_ply for ply in plies):
            break
        moves: list[int] = []
        heights = [0] * COLUMNS
        while len(moves) < plies.stop:
            scores = oracle.column_scores(moves)
            text = "".join(str(c + 1) for c in moves)
            ply = len(moves)
            if ply in found and len(found[ply]) < per_ply and text not in seen:
                seen.add(text)
                found[ply].append({"moves": text, "scores": scores})
                bar.update(1)
            if ply == plies.stop - 1:
                break
            if rng.random() < deviation:
                column = rng.choice(legal_columns(heights))
            else:
                best = max(s for s in scores if s is not None)
                column = rng.choice([c for c, s in enumerate(scores) if s == best])
            if oracle.board(moves).can_win_next(column):
                break  # the game ends with this move
            moves.append(column)
            heights[column] += 1
    return [entry for ply in plies for entry in found[ply]]


def generate(origin: str, plies: range, per_ply: int, seed: int, deviation: float, progress: bool) -> list[dict]:
    """Distinct positions, ``per_ply`` of each ply (fewer only if the tries run out)."""
    from tqdm import tqdm

    oracle = Oracle()
    rng = random.Random(seed)
    with tqdm(total=len(plies) * per_ply, disable=not progress, desc=f"oracle {origin}") as bar:
        if origin == "random":
            return random_positions(oracle, rng, plies, per_ply, bar)
        return strong_positions(oracle, rng, plies, per_ply, deviation, bar)


def write_oracle_set(path: str, header: str, entries: list[dict]) -> None:
    lines = [header, *(json.dumps(entry, separators=(", ", ": ")) for entry in entries)]
    write_atomically(path, "".join(line + "\n" for line in lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--origin", choices=("random", "strong"), required=True)
    parser.add_argument("--plies", default="4-41", help="ply range, e.g. 4-41 (default) or 12")
    parser.add_argument("--per-ply", type=int, default=30, help="positions per ply (default 30)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deviation", type=float, default=0.25,
                        help="strong origin: probability of a uniform random move (default 0.25)")
    parser.add_argument("--out", required=True, help="output .jsonl file")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        plies = parse_plies(args.plies)
        if args.per_ply < 1:
            raise ValueError("--per-ply must be >= 1")
        if not 0.0 <= args.deviation <= 1.0:
            raise ValueError("--deviation must lie in [0, 1]")
        if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
            raise ValueError(f"no such directory for --out: {args.out}")
    except ValueError as error:
        print(f"make_oracle_set: {error}", file=sys.stderr)
        return 2
    entries = generate(args.origin, plies, args.per_ply, args.seed, args.deviation, not args.no_progress)
    command = "python tools/make_oracle_set.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    header = f"# {command}  (scores: Pons' scale per 0-based column, null = full; labels by bitbully)"
    write_oracle_set(args.out, header, entries)
    print(f"{len(entries)} positions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
