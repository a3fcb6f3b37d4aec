"""Per-agent figures over labelled games, the ``"analysis"`` JSON object and the table for people."""

from __future__ import annotations

from typing import Any, Sequence

from connectx_toolkit.analysis.labelling import GameAnalysis, MoveLabel

__all__ = ["BANDS", "agent_summary", "agents_table", "analysis_json", "analysis_table", "band_of"]

BANDS = ((0, 11), (12, 23), (24, 41))  # plies: opening, middle game, endgame


def band_of(ply: int) -> str:
    for low, high in BANDS:
        if low <= ply <= high:
            return f"{low}-{high}"
    raise ValueError(f"ply {ply} outside the 6x7 board")


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _counts(labels: Sequence[MoveLabel]) -> dict[str, Any]:
    known = [m for m in labels if m.known]
    exact = [m for m in labels if m.exact]
    return {
        "moves": len(labels),
        "unknown": len(labels) - len(known),
        "losing_moves": sum(m.loses_outcome for m in labels),
        "kept_outcome": _share(sum(m.kept_outcome for m in known), len(known)),
        "kept_exact": _share(sum(m.kept_exact for m in exact), len(exact)),
    }


def agent_summary(analyses: Sequence[GameAnalysis]) -> dict[str, dict[str, Any]]:
    """``{name: {"moves", "unknown", "losing_moves", "kept_outcome", "kept_exact", "by_band"}}``.

    ``moves`` counts the agent's moves (opening moves count for no agent); ``unknown`` those whose value
    before or after was not proven within the budget; ``losing_moves`` those that turned a win into a
    draw or loss or a draw into a loss; ``kept_outcome`` is the share of labelled moves that kept the
    mover's outcome, ``kept_exact`` the share of moves with both exact scores that kept the exact best
    score (None when there is no such move). ``by_band`` gives the same counts per ply band.
    """
    by_agent: dict[str, list[MoveLabel]] = {}
    for analysis in analyses:
        for name in analysis.game.agents:
            by_agent.setdefault(name, [])
        for label in analysis.moves:
            if label.agent is not None:
                by_agent[label.agent].append(label)
    result: dict[str, dict[str, Any]] = {}
    for name, labels in by_agent.items():
        entry = _counts(labels)
        entry["by_band"] = {band_of(low): _counts([m for m in labels if low <= m.ply <= high]) for low, high in BANDS}
        result[name] = entry
    return result


def analysis_json(analyses: Sequence[GameAnalysis], settings: dict[str, Any]) -> dict[str, Any]:
    """The ``"analysis"`` object of ``evaluate.py --json``."""
    return {"agents": agent_summary(analyses), "games": [a.to_json() for a in analyses], **settings}


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def agents_table(analyses: Sequence[GameAnalysis], settings: dict[str, Any]) -> list[str]:
    """The lines of the analysis's first part: what was labelled and how, then one row of figures per agent."""
    agents = agent_summary(analyses)
    moves = sum(len(a.moves) for a in analyses)
    unknown = sum(not m.known for a in analyses for m in a.moves)
    lines = [
        f"analysis: {len(analyses)} games, {moves} moves, {moves - unknown} labelled, {unknown} unknown "
        f"({settings['engine']}, {settings['budget_s']:g} s per position; {settings['searched']} positions searched, "
        f"{settings['cache_hits']} from the cache, {settings.get('from_table', 0)} from the outcome table; "
        f"{settings['elapsed_s']:.1f} s)",
    ]
    header = ["agent", "moves", "unknown", "losing", "kept outcome", "kept exact"] + [
        f"losing {band_of(low)}" for low, _ in BANDS]
    rows = [header]
    for name, entry in agents.items():
        rows.append([name, str(entry["moves"]), str(entry["unknown"]), str(entry["losing_moves"]),
                     _percent(entry["kept_outcome"]), _percent(entry["kept_exact"])]
                    + [str(entry["by_band"][band_of(low)]["losing_moves"]) for low, _ in BANDS])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
        if index == 0:
            lines.append("-" * len(lines[-1]))
    return lines


def analysis_table(analyses: Sequence[GameAnalysis], settings: dict[str, Any]) -> str:
    """The analysis for people: per-agent figures, then each game's first outcome-losing move."""
    lines = agents_table(analyses, settings)
    lines.append("first outcome-losing move per game (columns 0-based; plies count stones before the move):")
    shown = 0
    for analysis in analyses:
        first = analysis.first_losing
        if first is None:
            continue
        shown += 1
        kept = ", ".join(map(str, analysis.kept_by)) or "none found in budget"
        decided = "" if analysis.decided_ply is None else f"; decided at ply {analysis.decided_ply}"
        lines.append(f"  game {analysis.game.game_id} ({' vs '.join(analysis.game.agents)}): ply {first.ply}, "
                     f"{first.agent} played {first.column}: {first.before.outcome} -> {first.after.outcome} "
                     f"(kept by {kept}){decided}")
    if not shown:
        lines.append("  none: no move threw away a win or a draw (among the moves labelled)")
    return "\n".join(lines)
