"""The gate's accuracy check (``connectx gate CANDIDATE --baseline B --accuracy``): is CANDIDATE significantly less
accurate than BASELINE on the benchmark's critical positions?

Both agents are asked the same positions in one run (``measuring.play``), and the critical positions (where some
move changes the mover's outcome) are compared pair by pair with McNemar's exact test: FAIL when the candidate
gets more of them wrong than the baseline does and the test says the difference is real (p < 0.05); the reason
names the candidate's worst positions, each with the command that shows it. A forfeit of the candidate in these
games is a FAIL, as in the gate's strength checks, except one after the game's column had replaced one of its
own answers (no Kaggle episode is that game): then that game is left out of the comparison for both agents, with
a WARN line. The check plays every game of the benchmark twice (once per agent): docs/accuracy.md#in-the-gate
gives its time on the default submission and why it is not on by default.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import CRITICAL, DEFAULT_BENCHMARK, load_benchmark
from connectx_toolkit.measuring.paired import ALPHA, compare
from connectx_toolkit.measuring.play import play_benchmark
from connectx_toolkit.measuring.scoring import worst_positions
from connectx_toolkit.outcomes import Outcome

__all__ = ["accuracy_check", "check_accuracy"]

WORST_NAMED = 3


def accuracy_check(benchmark_path: str | None = None) -> tuple[str, Callable[[Any, Any], None], int]:
    """The check as the gate takes it (``gate.run``'s ``extra_checks``): its name, its runner on the benchmark at
    ``benchmark_path`` (the shipped one by default) and the games it plays at most (each game once per agent)."""
    path = benchmark_path or DEFAULT_BENCHMARK
    games = 2 * sum(1 for game in load_benchmark(path).games if game.positions)
    return "accuracy", functools.partial(check_accuracy, benchmark_path=path), games


def check_accuracy(context: Any, check: Any, benchmark_path: str = DEFAULT_BENCHMARK) -> None:
    """The check, in the gate's shape (``evaluation.gate``'s ``GateContext`` and ``Check``)."""
    benchmark = load_benchmark(benchmark_path)

    def on_game(_: list[Answer]) -> None:
        context.played += 1
        if context.progress is not None:
            context.progress.update(1)

    # the gate's settings are PlaySettings: the same clock, workers, sandbox and referee as its games
    def overridden(spec: Any, record: Any, seat: int) -> bool:
        """A candidate's forfeit after overridden answers is excused only when it does not repeat asked again."""
        return spec is not context.candidate or not context.asked_again(record, seat).repeated

    mine, theirs = play_benchmark([context.candidate, context.baseline], benchmark, context.settings, on_game=on_game,
                                  overridden=overridden)
    voided = {a.position.game for a in mine if a.forfeit is not None and a.overridden}
    real = [a for a in mine if a.forfeit is not None and not a.overridden and a.reached]
    for kind in (Outcome.INVALID, Outcome.ERROR, Outcome.TIMEOUT):
        bad = [a for a in real if a.forfeit == kind]
        if bad:
            check.reasons.append(f"accuracy: {kind} at {len(bad)} position{'s' if len(bad) > 1 else ''}, first after "
                                 f"moves {bad[0].position.moves!r} (game {bad[0].position.game}): {bad[0].reason}")
    if voided:
        first = next(a for a in mine if a.position.game in voided and a.forfeit is not None)
        context.warnings.append(
            f"accuracy: {len(voided)} benchmark game{'s' if len(voided) > 1 else ''} forfeited only after the game's "
            f"column had replaced one of its own answers ({first.reason}): no Kaggle episode is that game; left out "
            "of the comparison, not a failure")
    mine = [a for a in mine if a.position.critical and a.position.game not in voided]
    theirs = [b for b in theirs if b.position.critical and b.position.game not in voided]
    compared = next(entry for entry in compare(mine, theirs, ALPHA, ("candidate", "baseline"))
                    if entry["set"] == CRITICAL)
    only_mine, only_theirs = compared["only_first_wrong"], compared["only_second_wrong"]
    p_value, count = compared["p_value"], compared["positions"]
    accuracy = sum(a.accurate for a in mine) / max(1, count)
    baseline = sum(b.accurate for b in theirs) / max(1, count)
    check.data = {"critical_positions": count, "accuracy": round(accuracy, 4), "baseline_accuracy": round(baseline, 4),
                  "only_candidate_wrong": only_mine, "only_baseline_wrong": only_theirs, "p_value": p_value,
                  "voided_games": len(voided)}
    check.detail = (f"{count} critical positions: accuracy {accuracy:.3f} (baseline {baseline:.3f}); "
                    f"{only_mine} only the candidate got wrong, {only_theirs} only the baseline; McNemar exact p = "
                    f"{p_value:.3g}")
    if compared["more_accurate"] == "baseline":  # the candidate errs on more of them, significantly
        named = "; ".join(f"{entry['command']} ({entry['verdict']})" for entry in worst_positions(mine, WORST_NAMED))
        check.reasons.append(f"accuracy: significantly less accurate than the baseline on the critical positions "
                             f"({accuracy:.3f} vs {baseline:.3f}: {only_mine} positions only the candidate got wrong, "
                             f"{only_theirs} only the baseline; McNemar exact p = {p_value:.3g}); worst: {named}")
    check.passed = not check.reasons
