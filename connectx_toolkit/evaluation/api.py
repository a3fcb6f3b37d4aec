"""Evaluating from Python (scripts, notebooks): the evaluation floor of the package's public API, which
``connectx_toolkit`` exports at its top (``from connectx_toolkit import play_match, run_gate, league``; the
board, which sits above evaluation, is ``connectx_toolkit.board``'s function there, not here).

    from connectx_toolkit import play_match

    def my_agent(obs, config):
        ...

    result = play_match(my_agent, "negamax", games=20)
    result                                             # a notebook shows the match table
    result["agents"][0]["score"], result["agents"][0]["elo"]

A and B are anything ``evaluate.py`` takes (a module in ``agents/``, a ``.py`` file, a folder,
``TARGET:FUNCTION``, ``random``/``negamax``) or a callable. Games run exactly as on the command line:
openings in seat-swapped pairs, each agent in its own process under Kaggle's clock. A function defined in
a notebook (or a script) is played as the file ``build(fn)`` would upload: its helpers and its globals as
the cells write them, loaded afresh every game, as Kaggle loads a submission; a note names a global whose
live value differs. A callable the builder cannot carry (a closure, a lambda, an object) is played live
from this process's forked copies, its state carried over between games, and a note says so (the Ray
backend cannot take those).

The gate and the league take the agents and ``evaluate.py --gate``'s and ``--league``'s options as keywords,
or the settings those commands build from their flags:

    run_gate("submissions/submission.py", "greedy")["verdict"]      # Verdict.PASS or Verdict.FAIL
    league(["solver", "alphabeta", "greedy"], games=20)["ratings"]
    run_gate(GateSettings("submissions/submission.py", "greedy", games=20))

Every result is a dict (``evaluation.display``): indexing, ``json.dumps`` and ``==`` work as on the
``--json`` object, which ``dict(result)`` and ``result.to_dict()`` give back; a notebook shows it as a
table, ``print(result)`` as the text ``evaluate.py`` prints. A run past a second shows a progress bar
(``tqdm.auto``: a widget in a notebook with ipywidgets); ``progress=False`` turns it off. An agent file
from outside the project runs with your rights: said once per process (``sandbox=True`` isolates it).
``run_league`` is ``league``'s earlier name, kept for the scripts that call it.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

from connectx_toolkit.evaluation.display import GateReport, LeagueReport, MatchResult
from connectx_toolkit.evaluation.gate import GateSettings, GateUsage
from connectx_toolkit.evaluation.settings import DEFAULT_GAMES
from connectx_toolkit.evaluation.league import LeagueSettings, LeagueUsage
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE
from connectx_toolkit.evaluation.scheduling.play_settings import DEFAULT_BACKEND
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec

__all__ = ["Agent", "GateReport", "GateSettings", "GateUsage", "LeagueReport", "LeagueSettings", "LeagueUsage",
           "MatchResult", "league", "play_match", "run_gate", "run_league"]

Agent = Union[str, Callable[..., Any], AgentSpec]


def note_outside(agents: Sequence[Any], program: str) -> None:
    """The notice that agent files from outside the project run with the user's rights, once per process
    (a Kaggle bundle always runs in the sandbox)."""
    from connectx_toolkit.sandbox import say_outside_note

    files = [agent for agent in agents if isinstance(agent, str) and not agent.endswith(".tar.gz")]
    say_outside_note(files, program, advice="pass sandbox=True")


def play_match(
    a: Agent,
    b: Agent,
    games: int = DEFAULT_GAMES,
    *,
    rows: int = 6,
    columns: int = 7,
    inarow: int = 4,
    openings: str | int | None = None,
    seed: int = 0,
    workers: int | None = None,
    act_timeout: float = DEFAULT_ACT_TIMEOUT,
    overage: float = DEFAULT_OVERAGE,
    memory_mb: int = DEFAULT_MEMORY_MB,
    backend: str = DEFAULT_BACKEND,
    results: str | None = None,
    sandbox: bool = False,
    paths: tuple[str, ...] = (),
    referee: str = DEFAULT_REFEREE,
    progress: bool = True,
    replays: str | None = None,
) -> MatchResult:
    """Play ``games`` games of A against B; the summary ``evaluate.py A B --json`` prints, as a
    :class:`~evaluation.display.MatchResult` (a dict a notebook shows as the match table).

    The keyword arguments are ``evaluate.py``'s options of the same names. ``results`` is a JSON Lines
    file to record every game in (as ``--results``; default: none is written, and the dict's
    ``"results"`` is None). ``sandbox`` runs every agent in a bubblewrap sandbox (as ``--sandbox``);
    ``paths`` are import roots after an agent file's folder, before ``PYTHONPATH``'s (as ``--path``).
    ``referee`` is "native" or "kaggle" (as ``--referee``). ``progress``: a bar of the games played once
    the match runs past a second (``evaluation.reports.progress``). ``replays``: a folder for an HTML
    replay of every game A did not win or draw (as ``--replays``).
    Raises, with one line: ``ValueError`` for bad input (``AgentSpecError`` for
    an agent that cannot be used), ``sandbox.SandboxUnavailable`` when no sandbox can be built here,
    ``evaluation.scheduling.match.BackendUnavailable`` for a backend that cannot run
    (Ray not installed, or given a callable). The match is ``evaluation.head_to_head``'s, as on the
    command line.
    """
    from connectx_toolkit.evaluation import head_to_head

    settings = head_to_head.MatchSettings(
        agents=(a, b), games=games, rows=rows, columns=columns, inarow=inarow,
        openings=None if openings is None else str(openings), seed=seed, workers=workers,
        act_timeout=act_timeout, overage=overage, memory_mb=memory_mb, backend=backend, results=results,
        sandbox=sandbox, path=tuple(paths), referee=referee, progress=progress, replays=replays,
    )
    if not sandbox:
        note_outside((a, b), "play_match")
    return head_to_head.play(head_to_head.prepare(settings)).report


def run_gate(candidate: Agent | GateSettings, baseline: Agent | None = None, *,
             log: Callable[[str], None] | None = None, progress: bool = True, extra_checks: Sequence[Any] = (),
             **options: Any) -> GateReport:
    """The pre-upload gate (``evaluate.py --gate``): the report ``--json`` prints, ``"verdict"``
    ``Verdict.PASS`` or ``Verdict.FAIL``, as a :class:`~evaluation.display.GateReport` (a notebook shows the
    checks and the verdict).

    ``run_gate(CANDIDATE, BASELINE, games=20, ...)``: ``options`` are :class:`GateSettings`' fields (the
    ``evaluate.py --gate`` options of the same names); or ``run_gate(GateSettings(...))`` with none. ``log``
    receives the running commentary the command line prints, line by line; ``progress`` shows a bar of the
    games played, named after the check being run. ``extra_checks`` run after the gate's own (``gate.run``:
    the accuracy check, which the package's top hands in for ``accuracy=True``). Raises ``GateUsage`` (a
    ``ValueError``, one line) for bad input, ``TypeError`` for settings given twice; a candidate that cannot
    load is a FAIL, not an error.
    """
    from connectx_toolkit.evaluation import gate

    settings = _settings(GateSettings, candidate, (baseline,) if baseline is not None else (), options)
    if not settings.sandbox:
        note_outside((settings.candidate, settings.baseline), "run_gate")
    return GateReport(gate.run(settings, log, progress=progress, extra_checks=extra_checks))


def league(agents: Sequence[Agent] | LeagueSettings, *, progress: bool | None = None, **options: Any) -> LeagueReport:
    """A round-robin league (``evaluate.py --league``): the report ``--json`` prints, as a
    :class:`~evaluation.display.LeagueReport` (a notebook shows the rating and cross tables).

    ``league([A, B, C], games=20, ...)``: ``options`` are :class:`LeagueSettings`' fields (``games`` per
    match, ``directory``, and the ``evaluate.py --league`` options of the same names); or
    ``league(LeagueSettings(...))`` with none. Writes ``league.md``, ``league.json``, ``league.png`` and
    ``games.jsonl`` to the directory (default ``results/league-<UTC time>-<pid>``). ``progress`` (default:
    the settings') shows a bar of the games played. Raises ``LeagueUsage`` (a ``ValueError``, one line) for
    bad input, ``TypeError`` for settings given twice.
    """
    from dataclasses import replace

    from connectx_toolkit.evaluation import league as leagues

    settings = _settings(LeagueSettings, agents, (), options, tuple)
    if progress is not None:
        settings = replace(settings, progress=progress)
    if not settings.sandbox:
        note_outside(settings.agents, "league")
    return LeagueReport(leagues.run(settings))


run_league = league  # the name evaluate.py's --league had from Python before ``league``


def _settings(kind: type, first: Any, more: tuple[Any, ...], options: dict[str, Any],
              convert: Callable[[Any], Any] = lambda value: value) -> Any:
    """``first`` when it is already ``kind``'s settings (and nothing else was given), else ``kind`` built from
    the arguments and the options."""
    if isinstance(first, kind):
        if more or options:
            given = ", ".join([*(["baseline"] if more else []), *options])
            raise TypeError(f"{kind.__name__} given with {given}: give the settings or the arguments, not both")
        return first
    return kind(convert(first), *more, **options)
