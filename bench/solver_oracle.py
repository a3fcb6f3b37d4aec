#!/usr/bin/env python3
"""The solver agent on labelled positions: per ply, how often its move keeps the outcome / is exact.

    nice -n 10 python bench/solver_oracle.py [--set random] [--plies 0-41] [--limit N]
                                             [--act-timeout 2] [--bank auto|SECONDS] [--budget SECONDS]

Each position of ``tests/data/oracle_<set>.jsonl`` (labels by bitbully, see tools/make_oracle_set.py)
is given to ``agents.solver.choose`` with a fresh engine (no transposition table carried over) and
the clock the agent's time manager gives it under Kaggle's rules: ``actTimeout`` (2 s) and the
overage bank a real game would have left at that ply. ``--bank auto`` (the default) is the bank of
a game that left the book at ply 4 (where the suite's openings end) and in which every one of the
agent's moves since then was hard and spent its whole hard budget: 60 s at plies 4-5, about 36 s at
plies 12-13 — a pessimistic bank, so the figures do not rely on time a real game may not have.
``--bank 60`` gives every position a full bank instead. ``--budget S`` is the old fixed clock: S
seconds per move, never extended. Prints a Markdown table per ply group: positions, moves keeping the
best outcome class, moves with the exact best score, median / max seconds per move, the bank given,
and the largest single move time overall; each move that lost the outcome goes to stderr. Asserts
nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from agents import solver
from agents.core import Config
from agents.core.clock import MoveClock
from agents.solver_engine import time_manager
from agents.solver_engine.time_manager import hard_budget, normal_budget
from tools.oracle import load_oracle_set

GROUPS = ((0, 11), (12, 15), (16, 19), (20, 23), (24, 29), (30, 41))
OFF_BOOK_PLY = 4  # the suite's openings are 4 plies: the first move the book may not know


def game_bank(ply: int, act: float, cells: int = 42, bank: float = time_manager.KAGGLE_BANK) -> float:
    """The bank left at ``ply`` if each of the agent's moves from ``OFF_BOOK_PLY`` on spent its hard budget."""
    first = OFF_BOOK_PLY + (ply - OFF_BOOK_PLY) % 2
    for stones in range(first, ply, 2):
        bank -= max(0.0, hard_budget(act, bank, stones, cells) - act)
    return bank


def clock_for(ply: int, args: argparse.Namespace) -> tuple[MoveClock, float | None]:
    """The clock of one position, and the bank it was planned with (None: a fixed budget)."""
    if args.budget is not None:
        return MoveClock(max(time_manager.MINIMUM_SECONDS, args.budget)), None
    bank = game_bank(ply, args.act_timeout) if args.bank == "auto" else float(args.bank)
    cells = Config().rows * Config().columns
    return MoveClock(normal_budget(args.act_timeout, bank), hard_budget(args.act_timeout, bank, ply, cells)), bank


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="random", help="oracle set name (tests/data/oracle_<name>.jsonl)")
    parser.add_argument("--plies", default="0-41", help="ply range, e.g. 12-23")
    parser.add_argument("--act-timeout", type=float, default=2.0, help="Kaggle's actTimeout (seconds)")
    parser.add_argument("--bank", default="auto",
                        help="overage bank in seconds, or 'auto': what a game of hard moves since ply 4 has left")
    parser.add_argument("--budget", type=float, default=None,
                        help="a fixed clock of this many seconds per move, never extended (the old benchmark)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions per ply (0: all)")
    args = parser.parse_args(argv)
    try:
        if args.bank != "auto" and float(args.bank) < 0 or args.act_timeout <= 0:
            raise ValueError("--bank and --act-timeout must be positive")
        low, _, high = args.plies.partition("-")
        first, last = int(low), int(high or low)
        entries = load_oracle_set(args.set, first, last)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.limit:
        kept, per_ply = [], {}
        for entry in entries:
            per_ply[entry.ply] = per_ply.get(entry.ply, 0) + 1
            if per_ply[entry.ply] <= args.limit:
                kept.append(entry)
        entries = kept
    rows: dict[tuple[int, int], list[tuple[bool, bool, float, float | None]]] = {}
    if args.budget is not None:
        print(f"oracle set {args.set!r}, plies {args.plies}, a fixed {args.budget} s per move")
    else:
        print(f"oracle set {args.set!r}, plies {args.plies}, actTimeout {args.act_timeout} s, bank {args.bank}")
    for entry in entries:
        solver._engines.clear()
        time_manager._first_move = False  # the load margin is not what is measured here
        position = entry.position()
        clock, bank = clock_for(entry.ply, args)
        start = time.perf_counter()
        move = solver.choose(position, clock)
        seconds = time.perf_counter() - start
        group = next(g for g in GROUPS if g[0] <= entry.ply <= g[1])
        rows.setdefault(group, []).append(
            (entry.keeps_outcome(move), entry.scores[move] == entry.best_score, seconds, bank))
        if not entry.keeps_outcome(move):
            print(f"  outcome lost: {entry.moves} (ply {entry.ply}): played {move + 1}, scores {list(entry.scores)}, "
                  f"{seconds:.2f} s", file=sys.stderr)
    print("| plies | positions | keeps outcome | exact best score | median s | max s | bank given s |")
    print("|---|---|---|---|---|---|---|")
    for group in sorted(rows):
        results = rows[group]
        n = len(results)
        kept = sum(r[0] for r in results)
        exact = sum(r[1] for r in results)
        times = [r[2] for r in results]
        given = [r[3] for r in results if r[3] is not None]
        banks = f"{min(given):.1f}-{max(given):.1f}" if given else "-"
        print(f"| {group[0]}-{group[1]} | {n} | {kept} ({100 * kept / n:.1f} %) | {exact} ({100 * exact / n:.1f} %) "
              f"| {statistics.median(times):.3f} | {max(times):.3f} | {banks} |", flush=True)
    every = [r[2] for results in rows.values() for r in results]
    if every:
        print(f"largest single move time: {max(every):.3f} s over {len(every)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
