"""Counts, rates, times and statistics of a finished (or running) match, as a JSON-able dict and a table."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from connectx_toolkit.evaluation.reports import stats
from connectx_toolkit.evaluation.referees.record import DRAW, ERROR, INVALID, TIMEOUT, WIN, GameRecord, score_of


def pair_counts(records: Sequence[GameRecord], index: int = 0) -> list[int]:
    """Pentanomial counts for agent ``index`` over complete pairs (games 2p and 2p + 1)."""
    by_id = {record.game_id: record for record in records}
    counts = [0] * 5
    for game_id, record in by_id.items():
        partner = by_id.get(game_id + 1)
        if game_id % 2 == 0 and partner is not None:
            half_points = round(2 * (score_of(record.outcome_of(index)) + score_of(partner.outcome_of(index))))
            counts[half_points] += 1
    return counts


def score_model(records: Sequence[GameRecord], index: int = 0) -> tuple[str, stats.Interval]:
    """Pentanomial when every game belongs to a complete pair, otherwise trinomial."""
    pairs = pair_counts(records, index)
    if records and 2 * sum(pairs) == len(records):
        return "pentanomial", stats.pentanomial_score(pairs)
    outcomes = [score_of(record.outcome_of(index)) for record in records]
    return "trinomial", stats.trinomial_score(outcomes.count(1.0), outcomes.count(0.5), outcomes.count(0.0))


def summarize(records: Sequence[GameRecord], names: Sequence[str], config: dict[str, int]) -> dict[str, Any]:
    """The ``--json`` object: ``games``, ``config``, ``agents`` (A then B) and match-level statistics."""
    agents = [_agent_summary(records, index, name) for index, name in enumerate(names)]
    wins, losses = agents[0]["wins"], agents[0]["losses"]
    return {
        "games": len(records),
        "config": {key: config[key] for key in ("rows", "columns", "inarow")},
        "agents": agents,
        "distinct_games": len({tuple(record.moves) for record in records}),
        "pairs": sum(pair_counts(records)),
        "score_model": score_model(records)[0],
        "los": round(stats.likelihood_of_superiority(wins, losses), 4),
    }


def _agent_summary(records: Sequence[GameRecord], index: int, name: str) -> dict[str, Any]:
    outcomes = [record.outcome_of(index) for record in records]
    times = [t for record in records for t in record.times_of(index)]
    n = len(records)
    wins, draws = outcomes.count(WIN), outcomes.count(DRAW)
    losses = n - wins - draws  # forfeits are losses, and also counted in their own columns
    _, score = score_model(records, index)
    elo = stats.elo_interval(score)
    return {
        "name": name,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": _rate(wins, n),
        "draw_rate": _rate(draws, n),
        "loss_rate": _rate(losses, n),
        "invalid": outcomes.count(INVALID),
        "errors": outcomes.count(ERROR),
        "timeouts": outcomes.count(TIMEOUT),
        "mean_move_s": round(sum(times) / len(times), 6) if times else 0.0,
        "max_move_s": round(max(times), 6) if times else 0.0,
        "max_bank_used_s": round(max((record.bank_used_of(index) for record in records), default=0.0), 3),
        "moves": len(times),
        "none_moves": sum(record.none_moves_of(index) for record in records),
        # forced plies that overrode its answers came first: the opening is a cause (a forfeit at its first call,
        # e.g. loading, is the agent's own whatever the opening)
        "opening_forfeits": sum(record.opening_forfeit_ply(index) is not None and record.forfeited_under_forced_opening(index)
                                for record in records),
        "overridden_opening_forfeits": sum(record.forfeited_after_overridden_opening(index) for record in records),
        "score": round(score.value, 4),
        "score_ci": [round(score.low, 4), round(score.high, 4)],
        "elo": _finite(elo.value),
        "elo_ci": [_finite(elo.low), _finite(elo.high)],
        "error_messages": error_messages(records, index, name),
    }


def error_messages(records: Sequence[GameRecord], index: int, name: str | None = None) -> list[dict[str, Any]]:
    """Why agent ``index`` (named ``name``) forfeited: ``[{"message", "games"}]``, most frequent first."""
    counts = Counter(told_how_to_ship(message, name) for record in records if (message := record.error_of(index)))
    return [{"message": message, "games": games}
            for message, games in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def told_how_to_ship(message: str, agent: str | None) -> str:
    """A forfeit's message, and, when the agent died of not finding a file at Kaggle's bundle path (a notebook's, one
    it makes from a Kaggle dataset), how to ship it: the builder's own advice, as ``connectx build`` gives it."""
    if agent is None or "FileNotFoundError" not in message:
        return message
    from connectx_toolkit.building.pipeline import missing_bundle_file, notebook_of

    return message + missing_bundle_file(message, notebook_of(agent))


