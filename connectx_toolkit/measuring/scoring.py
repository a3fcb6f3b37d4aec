"""One agent's figures from its answers (:func:`agent_accuracy`), as plain JSON-able dicts.

Pure functions of ``list[Answer]``: nothing here runs an agent, so the report of a run and the report read
back from its answers file are the same figures. Accuracy is a share of positions with Wilson's 95 %
interval (``evaluation.reports.stats``), by set ("all", "critical") and by phase. A forfeit counts as an
inaccurate answer: on Kaggle it loses the game, whatever the position was worth.

>>> from connectx_toolkit.measuring.benchmark import LabelledPosition
>>> start = LabelledPosition(game=0, ply=0, moves="", scores=(-2, -1, 0, 1, 0, -1, -2))
>>> figures = agent_accuracy([Answer("a", start, 3, 0.5), Answer("a", start, 2, 0.1)])
>>> figures["sets"]["critical"]["accurate"], figures["sets"]["critical"]["blunders"]["win→draw"]
(1, 1)
"""

from __future__ import annotations

import shlex
import statistics
from typing import Any, Iterable, Sequence

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import BLUNDERS, PHASES, SETS
from connectx_toolkit.evaluation.reports.stats import wilson_interval
from connectx_toolkit.outcomes import FORFEITS

__all__ = ["TIME_NOTE", "agent_accuracy", "by_agent", "share", "worst_answers", "worst_entry",
           "worst_positions"]

TIME_NOTE = "the first move of each game includes the agent's load, as on Kaggle"
# The worst first: a blunder of a whole outcome class, then of half of one, then forfeits (they have their own
# section with reasons; a forfeit is listed here only where the agent was asked, not at the positions after it).
SEVERITY = {"win→loss": 0, "draw→loss": 1, "win→draw": 2}
FORFEIT_SEVERITY = 3
OUTCOME_AT_STAKE = {"win": 0, "draw": 1, "loss": 2}


def by_agent(answers: Iterable[Answer]) -> dict[str, list[Answer]]:
    """The answers of each agent, agents in the order they first answer."""
    found: dict[str, list[Answer]] = {}
    for answer in answers:
        found.setdefault(answer.agent, []).append(answer)
    return found


def share(successes: int, trials: int) -> dict[str, Any]:
    """``{"positions", "accurate", "accuracy", "low", "high"}``: the share with its Wilson 95 % interval (None
    for the three figures of an empty set, which has no share)."""
    if trials == 0:
        return {"positions": 0, "accurate": 0, "accuracy": None, "low": None, "high": None}
    interval = wilson_interval(successes, trials)
    return {"positions": trials, "accurate": successes, "accuracy": interval.value, "low": interval.low,
            "high": interval.high}


def set_figures(answers: Sequence[Answer]) -> dict[str, Any]:
    """Accuracy (overall and by phase), the best-score share and the blunders of the answers of one set."""
    figures = share(sum(a.accurate for a in answers), len(answers))
    best = sum(a.best for a in answers)
    figures["best"] = best
    figures["best_share"] = best / len(answers) if answers else None
    figures["by_phase"] = {
        name: share(sum(a.accurate for a in of_phase), len(of_phase))
        for name, of_phase in ((name, [a for a in answers if a.position.phase == name]) for name, _, _ in PHASES)}
    verdicts = [a.verdict for a in answers]
    figures["blunders"] = {kind: verdicts.count(kind) for kind in BLUNDERS}
    return figures


def time_figures(answers: Sequence[Answer]) -> dict[str, Any]:
    """Seconds per move over the answers that have a time (mean, median, 95th percentile, max)."""
    seconds = sorted(a.seconds for a in answers if a.seconds is not None)
    if not seconds:
        return {"moves": 0, "mean_s": None, "median_s": None, "p95_s": None, "max_s": None, "note": TIME_NOTE}
    p95 = seconds[0] if len(seconds) == 1 else statistics.quantiles(seconds, n=20, method="inclusive")[18]
    return {"moves": len(seconds), "mean_s": statistics.fmean(seconds), "median_s": statistics.median(seconds),
            "p95_s": p95, "max_s": seconds[-1], "note": TIME_NOTE}


