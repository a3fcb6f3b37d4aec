#!/usr/bin/env python3
"""The solver agent on labelled positions: per ply, how often its move keeps the outcome / is exact.

    nice -n 10 python bench/solver_oracle.py [--set random | --file PATH ...] [--plies 0-41] [--limit N]
                                             [--act-timeout 2] [--bank auto|SECONDS] [--budget SECONDS]
                                             [--submission PATH] [--bands] [--simulate-table]

Each position of ``tests/data/oracle_<set>.jsonl``, or of the ``--file`` files (the same format, e.g.
held-out positions from ``tools/make_oracle_set.py``; labels by bitbully), is given to the agent with a
fresh engine (no transposition table carried over) and the clock the agent's time manager gives it under
Kaggle's rules: ``actTimeout`` (2 s) and the overage bank a real game would have left at that ply.
``--bank auto`` (the default) is the bank of a game that left the book at ply 4 (where the suite's
openings end) and in which every one of the agent's moves since then was hard and spent its whole hard
budget: 60 s at plies 4-5, about 36 s at plies 12-13 — a pessimistic bank, so the figures do not rely
on time a real game may not have. ``--bank 60`` gives every position a full bank instead. ``--budget
S`` is the old fixed clock: S seconds per move, never extended.

By default the agent is ``agents.solver.choose`` in this process. ``--submission PATH`` asks a built
file instead, loaded as Kaggle loads it (exec, last callable) afresh for each position and called as
Kaggle calls it: ``agent(obs, configuration)`` with the bank in ``remainingOverageTime``; the time is
measured around the call. ``--simulate-table`` answers the agent's ply-8 outcome-table lookups (the
position at ply 8, its possible parents at ply 9) from bitbully, exactly as the complete table will,
for builds whose table is still partial. ``--bands`` groups the plies as the analysis does (0-11,
12-23, 24-41). Prints a Markdown table per ply group: positions, moves keeping the best outcome class,
moves with the exact best score, median / max seconds per move, the bank given, and the largest single
move time overall; each move that lost the outcome goes to stderr. Asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import os

from connectx_toolkit.agents import solver
from connectx_toolkit.agents.core import Config
from connectx_toolkit.agents.core.clock import MoveClock
from connectx_toolkit.agents.solver_engine import outcome_table, time_manager
from connectx_toolkit.agents.solver_engine.outcome_table import encode_outcome_table, parents
from connectx_toolkit.agents.solver_engine.time_manager import hard_budget, normal_budget
from connectx_toolkit.analysis.summary import BANDS
from tools.oracle import OracleEntry, load_oracle_file, load_oracle_set

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
    bank = bank_for(ply, args)
    cells = Config().rows * Config().columns
    return MoveClock(normal_budget(args.act_timeout, bank), hard_budget(args.act_timeout, bank, ply, cells)), bank


def bank_for(ply: int, args: argparse.Namespace) -> float:
    return game_bank(ply, args.act_timeout) if args.bank == "auto" else float(args.bank)


def simulated_table(entries: list[OracleEntry]) -> bytes:
    """The file of what the complete ply-8 table says about these positions (ply 8) and their parents
    (ply 9), by bitbully: only positions a game reaches, as in the real table."""
    from tools.make_outcomes import positions_at
    from tools.oracle import Oracle

    reachable = {position.canonical_key() for position in positions_at(8)}
    oracle, outcomes = Oracle(), {}
    for entry in entries:
        position = entry.position()
        for known in [position] if entry.ply == 8 else parents(position) if entry.ply == 9 else []:
            key = known.canonical_key()
            if key in reachable and key not in outcomes:
                best = max(oracle.position_scores(known).values())
                outcomes[key] = (best > 0) - (best < 0)
    return encode_outcome_table(outcomes, 8, {"positions": len(reachable), "simulated": True})


class Agent:
    """The agent under test: ``agents.solver`` in this process, or a built file loaded as Kaggle loads it."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.source = None
        if args.submission:
            with open(args.submission, encoding="utf-8") as handle:
                self.source = handle.read()
        self.table: bytes | None = None  # a simulated table's file

    def move(self, entry: OracleEntry) -> tuple[int, float, float | None]:
        """(the column played, seconds, the bank given) for one position."""
        if self.source is None:
            solver._engines.clear()
            time_manager._first_move = False  # the load margin is not what is measured here
            if self.table is not None:
                outcome_table._cache[:] = [outcome_table.OutcomeTable(self.table)]
            clock, bank = clock_for(entry.ply, self.args)
            start = time.perf_counter()
            move = solver.choose(entry.position(), clock)
            return move, time.perf_counter() - start, bank
        from kaggle_environments.agent import get_last_callable
        from kaggle_environments.utils import structify

        agent = get_last_callable(self.source, path=self.args.submission)  # a fresh load, as for each episode
        modules = agent.__globals__.get("_LOADED", {})
        if "agents.solver_engine.time_manager" in modules:
            modules["agents.solver_engine.time_manager"]._first_move = False  # a game's later move
        if self.table is not None:
            module = modules.get("agents.solver_engine.outcome_table")
            if module is None:
                raise ValueError(f"{self.args.submission} has no outcome table: --simulate-table needs one")
            module._cache[:] = [module.OutcomeTable(self.table)]
        bank = bank_for(entry.ply, self.args)
        position = entry.position()
        obs = structify({"board": position.to_board(), "mark": 1 + entry.ply % 2, "step": entry.ply,
                         "remainingOverageTime": bank})
        config = structify({"rows": 6, "columns": 7, "inarow": 4, "actTimeout": self.args.act_timeout,
                            "timeout": self.args.act_timeout, "agentTimeout": 60, "episodeSteps": 1000,
                            "runTimeout": 1200})
        start = time.perf_counter()
        move = agent(obs, config)
        return move, time.perf_counter() - start, bank


