"""The ladder summary for people: the text ``--ladder`` prints (``--json`` prints the dict itself)."""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["SHOWN_OPPONENTS", "ladder_text"]

SHOWN_OPPONENTS = 25  # the rest are in --json


def ladder_text(summary: dict[str, Any], analysis_lines: Sequence[str]) -> str:
    episodes, directory = summary["episodes"], summary["directory"]
    lines = [f"ladder: submission {summary['submission_id']}: {episodes['listed']} episodes listed, "
             f"{episodes['finished']} finished; {episodes['analysed']} analysed, in {directory}/"]
    if not episodes["selected"]:
        return lines[0] + "\n  none finished yet: Kaggle plays a new submission's episodes over the next hours"
    lines.append(f"  downloaded {episodes['downloaded']} replays now, {episodes['already_here']} were already here")
    if summary["replays_missing"]:
        lines.append(f"  no replay on Kaggle of {len(summary['replays_missing'])} finished episode(s): "
                     f"{', '.join(map(str, summary['replays_missing']))} (asked again next time)")
    for item in summary["logs_missing"]:
        lines.append(f"  no log of episode {item['episode']}: {item['why']}")
    for item in summary["unreadable"]:
        lines.append(f"  not analysed: {item['error']}")
    lines += [""] + _table(["", "games", "W", "D", "L", "score", "our forfeits", "their forfeits"],
                           [[f"as {name} player" if name != "all" else "all", *_figures(summary["record"][name])]
                            for name in ("first", "second", "all")])
    for item in summary["validation"]:
        lines.append(f"validation episode {item['episode']} (against itself): {' / '.join(item['outcomes'])}")
    lines += _opponents(summary["opponents"])
    lines += _losing_moves(summary["losing_moves"])
    lines += _forfeits(summary["forfeits"])
    if analysis_lines:
        lines += [""] + list(analysis_lines)
    plot = summary.get("analysis", {}).get("plot")
    if plot:
        lines.append(f"plot of losing moves by ply: {plot}")
    if summary["games"]:
        example = next((item["episode"] for item in summary["losing_moves"]), summary["games"][-1]["episode"])
        lines.append(f"step through a game and play on from any move: connectx board --game "
                     f"{directory}/{example}.json")
    return "\n".join(lines)


def _figures(counts: dict[str, Any]) -> list[str]:
    score = "-" if counts["score"] is None else f"{counts['score']:.3f}"
    return [str(counts[k]) for k in ("games", "win", "draw", "loss")] + [
        score, str(counts["our_forfeits"]), str(counts["their_forfeits"])]


def _opponents(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    lines = ["", f"by opponent ({len(rows)}; rating: before its last game with us, when Kaggle gives it):"]
    shown = rows[:SHOWN_OPPONENTS]
    lines += _table(["opponent", "rating", "games", "W", "D", "L", "score"],
                    [[row["opponent"], "-" if row["rating"] is None else f"{row['rating']:.1f}", str(row["games"]),
                      str(row["win"]), str(row["draw"]), str(row["loss"]), f"{row['score']:.3f}"] for row in shown],
                    indent="  ")
    if len(rows) > len(shown):
        lines.append(f"  ... and {len(rows) - len(shown)} more (--json lists them all)")
    return lines


def _losing_moves(entries: list[dict[str, Any]]) -> list[str]:
    lines = ["", "our first losing move in each game lost or drawn from a won position "
                 "(columns 0-based; plies count stones before the move):"]
    for item in entries:
        head = f"  episode {item['episode']} vs {item['opponent']} ({_seat(item['seat'])}, {item['outcome']}): "
        if item["ply"] is None:
            lines.append(head + "no outcome-losing move of ours among the moves labelled")
            continue
        kept = "" if item["kept_by"] is None else f" (kept by {', '.join(map(str, item['kept_by'])) or 'none found'})"
        lines.append(head + f"ply {item['ply']}, played {item['column']}: {item['before']} -> {item['after']}{kept}")
    if not entries:
        lines.append("  none: no game lost or drawn from a won position")
    return lines


def _forfeits(entries: list[dict[str, Any]]) -> list[str]:
    """Every forfeit of ours, grouped by kind (status and own line); each kind's log tail shown once, from
    its latest episode (every episode's tail is in --json)."""
    lines = ["", f"errors, timeouts and invalid moves of our agent ({len(entries) or 'none'}):"]
    kinds: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for item in entries:
        where = item["where"] or ("no traceback in its log" if item["log"] else "no log")
        kinds.setdefault((item["status"], where), []).append(item)
    for (status, where), items in kinds.items():
        lines.append(f"  {status} in {len(items)} game{'s' if len(items) > 1 else ''}: {where}")
        for item in items:
            lines.append(f"    episode {item['episode']} vs {item['opponent']} ({_seat(item['seat'])}), "
                         f"at ply {item['ply']}")
        latest = next((item for item in reversed(items) if item["log_tail"]), None)
        if latest is not None:
            lines.append(f"    the last lines of its log in episode {latest['episode']}:")
            lines += [f"      | {line}" for line in latest["log_tail"]]
    return lines


def _seat(seat: int) -> str:
    return ("first", "second")[seat] + " player"


def _table(header: list[str], rows: list[list[str]], indent: str = "") -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [indent + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
            for row in [header, *rows]]
