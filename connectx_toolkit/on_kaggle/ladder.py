"""The ladder summary of a submission's downloaded games, as one JSON-ready dict.

Every replay is read as the analysis reads a Kaggle episode (``analysis.games.read_episode``) and every
move is labelled (``analysis.jobs.label``), our agent named ``submission ID`` and every opponent
``opponents``, so the analysis compares the two sides. The summary holds:

- ``record``: games, wins, draws, losses as first player, as second player and in all (a forfeit of ours
  is a loss, one of the opponent's a win, as Kaggle rates them);
- ``opponents``: the same per opponent (team name), with its rating before its last game with us when the
  episode gives one;
- ``losing_moves``: in each game we lost, or drew from a won position, our first move that threw away a
  win or a draw (an exact label from the solver);
- ``forfeits``: every error, timeout or invalid move of our agent, with its own ``file:line`` when its log
  holds a traceback, and the last lines of its log;
- ``validation``: the episodes our agent played against itself (Kaggle's validation episode);
- ``analysis``: the analysis's own object (per-side figures, every game's labels), and the plot.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Any

from connectx_toolkit.analysis.games import AnalysisInputError, Game, read_episode
from connectx_toolkit.analysis.settings import AnalysisSettings
from connectx_toolkit.outcomes import FORFEITS, Outcome, Proven
from connectx_toolkit.on_kaggle.agent_logs import LAST_LINES, log_lines, own_error, read_log
from connectx_toolkit.on_kaggle.download import Fetched, our_log_seat
from connectx_toolkit.on_kaggle.episodes import Episode

__all__ = ["LadderGame", "OPPONENTS", "ladder", "ladder_directory", "ladder_summary", "read_ladder_games"]

OPPONENTS = "opponents"
SEAT_NAMES = ("first", "second")


@dataclass(frozen=True)
class LadderGame:
    """One downloaded episode, from our side."""

    episode: Episode
    game: Game  # agents named ours / OPPONENTS by seat
    seats: tuple[int, ...]  # ours: one, or both in the validation episode
    opponent: str
    rating: float | None  # the opponent's, before the episode
    replay: str
    log: str | None  # our agent's log (of seat ``log_seat``), when Kaggle gave one
    log_seat: int | None

    @property
    def seat(self) -> int | None:
        """Our seat, None in the validation episode (both are ours)."""
        return self.seats[0] if len(self.seats) == 1 else None

    @property
    def outcome(self) -> Outcome | str:
        return self.game.outcomes[self.seat] if self.seat is not None else ""


def read_ladder_games(fetched: Fetched, submission_id: int) -> tuple[list[LadderGame], list[dict[str, Any]]]:
    """The selected episodes whose replay is here, and the ones that cannot be read (``{"episode", "error"}``)."""
    ours = f"submission {submission_id}"
    games, unreadable = [], []
    for episode in fetched.selected:
        path = fetched.folder.replay(episode.id)
        if not os.path.exists(path):
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                game = read_episode(json.load(handle), path)
        except (OSError, ValueError) as error:  # AnalysisInputError is a ValueError
            unreadable.append({"episode": episode.id, "error": str(error) if isinstance(error, AnalysisInputError)
                               else f"{path}: not JSON"})
            continue
        seats = tuple(episode.seats_of(submission_id))
        if not seats:  # Kaggle lists it for the submission, but no seat is the submission's
            unreadable.append({"episode": episode.id, "error": f"{path}: no seat of submission {submission_id}"})
            continue
        names = tuple(ours if seat in seats else OPPONENTS for seat in range(2))
        other = next((agent for agent in episode.agents if agent.index not in seats), None)
        opponent = (other.team_name or f"submission {other.submission_id}") if other else "itself"
        log = fetched.folder.log(episode.id)
        games.append(LadderGame(episode, replace(game, game_id=episode.id, agents=names), seats, opponent,
                                other.rating if other else None, path, log if os.path.exists(log) else None,
                                our_log_seat(episode, submission_id)))
    return games, unreadable


def ladder_directory(submission_id: int, directory: str | None = None) -> str:
    """The cache folder of a submission's ladder games: ``directory``, or ``ladder/SUBMISSION_ID``."""
    return directory or os.path.join("ladder", str(submission_id))


def ladder(submission_id: int, max_episodes: int | None, directory: str | None,
           settings: AnalysisSettings) -> tuple[dict[str, Any], list[str]]:
    """Fetch what the cache folder (:func:`ladder_directory`) lacks of the submission's ``max_episodes`` most
    recent finished episodes (None: all), then analyse them: the summary dict (``connectx ladder --json``
    prints it) and the analysis's table for people. Raises ``KaggleError`` or ``AnalysisInputError`` (one
    line), ``RuntimeError`` when a solver worker cannot start; every file in the folder stays whole when
    interrupted."""
    from connectx_toolkit.on_kaggle.connection import Connection
    from connectx_toolkit.on_kaggle.credentials import find_credentials
    from connectx_toolkit.on_kaggle.download import fetch

    with Connection(find_credentials()) as connection:
        fetched = fetch(connection, submission_id, ladder_directory(submission_id, directory), max_episodes,
                        progress=settings.progress)
    return ladder_summary(settings, fetched, submission_id)


