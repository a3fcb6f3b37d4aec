#!/usr/bin/env python3
"""The paired accuracy check against games, on a deliberate regression, in equal wall time.

The regression is ``alphabeta`` playing a uniformly random legal column on 3 % of its moves
(tests/fixtures/accuracy_agents/alphabeta_3_percent_random.py). First both agents are asked every position of the
shipped benchmark in one run (``connectx accuracy alphabeta REGRESSION``) and McNemar's exact test compares them
on the critical positions; then, for the same wall time, the two play a match from the opening suite with the
gate's SPRT (Elo -50 against 0, alpha = beta = 0.05, in game pairs), stopped when it decides or when the time is
up. Prints both times and verdicts.

    nice -n 10 python bench/accuracy_regression.py [--workers 2] [--games N] [--sprt -50 0]
"""

from __future__ import annotations

import argparse
import os
import time

from connectx_toolkit.evaluation.reports import stats
from connectx_toolkit.evaluation.reports.summary import pair_counts, score_model
from connectx_toolkit.evaluation.scheduling.match import run_match
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.settings import PlaySettings
from connectx_toolkit.measuring.benchmark import load_benchmark
from connectx_toolkit.measuring.paired import compare
from connectx_toolkit.measuring.play import play_benchmark

REGRESSION = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures",
                          "accuracy_agents", "alphabeta_3_percent_random.py")


def experiment(workers: int = 2, games: int | None = None, sprt: tuple[float, float] = (-50.0, 0.0),
               base: str = "alphabeta", regression: str = REGRESSION) -> dict:
    benchmark = load_benchmark()
    if games:
        benchmark = benchmark.only(game.id for game in benchmark.games[:games])
    settings = PlaySettings(workers=workers)
    specs = [resolve_agent(base), resolve_agent(regression)]
    started = time.monotonic()
    original, copy = play_benchmark(specs, benchmark, settings)
    accuracy_s = time.monotonic() - started
    compared = {entry["set"]: entry for entry in compare(original, copy, names=(specs[0].name, specs[1].name))}

    def result(records: list) -> stats.SprtResult:
        return stats.sprt(stats.PAIR_SCORES, pair_counts(records), sprt[0], sprt[1])

    match_started = time.monotonic()

    def stop(records: list) -> bool:
        return time.monotonic() - match_started > accuracy_s or (len(records) >= 20 and result(records).verdict is not None)

    records = run_match(specs[1], specs[0], 100_000, settings, stop=stop)  # the regression is A
    match_s = time.monotonic() - match_started
    sprt_result = result(records)
    _, score = score_model(records)
    from connectx_toolkit.measuring.scoring import agent_accuracy

    return {"positions": len(original), "critical": compared["critical"]["positions"], "accuracy_s": accuracy_s,
            "figures": [agent_accuracy(original, worst=3), agent_accuracy(copy, worst=3)],
            "accuracy": {name: sum(a.accurate for a in answers) / len(answers)
                         for name, answers in (("original", original), ("regression", copy))},
            "critical_comparison": compared["critical"], "all_comparison": compared["all"],
            "match_s": match_s, "match_games": len(records), "match_score": (score.value, score.low, score.high),
            "sprt": (sprt[0], sprt[1], sprt_result.llr, sprt_result.lower, sprt_result.upper, sprt_result.verdict)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=None, help="the benchmark's first N games only")
    parser.add_argument("--sprt", type=float, nargs=2, default=(-50.0, 0.0), metavar=("ELO0", "ELO1"))
    parser.add_argument("--json", metavar="FILE", help="also write every figure (both agents' reports) to FILE")
    args = parser.parse_args()
    found = experiment(args.workers, args.games, tuple(args.sprt))
    if args.json:
        import json

        with open(args.json, "w") as handle:
            json.dump(found, handle, indent=1, default=str)
    critical = found["critical_comparison"]
    print(f"accuracy: {found['positions']} positions ({found['critical']} critical) in {found['accuracy_s']:.0f} s; "
          f"alphabeta {found['accuracy']['original']:.3f}, regression {found['accuracy']['regression']:.3f}")
    print(f"  critical set: {critical['only_second_wrong']} positions only the regression got wrong, "
          f"{critical['only_first_wrong']} only alphabeta; McNemar exact p = {critical['p_value']:.3g}: {critical['verdict']}")
    elo0, elo1, llr, lower, upper, verdict = found["sprt"]
    value, low, high = found["match_score"]
    print(f"match: {found['match_games']} games in {found['match_s']:.0f} s; regression's score {value:.3f} "
          f"[{low:.3f}, {high:.3f}]; SPRT({elo0:g}, {elo1:g}) LLR {llr:.2f} in [{lower:.2f}, {upper:.2f}]: "
          f"{verdict or 'undecided'}")


if __name__ == "__main__":
    main()