def load_entries(args: argparse.Namespace) -> list[OracleEntry]:
    low, _, high = args.plies.partition("-")
    first, last = int(low), int(high or low)
    if args.file:
        entries = [entry for path in args.file for entry in load_oracle_file(path, first, last)]
    else:
        entries = load_oracle_set(args.set, first, last)
    if args.limit:
        kept, per_ply = [], {}
        for entry in entries:
            per_ply[entry.ply] = per_ply.get(entry.ply, 0) + 1
            if per_ply[entry.ply] <= args.limit:
                kept.append(entry)
        entries = kept
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="random", help="oracle set name (tests/data/oracle_<name>.jsonl)")
    parser.add_argument("--file", nargs="+", help="labelled position files in the sets' format, instead of --set")
    parser.add_argument("--plies", default="0-41", help="ply range, e.g. 12-23")
    parser.add_argument("--act-timeout", type=float, default=2.0, help="Kaggle's actTimeout (seconds)")
    parser.add_argument("--bank", default="auto",
                        help="overage bank in seconds, or 'auto': what a game of hard moves since ply 4 has left")
    parser.add_argument("--budget", type=float, default=None,
                        help="a fixed clock of this many seconds per move, never extended (the old benchmark)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many positions per ply (0: all)")
    parser.add_argument("--submission", help="a built solver file, loaded and called as Kaggle does")
    parser.add_argument("--bands", action="store_true", help="group the plies 0-11, 12-23, 24-41")
    parser.add_argument("--simulate-table", action="store_true",
                        help="answer the ply-8 outcome table's lookups from bitbully, as the complete table will")
    args = parser.parse_args(argv)
    try:
        if args.bank != "auto" and float(args.bank) < 0 or args.act_timeout <= 0:
            raise ValueError("--bank and --act-timeout must be positive")
        if args.submission and args.budget is not None:
            raise ValueError("--budget is a clock of this process's agent: a submission reads its bank itself")
        if args.submission and not os.path.isfile(args.submission):
            raise ValueError(f"no such file: {args.submission}")
        entries = load_entries(args)
        agent = Agent(args)
    except (ValueError, OSError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.simulate_table:
        agent.table = simulated_table(entries)
    rows: dict[tuple[int, int], list[tuple[bool, bool, float, float | None]]] = {}
    source = ", ".join(args.file) if args.file else repr(args.set)
    who = f"{args.submission} as Kaggle loads it" if args.submission else "agents.solver"
    table = ", ply-8 table simulated by bitbully" if args.simulate_table else ""
    if args.budget is not None:
        print(f"{who} on {source}, plies {args.plies}, a fixed {args.budget} s per move{table}")
    else:
        print(f"{who} on {source}, plies {args.plies}, actTimeout {args.act_timeout} s, bank {args.bank}{table}")
    groups = BANDS if args.bands else GROUPS
    shipped = list(outcome_table._cache)
    try:
        for entry in entries:
            move, seconds, bank = agent.move(entry)
            legal = type(move) is int and move in entry.legal_moves
            kept = legal and entry.keeps_outcome(move)
            group = next(g for g in groups if g[0] <= entry.ply <= g[1])
            rows.setdefault(group, []).append((kept, legal and entry.scores[move] == entry.best_score, seconds, bank))
            if not kept:
                played = move + 1 if legal else f"{move!r} (not a legal column)"
                print(f"  outcome lost: {entry.moves} (ply {entry.ply}): played {played}, scores {list(entry.scores)}, "
                      f"{seconds:.2f} s", file=sys.stderr)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        outcome_table._cache[:] = shipped  # this process's agent reads the shipped table again
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
