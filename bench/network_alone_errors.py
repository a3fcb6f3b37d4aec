#!/usr/bin/env python3
"""Where the n-tuple network alone errs: on every position of Pons' sets (or a seeded sample) and on the shipped
benchmark, its errors (AlphaZero.jl's sense: another move has a strictly better outcome) sorted by the shallowest
search over the rules alone that tells its move from a move that keeps the outcome.

The network alone is ``ntuple.choose`` with the shipped weights: the tactical filter, then the highest learned
value. For each error the script asks a negamax over the rules only (a win is a four on the board, nothing else is
valued) at depth 2, 4, 6 and 8 plies from the position, the move included: an error "seen at depth d" is one where
that search proves the chosen move worse than a kept one (a forced loss within d plies where the kept move has
none, or a forced win the chosen move misses); "deeper" is one no search of 8 plies proves: the long game's.
AlphaZero.jl's depth-5 minimax baseline sees what falls within about six plies. Prints one line a set, the error
count with its rate, the minimax baseline's, and the errors by depth (docs/agents.md#pons-test-sets).

    nice -n 10 python bench/network_alone_errors.py [--sets end-easy middle-easy begin-easy] [--sample N --seed S]
        [--cache FILE] [--benchmark]

Labelling a whole set runs on one process (``--workers``) and is cached (``--cache``); the easy sets take
minutes, Begin-Hard hours (there, ``--sample``).
"""

from __future__ import annotations

import argparse
import collections
from typing import Iterable

from connectx_toolkit.agents.core import Position
from connectx_toolkit.agents.ntuple import choose, shipped_network
from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import load_benchmark
from connectx_toolkit.measuring.in_process import answers_in_process
from connectx_toolkit.measuring.pons import PONS_SETS
from connectx_toolkit.measuring.positions_file import DEFAULT_BUDGET, PositionsSettings, read_positions

DEPTHS = (2, 4, 6, 8)


def rules_value(position: Position, depth: int) -> int:
    """Negamax over the rules alone, for the player to move: +1 a win it can force within ``depth`` plies, -1 a
    loss it cannot avoid within them, 0 otherwise."""
    columns = [c for c in range(position.geometry.columns) if position.can_play(c)]
    if not columns or depth <= 0:
        return 0
    if any(position.is_winning_move(c) for c in columns):
        return 1
    best = -1
    for column in columns:
        best = max(best, -rules_value(position.played(column), depth - 1))
        if best == 1:
            break
    return best


def seen_at(answer: Answer) -> int | None:
    """The shallowest depth in ``DEPTHS`` at which the rules alone prove the answer worse than a kept move."""
    position = Position.from_string(answer.position.moves)
    assert answer.column is not None
    for depth in DEPTHS:
        chosen = -rules_value(position.played(answer.column), depth - 1)
        if max(-rules_value(position.played(c), depth - 1) for c in answer.position.kept_columns) > chosen:
            return depth
    return None


def report(name: str, answers: Iterable[Answer], minimax: float | None = None) -> str:
    answers = list(answers)
    errors = [a for a in answers if not a.accurate]
    depths = collections.Counter(seen_at(a) for a in errors)
    by_depth = ", ".join(f"{depths[d]} at {d}" for d in DEPTHS) + f", {depths[None]} deeper"
    baseline = f" (the minimax baseline {minimax} %)" if minimax is not None else ""
    return (f"{name}: {len(errors)} errors in {len(answers)} positions, "
            f"{100 * len(errors) / max(1, len(answers)):.1f} %{baseline}; seen by the rules alone: {by_depth}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="*", default=["end-easy", "middle-easy", "begin-easy"],
                        choices=[s.name for s in PONS_SETS])
    parser.add_argument("--sample", type=int, default=None, help="a seeded sample of N positions a set (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache", default=None, help="the analysis cache file (default: the toolkit's)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--benchmark", action="store_true", help="the shipped benchmark too")
    args = parser.parse_args()
    network = shipped_network()
    settings = PositionsSettings(budget=DEFAULT_BUDGET, early_budget=DEFAULT_BUDGET, cache=args.cache)
    for name in args.sets:
        found = next(s for s in PONS_SETS if s.name == name)
        labelled = read_positions(found.path, settings, sample=args.sample, seed=args.seed, workers=args.workers)
        answers = answers_in_process(lambda p: choose(p, network), labelled, "ntuple alone")
        print(report(name, answers, found.minimax), flush=True)
    if args.benchmark:
        answers = answers_in_process(lambda p: choose(p, network), load_benchmark(), "ntuple alone")
        print(report("the shipped benchmark", answers), flush=True)


if __name__ == "__main__":
    main()
