"""A match between two agents, as ``evaluate.py A B`` and ``evaluation.api.play_match`` run it: the results
file, an optional SPRT that stops the match once it decides, the progress bar, the summary.

``prepare(settings)`` checks every input before anything is written (resolving the agents, reading the
openings and, for ``resume``, the interrupted run's header); ``play(prepared)`` plays what is left and
returns the report and the records. The command line and the Python API both come here, so a match from
Python is the match the command line plays.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from connectx_toolkit.evaluation.display import MatchResult
from connectx_toolkit.evaluation.referees.record import DRAW, WIN, GameRecord, score_of
from connectx_toolkit.evaluation.settings import (
    DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_GAMES, PlaySettings, UsageError, check_games, check_sprt,
)

__all__ = ["MatchRun", "MatchSettings", "PreparedMatch", "play", "prepare"]


@dataclass(frozen=True, kw_only=True)
class MatchSettings(PlaySettings):
    """What a match is asked to play: ``evaluate.py A B`` and its options.

    ``agents`` are A and B (anything ``evaluate.py`` takes, a callable, or an ``AgentSpec``); ``sprt``
    (ELO0, ELO1) stops the match once the test decides; ``results`` is the JSON Lines file every game is
    appended to (None: none is written); ``resume`` the results file of an interrupted run to continue
    (its header then fixes the agents, the board, the clock, the seed, the openings and the SPRT);
    ``progress`` False is ``--no-progress``. How the games are played is :class:`PlaySettings`.
    """

    agents: tuple[Any, ...] = ()
    games: int = DEFAULT_GAMES
    sprt: tuple[float, float] | None = None
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    results: str | None = None
    resume: str | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        """The match's rules on top of :class:`PlaySettings`'; raises ``UsageError``."""
        super().__post_init__()
        if not self.resume and len(self.agents) != 2:  # a resumed run's header names them
            raise UsageError(f"give two agents (A B), got {len(self.agents)}")
        check_games(self.games)
        check_sprt(self.sprt, self.alpha, self.beta)


@dataclass
class PreparedMatch:
    """A match ready to play: its settings (a resumed run's, as its header recorded them), the resolved
    agents, the tasks, the games already played and the open results file."""

    settings: MatchSettings
    names: list[str]
    specs: tuple[Any, Any]
    tasks: list[Any]
    log: Any  # a ResultsLog, or None
    done: list[GameRecord] = field(default_factory=list)


@dataclass
class MatchRun:
    """A finished match: the report (``evaluate.py --json``'s object) and every record, by game id."""

    report: MatchResult
    records: list[GameRecord]


def prepare(settings: MatchSettings) -> PreparedMatch:
    """Check every input before anything is written and open the results file (the settings checked their
    own fields when they were made).

    Raises ``UsageError`` for a ``resume`` of another pairing, and with their own one line ``AgentSpecError`` (an agent that
    cannot be used), ``OpeningError``, ``ResultsError`` (a results file that cannot be written or resumed),
    ``BackendUnavailable`` and ``sandbox.SandboxUnavailable``.
    """
    from connectx_toolkit.evaluation.reports.results import ResultsError, ResultsLog
    from connectx_toolkit.evaluation.scheduling.match import backend_runner, match_suite, require_backend_can_load, schedule
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec, resolve_agent

    if settings.resume:
        log, header, done = ResultsLog.resume(settings.resume)
        try:
            settings = resumed(settings, header)
        except (KeyError, TypeError, ValueError) as error:
            raise ResultsError(f"{settings.resume}: its header is not a match's ({error})") from None
        suite = [[int(c) for c in line] for line in header["suite"]]
    else:
        log, done = None, []
        suite = None
    if settings.sandbox:  # before any agent code runs, the load checks included
        from connectx_toolkit.sandbox import require

        require()
    a, b = (agent if isinstance(agent, AgentSpec) else
            resolve_agent(agent, sandbox=settings.sandbox, paths=tuple(settings.path))
            for agent in settings.agents)  # A and B
    specs = (a, b)
    if suite is None:
        suite = match_suite(settings, settings.games)
    tasks = schedule(specs[0], specs[1], settings.games, suite, settings)
    require_backend_can_load(settings.backend, tasks)
    backend_runner(settings.backend)
    names = [agent if isinstance(agent, str) else spec.name for agent, spec in zip(settings.agents, specs)]
    if log is None and settings.results is not None:
        log = ResultsLog.create(settings.results, {
            "agents": names, "games": settings.games, "config": settings.config.as_dict(), "seed": settings.seed,
            "act_timeout": settings.act_timeout, "overage": settings.overage, "openings": settings.openings,
            "sprt": list(settings.sprt) if settings.sprt else None, "alpha": settings.alpha, "beta": settings.beta,
            "suite": suite, "paths": [os.path.abspath(path) for path in settings.path],
        })
    return PreparedMatch(settings, names, specs, tasks, log, done)


def resumed(settings: MatchSettings, header: dict[str, Any]) -> MatchSettings:
    """``settings`` with what an interrupted run's header fixes; its import roots unless given again."""
    if settings.agents and list(settings.agents) != header["agents"]:
        raise UsageError(f"--resume {settings.resume} is a run of {header['agents']}, not {list(settings.agents)}")
    config = header["config"]
    return replace(
        settings, agents=tuple(header["agents"]), games=int(header["games"]), rows=int(config["rows"]),
        columns=int(config["columns"]), inarow=int(config["inarow"]), seed=int(header["seed"]),
        act_timeout=float(header["act_timeout"]), overage=float(header["overage"]), openings=header["openings"],
        sprt=tuple(header["sprt"]) if header["sprt"] else None, alpha=float(header["alpha"]),
        beta=float(header["beta"]), path=tuple(settings.path) or tuple(header.get("paths", ())),
    )


def play(match: PreparedMatch) -> MatchRun:
    """Play the games ``match`` has left; every record goes to its results file as the game ends.

    ``KeyboardInterrupt`` leaves the results file whole (closed after the last finished game): the same
    run carries on with ``resume``.
    """
    from connectx_toolkit.evaluation.reports.progress import progress_bar
    from connectx_toolkit.evaluation.reports.summary import summarize
    from connectx_toolkit.evaluation.scheduling.match import run_match

    settings = match.settings
    for spec in match.specs:
        if spec.note:  # e.g. a notebook global whose live value is not the one its cell writes
            print(f"note: {spec.note}", file=sys.stderr)
    bar = progress_bar(len(match.tasks), initial=len(match.done), unit="game") if settings.progress else None
    played = list(match.done)
    first_record: list[float] = []

    def on_game(record: GameRecord) -> None:
        if not first_record:
            first_record.append(time.perf_counter())
        if match.log is not None:
            match.log.append(record)
        if settings.replays and record.outcome_of(0) not in (WIN, DRAW):
            from connectx_toolkit.evaluation.reports.replays import save_replay

            save_replay(record, settings.replays)
        played.append(record)
        if bar is not None:
            bar.set_postfix_str(running_score(played), refresh=False)
            bar.update(1)

    stop = sprt_stop(settings) if settings.sprt else None
    started = time.perf_counter()
    try:
        records = run_match(*match.specs, match.tasks, settings, on_game=on_game, done=match.done, stop=stop)
        ended = time.perf_counter()
    finally:
        if bar is not None:
            bar.close()
        if match.log is not None:
            match.log.close()
    summary = summarize(records, match.names, settings.config.as_dict())
    summary["results"] = match.log.path if match.log is not None else None
    summary["referee"] = settings.referee
    summary["games_per_s"] = games_per_second(len(records) - len(match.done), started, first_record, ended)
    if settings.sprt:
        summary["sprt"] = sprt_summary(records, settings)
    return MatchRun(MatchResult(summary), records)


def games_per_second(games: int, start: float, first: list[float], end: float) -> float:
    """Games per wall second of play, start-up excluded: from the first record on (workers and agents'
    processes are up by then), counting the games after it; the whole run when it played one game."""
    if games > 1 and first and end > first[0]:
        return round((games - 1) / (end - first[0]), 3)
    return round(games / (end - start), 3) if games and end > start else 0.0


def sprt_summary(records: Sequence[GameRecord], settings: MatchSettings) -> dict[str, Any]:
    """The SPRT on the game pairs so far: its bounds, its log-likelihood ratio and its verdict (None: go on)."""
    from connectx_toolkit.evaluation.reports import stats
    from connectx_toolkit.evaluation.reports.summary import pair_counts

    assert settings.sprt is not None, "only a match with an SPRT has its summary"
    elo0, elo1 = settings.sprt
    result = stats.sprt(stats.PAIR_SCORES, pair_counts(records), elo0, elo1, settings.alpha, settings.beta)
    return {
        "elo0": elo0, "elo1": elo1, "alpha": settings.alpha, "beta": settings.beta,
        "llr": round(result.llr, 4), "lower": round(result.lower, 4), "upper": round(result.upper, 4),
        "verdict": result.verdict,
    }


def sprt_stop(settings: MatchSettings):
    def stop(records: list) -> bool:
        return sprt_summary(records, settings)["verdict"] is not None

    return stop


def running_score(records: Sequence[GameRecord]) -> str:
    points = sum(score_of(record.outcome_of(0)) for record in records)
    return f"A scores {points:g}/{len(records)} ({points / len(records):.1%})" if records else ""