def short_names(names: Sequence[str]) -> list[str]:
    """Names for a table: the file or folder name (``~/bots/v2/main.py:act`` -> ``main.py:act``), and
    ``parent/name`` where two would otherwise read the same; module and built-in names stay as they are."""

    from connectx_toolkit.building.agent_names import shown_name as tail

    short = [tail(name, 1) for name in names]
    for parts in range(2, 8):
        clashes = {s for s in short if sum(t == s for t in short) > 1}
        if not clashes:
            break
        short = [tail(name, parts) if s in clashes else s for name, s in zip(names, short)]
    return [s if sum(t == s for t in short) == 1 else name for name, s in zip(names, short)]


@dataclass
class TableParts:
    """What the match table says, before it is laid out as text or HTML."""

    head: str  # games, board, distinct games, pairs
    columns: list[str]
    rows: list[list[str]]  # one per agent, A then B
    reasons: list[str]  # why an agent forfeited
    tail: str  # the likelihood of superiority
    extra: list[str]  # the SPRT, when there is one


def table_parts(summary: dict[str, Any]) -> TableParts:
    """The cells and lines of :func:`table` (the notebook's HTML table shows the same)."""
    columns = [
        ("agent", "name", "{}"), ("W", "wins", "{}"), ("D", "draws", "{}"), ("L", "losses", "{}"),
        ("win%", "win_rate", "{:.1%}"), ("invalid", "invalid", "{}"), ("error", "errors", "{}"),
        ("timeout", "timeouts", "{}"), ("mean s/move", "mean_move_s", "{:.4f}"), ("max s/move", "max_move_s", "{:.4f}"),
        ("max bank s", "max_bank_used_s", "{:.1f}"),
        ("score [95% CI]", None, None), ("Elo [95% CI]", None, None),
    ]
    rows = []
    names = short_names([agent["name"] for agent in summary["agents"]])
    for agent, name in zip(summary["agents"], names):
        row = [fmt.format(agent[key]) if key != "name" else name for _, key, fmt in columns if key]
        low, high = agent["score_ci"]
        row.append(f"{agent['score']:.3f} [{low:.3f}, {high:.3f}]")
        elo, (elo_low, elo_high) = agent["elo"], agent["elo_ci"]
        row.append(f"{_elo_text(elo, agent['score'])} [{_elo_text(elo_low, low)}, {_elo_text(elo_high, high)}]")
        rows.append(row)
    config = summary["config"]
    head = (
        f"{summary['games']} games on {config['rows']}x{config['columns']}, {config['inarow']} in a row; "
        f"{summary['distinct_games']} distinct; {summary['pairs']} pairs ({summary['score_model']} score)"
    )
    tail = f"likelihood that {names[0]} is stronger: {summary['los']:.1%}"
    reasons = [f"{name} forfeited: {item['message']} ({item['games']} game{'s' if item['games'] != 1 else ''})"
               for agent, name in zip(summary["agents"], names) for item in agent.get("error_messages", [])]
    reasons += [f"{name}: {agent['opening_forfeits']} of its forfeits came while the opening was forced, after a "
                f"forced ply had played another column than its answer (no Kaggle game does: Kaggle's games start "
                f"from the empty board and play every answer; --openings 0 plays from it)"
                for agent, name in zip(summary["agents"], names) if agent.get("opening_forfeits")]
    reasons += [f"{name}: {agent['overridden_opening_forfeits']} of its forfeits came in games whose opening overrode "
                f"its own answers (an agent that keeps its own moves in globals may assume its answer was played; "
                f"Kaggle's games start from the empty board: --openings 0 plays from it)"
                for agent, name in zip(summary["agents"], names) if agent.get("overridden_opening_forfeits")]
    extra = []
    if "sprt" in summary:
        sprt = summary["sprt"]
        extra.append(
            f"SPRT elo0={sprt['elo0']} elo1={sprt['elo1']}: LLR {sprt['llr']:.2f} in [{sprt['lower']:.2f}, {sprt['upper']:.2f}]"
            f" -> {sprt['verdict'] or 'undecided'}"
        )
    return TableParts(head, [title for title, _, _ in columns], rows, reasons, tail, extra)


def table(summary: dict[str, Any]) -> str:
    """A plain aligned table for people."""
    parts = table_parts(summary)
    rows = [parts.columns, *parts.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(parts.columns))]
    lines = ["  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths)))
             for row in rows]
    return "\n".join([parts.head, lines[0], "-" * len(lines[0]), *lines[1:], *parts.reasons, parts.tail, *parts.extra])


def _rate(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0


def _finite(value: float) -> float | None:
    return round(value, 1) if math.isfinite(value) else None


def _elo_text(value: float | None, score: float) -> str:
    """Elo for the table; None stands for an infinite difference (a score of exactly 0 or 1)."""
    if value is None:
        return "+inf" if score >= 0.5 else "-inf"
    return f"{value:+.0f}"