def ladder_summary(settings: AnalysisSettings, fetched: Fetched,
                   submission_id: int) -> tuple[dict[str, Any], list[str]]:
    """The summary dict of the downloaded games (``connectx ladder --json`` prints it) and the analysis's table
    (ours against the opponents) for people."""
    from connectx_toolkit.analysis.jobs import label
    from connectx_toolkit.analysis.plot import save_losing_moves_plot
    from connectx_toolkit.analysis.summary import agents_table, analysis_json

    games, unreadable = read_ladder_games(fetched, submission_id)
    played = [g for g in games if g.seat is not None]
    summary: dict[str, Any] = {
        "submission_id": submission_id,
        "directory": fetched.folder.directory,
        "episodes": {"listed": len(fetched.listed), "finished": sum(e.finished for e in fetched.listed),
                     "selected": len(fetched.selected), "downloaded": fetched.downloaded,
                     "already_here": fetched.already_here, "analysed": len(games)},
        "replays_missing": fetched.replays_missing,
        "logs_missing": [{"episode": e, "why": why} for e, why in sorted(fetched.logs_missing.items())],
        "unreadable": unreadable,
        "record": {name: _counts([g for g in played if g.seat == seat]) for seat, name in enumerate(SEAT_NAMES)},
        "opponents": _opponents(played),
        "validation": [{"episode": g.episode.id, "outcomes": list(g.game.outcomes)} for g in games if g.seat is None],
        "forfeits": [entry for g in games for entry in _forfeits(g)],
    }
    summary["record"]["all"] = _counts(played)
    analyses, figures = label([g.game for g in games], settings) if games else ([], {})
    summary["losing_moves"] = [entry for entry in map(_first_losing, games, analyses) if entry is not None]
    directory = settings.directory or fetched.folder.analysis
    if analyses:
        figures["plot"] = save_losing_moves_plot(analyses, os.path.join(directory, "losing-moves.png"))
        summary["analysis"] = analysis_json(analyses, figures)
    summary["games"] = [{"episode": g.episode.id, "seat": g.seat, "opponent": g.opponent, "rating": g.rating,
                         "outcome": g.outcome, "outcomes": list(g.game.outcomes), "replay": g.replay, "log": g.log}
                        for g in games]
    return summary, agents_table(analyses, figures) if analyses else []


def _counts(games: list[LadderGame]) -> dict[str, Any]:
    outcomes = [g.outcome for g in games]
    win = sum(o == Outcome.WIN for o in outcomes)
    draw = sum(o == Outcome.DRAW for o in outcomes)
    loss = sum(o == Outcome.LOSS or o in FORFEITS for o in outcomes)
    theirs = sum(g.game.outcomes[1 - g.seat] in FORFEITS for g in games if g.seat is not None)
    return {"games": len(games), "win": win, "draw": draw, "loss": loss,
            "score": round((win + draw / 2) / len(games), 4) if games else None,
            "our_forfeits": sum(o in FORFEITS for o in outcomes), "their_forfeits": theirs}


def _opponents(games: list[LadderGame]) -> list[dict[str, Any]]:
    by_name: dict[str, list[LadderGame]] = {}
    for game in games:
        by_name.setdefault(game.opponent, []).append(game)
    rows = []
    for name, played in by_name.items():
        ratings = [g.rating for g in played if g.rating is not None]
        counts = _counts(played)
        rows.append({"opponent": name, "rating": ratings[-1] if ratings else None,
                     **{k: counts[k] for k in ("games", "win", "draw", "loss", "score")}})
    return sorted(rows, key=lambda row: (-row["games"], row["opponent"]))


def _first_losing(game: LadderGame, analysis: Any) -> dict[str, Any] | None:
    """Our first outcome-losing move in a game we lost or drew from a won position; None for other games."""
    if game.seat is None:
        return None
    ours = [move for move in analysis.moves if move.ply % 2 == game.seat]
    lost = game.outcome == Outcome.LOSS or game.outcome in FORFEITS
    drawn_from_won = game.outcome == Outcome.DRAW and any(move.before.outcome == Proven.WIN for move in ours)
    if not (lost or drawn_from_won):
        return None
    first = next((move for move in ours if move.loses_outcome), None)
    entry: dict[str, Any] = {"episode": game.episode.id, "opponent": game.opponent, "seat": game.seat,
                             "outcome": game.outcome, "ply": None}
    if first is not None:
        entry.update(ply=first.ply, column=first.column, before=first.before.outcome, after=first.after.outcome,
                     score=first.after.score, best_score=first.before.score,
                     kept_by=analysis.kept_by if analysis.first_losing is first else None)
    return entry


def _forfeits(game: LadderGame) -> list[dict[str, Any]]:
    entries = []
    for seat in game.seats:
        outcome = game.game.outcomes[seat]
        if outcome not in FORFEITS:
            continue
        log = read_log(game.log) if game.log and seat == game.log_seat else None
        entries.append({"episode": game.episode.id, "opponent": game.opponent, "seat": seat,
                        "status": Outcome(outcome).status, "ply": len(game.game.moves),
                        "where": own_error(log) if log else None,
                        "log_tail": log_lines(log)[-LAST_LINES:] if log else None, "log": game.log})
    return entries
