"""Evaluating from Python (scripts, notebooks): ``play_match(a, b)`` returns ``evaluate.py --json``'s object.

    from connectx_toolkit.evaluation.api import play_match

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

The gate and the league take the same settings as ``evaluate.py --gate`` and ``--league``:

    from connectx_toolkit.evaluation.api import GateSettings, LeagueSettings, run_gate, run_league

    run_gate(GateSettings("submissions/submission.py", "greedy"))["verdict"]  # "PASS" or "FAIL"
    run_league(LeagueSettings(("solver", "alphabeta", "greedy"), games=20))["ratings"]

Every result is a dict (``evaluation.display``): indexing, ``json.dumps`` and ``==`` work as on the
``--json`` object, which ``dict(result)`` and ``result.to_dict()`` give back; a notebook shows it as a
table, ``print(result)`` as the text ``evaluate.py`` prints. A run past a second shows a progress bar
(``tqdm.auto``: a widget in a notebook with ipywidgets); ``progress=False`` turns it off. An agent file
from outside the project runs with your rights: said once per process (``sandbox=True`` isolates it).

The board (``evaluate.py --board``) from a notebook: ``board(my_agent)`` serves it on 127.0.0.1 and, as
the cell's value, shows it in an IFrame; ``.url`` is its address, ``.close()`` stops it. On a hosted
kernel (Kaggle, Colab), whose 127.0.0.1 the browser cannot reach, ``board(game="run.jsonl:3")`` draws the
game in the cell itself, every position's column values solved ahead, stepped with no server.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Union

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.display import GateReport, LeagueReport, MatchResult
from connectx_toolkit.evaluation.gate import GateSettings, GateUsage
from connectx_toolkit.evaluation.settings import DEFAULT_GAMES
from connectx_toolkit.evaluation.league import LeagueSettings, LeagueUsage
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE
from connectx_toolkit.evaluation.scheduling.play_settings import DEFAULT_BACKEND
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec

__all__ = ["Agent", "GateReport", "GateSettings", "GateUsage", "LeagueReport", "LeagueSettings", "LeagueUsage",
           "MatchResult", "board", "play_match", "run_gate", "run_league"]

Agent = Union[str, Callable[..., Any], AgentSpec]


def _note_outside(agents: Sequence[Any], program: str) -> None:
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
        _note_outside((a, b), "play_match")
    return head_to_head.play(head_to_head.prepare(settings)).report


def run_gate(settings: GateSettings, log: Callable[[str], None] | None = None, *,
             progress: bool = True) -> GateReport:
    """The pre-upload gate (``evaluate.py --gate``): the report ``--json`` prints, ``"verdict"`` PASS or FAIL,
    as a :class:`~evaluation.display.GateReport` (a notebook shows the checks and the verdict).

    ``log`` receives the running commentary the command line prints, line by line; ``progress`` shows a
    bar of the games played, named after the check being run. Raises ``GateUsage`` (a ``ValueError``, one
    line) for bad input; a candidate that cannot load is a FAIL, not an error.
    """
    from connectx_toolkit.evaluation import gate

    if not settings.sandbox:
        _note_outside((settings.candidate, settings.baseline), "run_gate")
    return GateReport(gate.run(settings, log, progress=progress))


def run_league(settings: LeagueSettings, *, progress: bool | None = None) -> LeagueReport:
    """A round-robin league (``evaluate.py --league``): the report ``--json`` prints, as a
    :class:`~evaluation.display.LeagueReport` (a notebook shows the rating and cross tables).

    Writes ``league.md``, ``league.json``, ``league.png`` and ``games.jsonl`` to ``settings.directory``
    (default ``results/league-<UTC time>-<pid>``). ``progress`` (default: ``settings.progress``) shows a
    bar of the games played. Raises ``LeagueUsage`` (a ``ValueError``, one line) for bad input.
    """
    from dataclasses import replace

    from connectx_toolkit.evaluation import league

    if progress is not None:
        settings = replace(settings, progress=progress)
    if not settings.sandbox:
        _note_outside(settings.agents, "run_league")
    return LeagueReport(league.run(settings))


def board(agent: Agent = "solver", *, game: str | None = None, rows: int = 6, columns: int = 7, inarow: int = 4,
          port: int = 0, sandbox: bool = False, analysis_budget: float | None = None,
          act_timeout: float = DEFAULT_ACT_TIMEOUT, overage: float = DEFAULT_OVERAGE, inline: bool | None = None,
          progress: bool = True) -> Any:
    """Serve the board against ``agent`` (``evaluate.py --board``) in the background and return it.

    A notebook shows the returned object as the page itself, in an IFrame; ``.url`` is its address (with
    its token), ``.close()`` stops it. ``game`` is ``FILE[:N]`` as ``--game``; the other keywords are
    ``evaluate.py``'s options of the same names.

    ``inline`` (default: on Kaggle and Colab, whose kernels the browser cannot reach at 127.0.0.1; see
    ``board.hosted``) returns instead a :class:`board.inline.InlineBoard`: the game drawn in the cell
    itself, every position's column values solved ahead (a bar shows the solving unless ``progress`` is
    False), stepped by the page's own script with no server; the agent does not play, and on a hosted
    kernel one line says that live play needs a local kernel. ``.save(path)`` writes it as a page.
    Raises ``board.server.BoardError`` (a ``ValueError``, one line) for bad input.
    """
    from connectx_toolkit.board.hosted import hosted_kernel
    from connectx_toolkit.board.server import BoardOptions, BoardServer

    service = hosted_kernel()
    config = None if game else Config(rows, columns, inarow)
    options = BoardOptions(agent=agent, game=game, config=config, port=port, sandbox=sandbox,
                           analysis_budget=analysis_budget, act_timeout=act_timeout, overage=overage)
    if inline if inline is not None else service is not None:
        from connectx_toolkit.board.inline import inline_board, live_play_note

        return inline_board(options, live_play_note(service, bool(game)) if service else None, progress=progress)
    if not sandbox:
        _note_outside((agent,), "board")
    return BoardServer(options).start()