def forfeit_figures(answers: Sequence[Answer]) -> dict[str, Any]:
    """Forfeits counted by kind, and grouped by (kind, reason) with the first position (move string) of each,
    in the order they first occur."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    kinds = {str(kind): 0 for kind in FORFEITS}
    for answer in answers:
        verdict = answer.verdict
        if verdict not in kinds:
            continue
        kinds[verdict] += 1
        reason = answer.reason or ""
        group = groups.get((verdict, reason))
        if group is None:
            position = answer.position
            group = groups[verdict, reason] = {"kind": verdict, "reason": reason, "count": 0, "game": position.game,
                                               "ply": position.ply, "moves": position.moves}
        group["count"] += 1
    return {"total": sum(kinds.values()), "by_kind": kinds, "reasons": list(groups.values())}


def ply_figures(answers: Sequence[Answer]) -> list[dict[str, Any]]:
    """Per ply: positions and accurate answers, of the "all" and the "critical" set (what the plot draws)."""
    plies = sorted({a.position.ply for a in answers})
    rows = []
    for ply in plies:
        at = [a for a in answers if a.position.ply == ply]
        row: dict[str, Any] = {"ply": ply}
        for name in SETS:
            chosen = [a for a in at if a.position.in_set(name)]
            row[name] = {"positions": len(chosen), "accurate": sum(a.accurate for a in chosen)}
        rows.append(row)
    return rows


def worst_key(answer: Answer) -> tuple:
    """Blunders by kind (win→loss, draw→loss, win→draw), the larger score lost first, the earlier ply first;
    then forfeits, a won position's first; (game, ply) breaks ties so the order is stable."""
    position = answer.position
    severity = SEVERITY.get(answer.verdict, FORFEIT_SEVERITY)
    return (severity, OUTCOME_AT_STAKE[str(position.outcome)], -(answer.score_lost or 0), position.ply,
            position.game)


def worst_answers(answers: Iterable[Answer], count: int = 10) -> list[Answer]:
    """The ``count`` worst answers (:func:`worst_key`): blunders, then forfeits where the agent was asked;
    an accurate answer is never among them."""
    candidates = [a for a in answers if not a.accurate and a.reached]
    return sorted(candidates, key=worst_key)[:max(0, count)]


def board_command(moves: str) -> str:
    """The command that shows the position with every column's value."""
    return f"connectx board --position {shlex.quote(moves)}"


def worst_entry(answer: Answer) -> dict[str, Any]:
    """A worst position as the report lists it (columns 1-based, as the move string is)."""
    position = answer.position
    return {"agent": answer.agent, "game": position.game, "ply": position.ply, "moves": position.moves,
            "phase": position.phase, "critical": position.critical, "outcome": str(position.outcome),
            "column": None if answer.column is None else answer.column + 1, "verdict": answer.verdict,
            "score": answer.score, "best_score": position.best, "score_lost": answer.score_lost,
            "scores": list(position.scores), "reason": answer.reason, "command": board_command(position.moves)}


def worst_positions(answers: Iterable[Answer], count: int = 10) -> list[dict[str, Any]]:
    """The ``count`` worst answers as the report lists them (:func:`worst_entry`)."""
    return [worst_entry(answer) for answer in worst_answers(answers, count)]


def agent_accuracy(answers: Sequence[Answer], worst: int = 10) -> dict[str, Any]:
    """One agent's figures: positions played, per set accuracy (by phase), best share and blunders, time per
    move, forfeits and accuracy by ply, and its ``worst`` worst positions."""
    names = {a.agent for a in answers}
    if len(names) > 1:
        raise ValueError(f"answers of several agents ({', '.join(sorted(names))}): one agent at a time")
    return {
        "agent": answers[0].agent if answers else "",
        "positions": len(answers),
        "answered": sum(a.column is not None and a.forfeit is None for a in answers),
        "sets": {name: set_figures([a for a in answers if a.position.in_set(name)]) for name in SETS},
        "time": time_figures(answers),
        "forfeits": forfeit_figures(answers),
        "by_ply": ply_figures(answers),
        "worst": worst_positions(answers, worst),
    }
