"""A round-robin league: ``evaluate.py --league A B C ... [-n GAMES_PER_MATCH] [--results DIR]``.

Every two agents play a match of ``-n`` games (default 100) scheduled as ``evaluate.py`` schedules one:
game pairs over the opening suite with seats swapped, Kaggle's time limits, isolated workers. All matches
share one pool of workers. The ratings are Bradley–Terry on the Elo scale with 95 % intervals from the
Fisher information (see ``evaluation.reports.ratings``; the anchor is the mean rating, 0). Written to the output
directory:

- ``league.md``   the rating table and the cross table (Markdown);
- ``league.json`` the same as data (also what ``--json`` prints on stdout);
- ``league.png``  the ratings with their intervals (matplotlib);
- ``games.jsonl`` every game as it ends (a results file as ``evaluate.py`` writes them).

The directory is ``--results DIR`` or, by default, ``results/league-<UTC time>-<pid>``. From Python:
``evaluation.api.run_league(LeagueSettings((A, B, C, ...), ...))`` returns the ``--json`` report.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from connectx_toolkit.agents.core import Config
from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.evaluation.settings import DEFAULT_GAMES, PlaySettings, UsageError, check_games
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
from connectx_toolkit.evaluation.referees.record import DRAW, ERROR, FORFEITS, INVALID, TIMEOUT, WIN
from connectx_toolkit.evaluation.reports.progress import progress_bar

PRIOR_DRAWS = 1.0  # virtual draws between every two agents: keeps a 100 % or 0 % score finite


LeagueUsage = UsageError  # bad input for the league (the name the Python API has always exported)


@dataclass(frozen=True)
class LeagueSettings(PlaySettings):
    """What a league is asked to play: ``evaluate.py --league AGENT ...`` and its options.

    ``agents`` are anything ``evaluate.py`` takes as an agent; ``games`` is per match (``-n``);
    ``directory`` is where the league's files go (``--results DIR``; default
    ``results/league-<UTC time>-<pid>``); ``progress`` False is ``--no-progress``; how the games are
    played is :class:`PlaySettings` (``replays``: an HTML replay of every forfeited game, per match).
    """

    agents: tuple[str, ...]
    games: int = DEFAULT_GAMES
    directory: str | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        """The league's rules on top of :class:`PlaySettings`'; raises ``LeagueUsage``."""
        super().__post_init__()
        names = list(self.agents)
        if len(names) < 2:
            raise LeagueUsage("--league needs at least two agents")
        if len(set(names)) != len(names):
            raise LeagueUsage(f"--league lists an agent twice: {' '.join(names)}")
        check_games(self.games)


@dataclass(frozen=True)
class League:
    """A league ready to play: its settings, the resolved agents, the board, the openings and its directory."""

    settings: LeagueSettings
    specs: tuple[AgentSpec, ...]  # in the order of ``settings.agents``
    config: Config
    suite: list[list[int]]
    directory: str

    @property
    def names(self) -> list[str]:
        return list(self.settings.agents)


def run(settings: LeagueSettings) -> dict[str, Any]:
    """Play the league and write its files; returns the report (what ``--json`` prints).

    Raises ``LeagueUsage`` (one line) for bad input.
    """
    return complete(prepare(settings))


def complete(league: League) -> dict[str, Any]:
    """Play every match, then write the outputs; returns the report (its ``"out"``: the directory)."""
    report = summarize(play(league), league)
    write_outputs(report, league.directory)
    return report


def prepare(settings: LeagueSettings) -> League:
    """Resolve the agents, the openings and the backend, and make the directory (the settings checked their
    own fields when they were made); raises ``LeagueUsage``."""
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable, backend_runner, match_suite
    from connectx_toolkit.evaluation.scheduling.openings import OpeningError

    config = settings.config
    try:
        specs = tuple(resolve_agent(name, sandbox=settings.sandbox, paths=tuple(settings.path))
                      for name in settings.agents)
        suite = match_suite(settings, settings.games)
        backend_runner(settings.backend)
    except (AgentSpecError, OpeningError, BackendUnavailable, ValueError) as error:
        raise LeagueUsage(str(error)) from None
    directory = settings.directory or default_directory()
    if os.path.exists(os.path.join(directory, "league.json")):
        raise LeagueUsage(f"{directory} already holds a league (league.json); choose another directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        raise LeagueUsage(f"cannot create {directory}: {error.strerror}") from None
    return League(settings, specs, config, suite, directory)


def matches(k: int) -> list[tuple[int, int]]:
    """Every pair of agents once, in a fixed order."""
    return list(itertools.combinations(range(k), 2))


def play(league: League) -> dict[tuple[int, int], list]:
    """All matches on one pool of workers; returns the records of each match (i, j), by game id."""
    from connectx_toolkit.evaluation.scheduling.match import backend_runner, schedule
    from connectx_toolkit.evaluation.reports.results import ResultsLog

    settings = league.settings
    games = settings.games
    pairs = matches(len(league.specs))
    tasks = []
    for number, (i, j) in enumerate(pairs):
        for task in schedule(league.specs[i], league.specs[j], games, league.suite, settings):
            tasks.append(replace(task, game_id=number * games + task.game_id))
    header = {"league": league.names, "games_per_match": games, "config": league.config.as_dict(),
              "seed": settings.seed, "act_timeout": settings.act_timeout, "overage": settings.overage,
              "openings": settings.openings, "matches": [list(p) for p in pairs]}
    log = ResultsLog.create(os.path.join(league.directory, "games.jsonl"), header)
    records: dict[tuple[int, int], list] = {pair: [] for pair in pairs}
    progress = progress_bar(len(tasks), unit="game") if settings.progress else None

    def on_record(record: Any) -> None:
        log.append(record)  # league-wide game id: match number * games per match + id within the match
        number = record.game_id // games
        record.game_id %= games  # back to the id within its match: pairs are games 2p and 2p + 1
        records[pairs[number]].append(record)
        if settings.replays and any(o in FORFEITS for o in record.outcomes):
            from connectx_toolkit.evaluation.reports.replays import save_replay

            offender = 0 if record.outcome_of(0) in FORFEITS else 1
            save_replay(record, os.path.join(settings.replays, f"match-{number:03d}"), perspective=offender)
        if progress is not None:
            progress.update(1)

    try:
        backend_runner(settings.backend)(tasks, on_record=on_record, settings=settings)
    finally:
        if progress is not None:
            progress.close()
        log.close()
    return {pair: sorted(found, key=lambda r: r.game_id) for pair, found in records.items()}


def summarize(records: dict[tuple[int, int], list], league: League) -> dict[str, Any]:
    """Ratings, per-agent counts and the cross table as one JSON-able dict."""
    from connectx_toolkit.evaluation.reports.ratings import rate
    from connectx_toolkit.evaluation.referees.record import score_of

    names = league.names
    k = len(names)
    points, games = np.zeros((k, k)), np.zeros((k, k))
    for (i, j), found in records.items():
        scored = sum(score_of(r.outcome_of(0)) for r in found)
        points[i, j], points[j, i] = scored, len(found) - scored
        games[i, j] = games[j, i] = len(found)
    ratings = {r.name: r for r in rate(names, points, games, PRIOR_DRAWS)}
    per_agent: list[dict[str, Any]] = [
        {"wins": 0, "draws": 0, "losses": 0, "invalid": 0, "errors": 0, "timeouts": 0, "points": 0.0, "times": []}
        for _ in range(k)
    ]
    cross: list[list[float | None]] = [[None] * k for _ in range(k)]
    for (i, j), found in records.items():
        for side, agent in ((0, i), (1, j)):
            tally = per_agent[agent]
            for record in found:
                outcome = record.outcome_of(side)
                tally["points"] += score_of(outcome)
                tally["times"].extend(record.times_of(side))
                key = {WIN: "wins", DRAW: "draws", INVALID: "invalid", ERROR: "errors", TIMEOUT: "timeouts"}
                if outcome in key:
                    tally[key[outcome]] += 1
                if outcome != WIN and outcome != DRAW:
                    tally["losses"] += 1
        if found:
            own = sum(score_of(r.outcome_of(0)) for r in found) / len(found)
            cross[i][j], cross[j][i] = round(own, 4), round(1 - own, 4)
    rows = []
    for agent, name in enumerate(names):
        tally, rating = per_agent[agent], ratings[name]
        played = tally["wins"] + tally["draws"] + tally["losses"]
        times = tally.pop("times")
        rows.append({
            "name": name, "elo": round(rating.elo, 1), "elo_ci": [round(rating.low, 1), round(rating.high, 1)],
            "games": played, **tally, "points": tally["points"],
            "score": round(tally["points"] / played, 4) if played else 0.0,
            "mean_move_s": round(sum(times) / len(times), 6) if times else 0.0,
            "max_move_s": round(max(times), 6) if times else 0.0,
        })
    order = sorted(range(k), key=lambda a: -rows[a]["elo"])
    all_records = [r for found in records.values() for r in found]
    return {
        "league": names,
        "games_per_match": league.settings.games,
        "games": len(all_records),
        "distinct_games": len({tuple(r.moves) for r in all_records}),
        "config": league.config.as_dict(),
        "model": "Bradley-Terry (draw = half a win), Elo scale, fitted by minorisation-maximisation",
        "anchor": "mean rating 0",
        "prior": f"{PRIOR_DRAWS:g} virtual draw between every two agents",
        "interval": "95 % from the Fisher information (games taken as independent)",
        "ratings": [rows[a] for a in order],
        "cross_table": {"agents": [names[a] for a in order],
                        "score": [[cross[a][b] for b in order] for a in order]},
        "out": league.directory,
    }


def table_rows(report: dict[str, Any]) -> tuple[tuple[list[str], list[list[str]]], tuple[list[str], list[list[str]]], str]:
    """The rating table (head, rows), the cross table (head, rows) and the sentence above them; agents by
    their short names (``league.json`` keeps them as given)."""
    from connectx_toolkit.evaluation.reports.summary import short_names

    brief = dict(zip(report["cross_table"]["agents"], short_names(report["cross_table"]["agents"])))
    head = ["#", "agent", "Elo", "95% CI", "games", "score", "W", "D", "L", "invalid", "error", "timeout",
            "mean s/move", "max s/move"]
    body = [[str(rank), brief.get(r["name"], r["name"]), f"{r['elo']:+.0f}", f"[{r['elo_ci'][0]:+.0f}, {r['elo_ci'][1]:+.0f}]",
             str(r["games"]), f"{r['score']:.1%}", str(r["wins"]), str(r["draws"]), str(r["losses"]),
             str(r["invalid"]), str(r["errors"]), str(r["timeouts"]), f"{r['mean_move_s']:.4f}",
             f"{r['max_move_s']:.4f}"] for rank, r in enumerate(report["ratings"], 1)]
    cross = report["cross_table"]
    short = [str(n + 1) for n in range(len(cross["agents"]))]
    cross_head = ["#", "agent", *short]
    cross_body = [[str(n + 1), brief.get(name, name), *("-" if s is None else f"{s:.0%}" for s in row)]
                  for n, (name, row) in enumerate(zip(cross["agents"], cross["score"]))]
    config = report["config"]
    intro = (f"{report['games']} games ({report['games_per_match']} per match, {report['distinct_games']} distinct) on "
             f"{config['rows']}x{config['columns']}, {config['inarow']} in a row. {report['model']}; anchor: "
             f"{report['anchor']}; {report['interval']}; prior: {report['prior']}.")
    return (head, body), (cross_head, cross_body), intro


def render_table(report: dict[str, Any]) -> str:
    """The rating table and the cross table as aligned plain text (also valid Markdown)."""
    (head, body), (cross_head, cross_body), intro = table_rows(report)
    return "\n".join([intro, "", _markdown(head, body), "", "Score of the row agent against the column agent:", "",
                      _markdown(cross_head, cross_body)])


def write_outputs(report: dict[str, Any], directory: str) -> list[str]:
    """league.md, league.json and league.png in ``directory``; returns their paths."""
    paths = [os.path.join(directory, name) for name in ("league.md", "league.json", "league.png")]
    write_atomically(paths[0], f"# League: {', '.join(report['league'])}\n\n{render_table(report)}\n")
    write_atomically(paths[1], json.dumps(report, indent=2) + "\n")
    draw_chart(report, paths[2])
    return paths


def draw_chart(report: dict[str, Any], path: str) -> None:
    """Horizontal bars: each agent's rating with its 95 % interval, best at the top."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ratings = list(reversed(report["ratings"]))
    labels = [r["name"] for r in ratings]
    elo = [r["elo"] for r in ratings]
    errors = [[r["elo"] - r["elo_ci"][0] for r in ratings], [r["elo_ci"][1] - r["elo"] for r in ratings]]
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.5 * len(ratings)))
    axes.errorbar(elo, range(len(ratings)), xerr=errors, fmt="o", color="tab:blue", ecolor="tab:gray", capsize=4)
    axes.set_yticks(range(len(ratings)), labels)
    axes.axvline(0, color="black", linewidth=0.5)
    axes.set_xlabel("Elo (Bradley-Terry, mean 0) with 95 % interval")
    axes.set_title(f"League: {report['games']} games, {report['games_per_match']} per match")
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png", dpi=100)
    plt.close(figure)
    write_atomically(path, image.getvalue())


def default_directory() -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return os.path.join("results", f"league-{stamp}-{os.getpid()}")


def _markdown(head: list[str], body: list[list[str]]) -> str:
    widths = [max(len(row[c]) for row in [head, *body]) for c in range(len(head))]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(cell.rjust(w) if c != 1 else cell.ljust(w)
                                 for c, (cell, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" if c != 1 else ":" + "-" * (w + 1) for c, w in enumerate(widths)) + "|"
    return "\n".join([line(head), rule, *(line(row) for row in body)])
