#!/usr/bin/env python3
"""What settling the outcome costs the exact search at plies 8-12, with and without the outcome table.

    nice -n 10 python bench/verify_cost.py [--set random | --file PATH ...] [--plies 8-12] [--limit 5]
                                           [--max-nodes 2500000] [--simulate-table]

For each labelled position (``tests/data/oracle_<set>.jsonl`` or ``--file``, labels by bitbully) where
the mover has a choice, the agent's exact search (``ExactSolver.analyse``, a fresh table) runs until it
knows a move that keeps the best outcome, or until ``--max-nodes``: once as the agent searched without
the table (outcome class first: is it a win? a draw?), once given what the ply-8 table proves there (at
ply 8 the outcome, at ply 9 a lower bound: the search then verifies instead). ``--simulate-table`` takes
what the complete table will say from bitbully, for a table still being built. Nodes are counted, not
timed, so the figures do not depend on the machine's load; the CPU speed (nodes per CPU second) is
printed with them, and the budgets in seconds a share of positions needs follow from it. Prints per
ply: positions, how many the table told something, and the share settled within 0.25 M, 0.5 M, 1 M and
2 M nodes (about 1, 2, 4 and 8 s of an idle core). Asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from connectx_toolkit.agents.core import Config
from connectx_toolkit.agents.solver import known_scores
from connectx_toolkit.agents.solver_engine import outcome_table
from connectx_toolkit.agents.solver_engine.negamax import ExactSolver, SearchTimeout
from bench.solver_oracle import simulated_table
from tools.oracle import OracleEntry, load_oracle_file, load_oracle_set

MILESTONES = (250_000, 500_000, 1_000_000, 2_000_000)


def settle(entry: OracleEntry, known: tuple[int, int] | None, max_nodes: int) -> tuple[int | None, int, float]:
    """(nodes when the outcome was settled or None, nodes searched, CPU seconds); checks the move kept it."""
    holder: list[ExactSolver] = []
    exact = ExactSolver(Config(), clock=lambda: holder[0].nodes)  # a deadline in nodes
    holder.append(exact)
    settled: list[int] = []
    question = exact._test

    def test_then_look(position, result, med):  # the agent stops once it knows a move keeping the outcome
        question(position, result, med)
        if not settled and result.outcome_known():
            settled.append(exact.nodes)
            if not entry.keeps_outcome(result.best):
                raise AssertionError(f"{entry.moves}: the search settled on {result.best}, which loses the outcome")
            raise SearchTimeout

    exact._test = test_then_look
    started = time.process_time()
    analysis = exact.analyse(entry.position(), max_nodes, known)
    seconds = time.process_time() - started
    if not settled and analysis.finished:  # nothing to ask (a draw at the last cells)
        settled.append(exact.nodes)
    return (settled[0] if settled else None), exact.nodes, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", default="random", help="oracle set name (tests/data/oracle_<name>.jsonl)")
    parser.add_argument("--file", nargs="+", help="labelled position files in the sets' format, instead of --set")
    parser.add_argument("--plies", default="8-12", help="ply range (default 8-12)")
    parser.add_argument("--limit", type=int, default=5, help="positions per ply (default 5; 0: all)")
    parser.add_argument("--max-nodes", type=int, default=2_500_000, help="give up after this many nodes")
    parser.add_argument("--simulate-table", action="store_true",
                        help="what the complete ply-8 table will say, from bitbully, instead of the shipped table")
    args = parser.parse_args(argv)
    try:
        low, _, high = args.plies.partition("-")
        first, last = int(low), int(high or low)
        if args.max_nodes < 1 or args.limit < 0:
            raise ValueError("--max-nodes must be >= 1 and --limit >= 0")
        entries = ([e for path in args.file for e in load_oracle_file(path, first, last)] if args.file
                   else load_oracle_set(args.set, first, last))
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    chosen, per_ply = [], {}
    for entry in entries:
        position = entry.position()
        if position.immediate_wins() or len(ExactSolver(Config()).non_losing_columns(position)) < 2:
            continue  # no search: a win at once, a forced move, or every move loses at once
        per_ply[entry.ply] = per_ply.get(entry.ply, 0) + 1
        if not args.limit or per_ply[entry.ply] <= args.limit:
            chosen.append(entry)
    shipped = list(outcome_table._cache)
    if args.simulate_table:
        outcome_table._cache[:] = [outcome_table.OutcomeTable(simulated_table(chosen))]
    rows: dict[int, list[tuple[bool, int | None, int | None]]] = {}
    nodes = seconds = 0.0
    try:
        for entry in chosen:
            known = known_scores(entry.position())
            plain, searched, cpu = settle(entry, None, args.max_nodes)
            nodes, seconds = nodes + searched, seconds + cpu
            verified = plain
            if known is not None:
                verified, searched, cpu = settle(entry, known, args.max_nodes)
                nodes, seconds = nodes + searched, seconds + cpu
            rows.setdefault(entry.ply, []).append((known is not None, plain, verified))
            print(f"  {entry.moves} (ply {entry.ply}, best score {entry.best_score}): known {known}, nodes to settle "
                  f"{plain or '-'} without the table, {verified or '-'} with it", file=sys.stderr, flush=True)
    finally:
        outcome_table._cache[:] = shipped
    table = "simulated by bitbully" if args.simulate_table else "as shipped"
    print(f"nodes to settle the outcome (at most {args.max_nodes:,}); the ply-8 table {table}; "
          f"{nodes / max(seconds, 1e-9) / 1000:.0f} k nodes per CPU second")
    print("| ply | positions | table told | " + " | ".join(f"≤ {m / 1e6:g} M without / with" for m in MILESTONES)
          + " | median nodes without / with |")
    print("|---|---|---|" + "---|" * (len(MILESTONES) + 1))

    def share(values: list[int | None], cap: int) -> str:
        return f"{sum(1 for v in values if v is not None and v <= cap)}"

    for ply in sorted(rows):
        results = rows[ply]
        plain = [r[1] for r in results]
        verified = [r[2] for r in results]
        cells = [f"{share(plain, m)} / {share(verified, m)}" for m in MILESTONES]
        medians = [statistics.median(v if v is not None else args.max_nodes + 1 for v in values)
                   for values in (plain, verified)]
        print(f"| {ply} | {len(results)} | {sum(r[0] for r in results)} | " + " | ".join(cells)
              + " | " + " / ".join(f"{m:,.0f}" if m <= args.max_nodes else "-" for m in medians) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
