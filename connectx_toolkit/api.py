"""The toolkit's public functions, one per job, exported by ``connectx_toolkit`` itself.

Each function imports the floor that does its job when it is called, so ``import connectx_toolkit`` (which
every agent process of the evaluator runs too) costs a few milliseconds. The evaluation's three
(``play_match``, ``run_gate``, ``league``) hand their arguments to ``evaluation.api``, whose signatures
theirs repeat (``tests/project/test_api.py`` holds them equal); ``build`` hands them to
``building.pipeline.build``; ``open_board`` and ``analyze`` sit here, above the board and the analysis.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (milliseconds of every agent process's start)
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Sequence

    from connectx_toolkit.board.inline import InlineBoard
    from connectx_toolkit.board.server import BoardServer
    from connectx_toolkit.building.pipeline import BuildReport, Target
    from connectx_toolkit.evaluation.api import Agent
    from connectx_toolkit.evaluation.display import AnalysisReport, GateReport, LeagueReport, MatchResult
    from connectx_toolkit.evaluation.gate import GateSettings
    from connectx_toolkit.evaluation.league import LeagueSettings
    from connectx_toolkit.measuring.report import AccuracyReport

__all__ = ["accuracy", "analyze", "build", "league", "open_board", "play_match", "run_gate"]


def build(target: Target, out: str | os.PathLike = "submission.py", *, function: str | None = None,
          allow_imports: Iterable[str] = (), paths: Iterable[str] = (), data: Iterable[str | os.PathLike] = (),
          sandbox: bool = False, verbose: bool = False) -> BuildReport:
    """Build ``target`` into ``out``, one file Kaggle accepts (``connectx build``), validated by Kaggle's loader
    and referee in a clean interpreter, written atomically; ``out`` ending in ``.tar.gz`` writes a Kaggle
    bundle instead.

    ``target``: a module in ``agents/``, a dotted module, a ``.py`` file or folder anywhere,
    ``TARGET:FUNCTION``, ``NOTEBOOK.ipynb:FUNCTION``, or a function object from a notebook or a script (built
    with every helper, class, import and constant it refers to). ``function`` picks a callable other than
    Kaggle's entry point; ``allow_imports`` admits third-party packages Kaggle's image has; ``paths`` are
    import roots after the agent's folder, before ``PYTHONPATH``'s; ``data`` files and folders a bundle ships
    beside ``main.py`` (``--data``: what a notebook writes in code; ``"SRC:NAME"`` ships SRC as NAME); ``sandbox`` validates inside a
    bubblewrap sandbox; ``verbose`` prints the report. Returns a ``building.BuildReport``; raises
    ``building.BuildError`` (one line; ``exit_code`` 2 for bad input, 1 for a failed validation) and then
    leaves ``out`` as it was.

    >>> import os, tempfile
    >>> from connectx_toolkit import build
    >>> report = build("greedy", os.path.join(tempfile.mkdtemp(), "submission.py"))
    >>> report.function, report.validation["ok"], os.path.getsize(report.path) == report.size
    ('agent', True, True)
    """
    from connectx_toolkit.building.pipeline import build as build_submission

    return build_submission(target, out, function=function, allow_imports=allow_imports, paths=paths, data=data,
                            sandbox=sandbox, verbose=verbose)


def play_match(
    a: Agent,
    b: Agent,
    games: int = 100,
    *,
    rows: int = 6,
    columns: int = 7,
    inarow: int = 4,
    openings: str | int | None = None,
    seed: int = 0,
    workers: int | None = None,
    act_timeout: float = 2.0,
    overage: float = 60.0,
    memory_mb: int = 2048,
    backend: str = "process",
    results: str | None = None,
    sandbox: bool = False,
    paths: tuple[str, ...] = (),
    referee: str = "native",
    progress: bool = True,
    replays: str | None = None,
) -> MatchResult:
    """Play ``games`` games of A against B (``connectx match A B``): its ``--json`` summary, as a
    ``MatchResult`` (a dict a notebook shows as the match table, ``print`` as the command's text).

    A and B are anything the command takes (a module in ``agents/``, a ``.py`` file, a folder,
    ``TARGET:FUNCTION``, ``random``/``negamax``) or a callable. Games start from the opening suite in
    seat-swapped pairs, each agent in its own process on Kaggle's clock (``act_timeout`` a move, an
    ``overage`` bank a game). The keywords are the command's options of the same names: ``results`` a JSON
    Lines file of every game, ``sandbox`` every agent in a bubblewrap sandbox, ``paths`` import roots,
    ``referee`` "native" or "kaggle", ``replays`` a folder of HTML replays of the games A did not win or
    draw; ``progress`` a bar of the games played once the match runs past a second. Raises ``ValueError``
    (one line) for bad input.

    >>> from connectx_toolkit import play_match
    >>> result = play_match("greedy", "random", games=2, progress=False)
    >>> result["games"], [agent["name"] for agent in result["agents"]]
    (2, ['greedy', 'random'])
    >>> print(result)  # the table the command prints
    2 games on 6x7, 4 in a row; 2 distinct; 1 pairs (pentanomial score)
    agent   W  D  L    win% ...
    greedy ...
    random ...
    """
    from connectx_toolkit.evaluation import api

    return api.play_match(a, b, games, rows=rows, columns=columns, inarow=inarow, openings=openings, seed=seed,
                          workers=workers, act_timeout=act_timeout, overage=overage, memory_mb=memory_mb,
                          backend=backend, results=results, sandbox=sandbox, paths=paths, referee=referee,
                          progress=progress, replays=replays)


def run_gate(candidate: Agent | GateSettings, baseline: Agent | None = None, *,
             log: Callable[[str], None] | None = None, progress: bool = True, accuracy: bool = False,
             **options: Any) -> GateReport:
    """The pre-upload gate (``connectx gate CANDIDATE``): is CANDIDATE safe to submit and not weaker than
    BASELINE? The report ``--json`` prints, as a ``GateReport`` (a notebook shows the checks and the verdict).

    ``options`` are the gate's settings (``evaluation.gate.GateSettings``' fields, the command's options of
    the same names: ``games``, ``sprt``, ``act_timeout``, ``workers``, ``sandbox`` ...); a ready
    ``GateSettings`` may stand for all the arguments. ``log`` receives the running commentary the command
    prints, line by line; ``progress`` shows a bar of the games played; ``accuracy`` adds the accuracy check
    (``connectx gate --accuracy``: FAIL when significantly less accurate than BASELINE on the benchmark's
    critical positions, ``measuring.gate_check``). ``report["verdict"]`` is a
    ``Verdict``; a candidate that cannot load or play is a FAIL with its reasons. Raises ``ValueError`` (one
    line) for bad input.

    >>> import os, tempfile
    >>> from connectx_toolkit import Verdict, run_gate
    >>> path = os.path.join(tempfile.mkdtemp(), "raises.py")
    >>> with open(path, "w") as file:
    ...     _ = file.write("def agent(observation, configuration):\\n    raise ValueError('no move')\\n")
    >>> report = run_gate(path, "greedy", progress=False)
    >>> report["verdict"] == Verdict.FAIL, report["reasons"][0]
    (True, 'smoke (vs random): 2 of 2 games lost by error ... ValueError: no move')
    """
    from connectx_toolkit.evaluation import api

    extra = []
    if accuracy:
        from connectx_toolkit.measuring.gate_check import accuracy_check

        extra.append(accuracy_check())
    return api.run_gate(candidate, baseline, log=log, progress=progress, extra_checks=extra, **options)


def league(agents: Sequence[Agent] | LeagueSettings, *, progress: bool | None = None, **options: Any) -> LeagueReport:
    """A round-robin league (``connectx league A B C ...``): every pair plays a match; the report ``--json``
    prints, as a ``LeagueReport`` (a notebook shows the rating and cross tables).

    ``options`` are the league's settings (``evaluation.league.LeagueSettings``' fields: ``games`` per match,
    ``directory`` for its files, and the command's options of the same names); a ready ``LeagueSettings``
    may stand for all the arguments. Writes ``league.md``, ``league.json``, ``league.png`` and
    ``games.jsonl`` to the directory (default ``results/league-<UTC time>-<pid>``). Raises ``ValueError``
    (one line) for bad input.

    >>> import os, tempfile
    >>> from connectx_toolkit import league
    >>> report = league(["greedy", "random"], games=2, directory=tempfile.mkdtemp(), progress=False)
    >>> [row["name"] for row in report["ratings"]], sorted(os.listdir(report["out"]))
    (['greedy', 'random'], ['games.jsonl', 'league.json', 'league.md', 'league.png'])
    """
    from connectx_toolkit.evaluation import api

    return api.league(agents, progress=progress, **options)


def analyze(path: str, *, directory: str | None = None, budget: float | None = None, cache: str | None = None,
            workers: int | None = None, compiled_solver: bool = True, outcome_table: bool = True,
            progress: bool = True) -> AnalysisReport:
    """Label every move of the games in ``path`` (``connectx analyze FILE``: a results file or a Kaggle episode
    JSON) with its exact value: the report ``--json`` prints, ``{"analysis": ...}``, as an ``AnalysisReport``
    (a notebook shows the analysis table).

    Writes an annotated replay of every lost game and a plot to ``directory`` (default: ``FILE`` without its
    extension, ``-analysis``). ``budget``: CPU seconds of search per position (default 30 with the compiled
    solver, 6 with the Python search); ``cache``: the SQLite file of solved positions ("none": no cache);
    ``compiled_solver`` False searches with the agent's Python solver only; ``outcome_table`` False searches
    positions up to ply 7 too; ``workers`` solving processes; ``progress`` a bar. Only 6x7, four in a row.
    Raises ``ValueError`` (one line) for bad input.

    >>> import os, tempfile
    >>> from connectx_toolkit import analyze, play_match
    >>> folder = tempfile.mkdtemp()
    >>> _ = play_match("greedy", "random", games=2, results=os.path.join(folder, "run.jsonl"), progress=False)
    >>> report = analyze(os.path.join(folder, "run.jsonl"), cache="none", workers=1, progress=False)
    >>> [game["agents"] for game in report["analysis"]["games"]]
    [['greedy', 'random'], ['random', 'greedy']]
    >>> [move["before"] for move in report["analysis"]["games"][0]["moves"]][:1]  # the empty board: a win
    [<Proven.WIN: 'win'>]
    """
    from connectx_toolkit.analysis.jobs import analyze_file
    from connectx_toolkit.analysis.settings import AnalysisSettings
    from connectx_toolkit.evaluation.display import AnalysisReport

    settings = AnalysisSettings(budget=budget, cache=cache, directory=directory, workers=workers,
                                compiled_solver=compiled_solver, outcome_table=outcome_table, progress=progress)
    result, text = analyze_file(path, settings)
    return AnalysisReport({"analysis": result}, text)


def open_board(agent: Agent = "solver", *, game: str | None = None, position: str | None = None, rows: int = 6,
               columns: int = 7, inarow: int = 4, port: int = 0, sandbox: bool = False, analysis_budget: float | None = None, act_timeout: float = 2.0,
               overage: float = 60.0, inline: bool | None = None, progress: bool = True) -> BoardServer | InlineBoard:
    """The board (``connectx board [AGENT]``): play ``agent``, see every column's exact value, step through
    ``game`` (``FILE[:N]``, a results file's game N or a Kaggle episode JSON), or open at ``position`` (a move
    string such as ``"4453"``, as ``accuracy`` names its worst positions; 6x7 only).

    Serves the board on 127.0.0.1 in the background and returns it: a notebook shows it as the page itself,
    in an IFrame; ``.url`` is its address (with its token), ``.close()`` stops it. The other keywords are the
    command's options of the same names. ``inline`` (default: on Kaggle and Colab, whose kernels the browser
    cannot reach at 127.0.0.1) returns instead an ``InlineBoard``: the game drawn in the cell itself, every
    position's column values solved ahead (a bar shows the solving unless ``progress`` is False), stepped by
    the page's own script with no server; the agent does not play. ``.save(path)`` writes it as a page.
    Raises ``ValueError`` (``board.server.BoardError``, one line) for bad input.

    >>> from connectx_toolkit import open_board
    >>> empty = open_board(inline=True, progress=False)  # no game: the empty board, and how to show one
    >>> empty.data["positions"][0]["message"]
    'The empty board: yellow to move.'
    """
    from connectx_toolkit.agents.core import Config
    from connectx_toolkit.board.hosted import hosted_kernel
    from connectx_toolkit.board.server import BoardOptions, BoardServer
    from connectx_toolkit.evaluation.api import note_outside

    service = hosted_kernel()
    config = None if game else Config(rows, columns, inarow)
    options = BoardOptions(agent=agent, game=game, position=position, config=config, port=port, sandbox=sandbox,
                           analysis_budget=analysis_budget, act_timeout=act_timeout, overage=overage)
    if inline if inline is not None else service is not None:
        from connectx_toolkit.board.inline import inline_board, live_play_note

        return inline_board(options, live_play_note(service, bool(game)) if service else None, progress=progress)
    if not sandbox:
        note_outside((agent,), "open_board")
    return BoardServer(options).start()


def accuracy(agent: Agent, *others: Agent, positions: str | Sequence[str] | None = None, games: int | None = None,
             worst: int = 10,
             answers: str | None = None, plot: str | None = None, progress: bool = True,
             **options: Any) -> AccuracyReport:
    """How close to perfect play ``agent`` (and each of ``others``) is (``connectx accuracy AGENT ...``): the
    report ``--json`` prints, as an ``AccuracyReport`` (a notebook shows its table).

    Every agent is asked the shipped benchmark's positions (or ``positions``: a results file, a Kaggle episode
    JSON or a file of move strings, labelled by the solver, or several such files, each reported on its own under
    ``report["positions_files"]``; ``"pons"``: Pascal Pons' six test sets, with ``sample=N`` a seeded sample of N
    positions each) as a Kaggle game asks them, on Kaggle's clock;
    ``games`` keeps the benchmark's first games only; ``worst`` positions are named; every answer goes to
    ``answers`` (JSON Lines) and the accuracy by ply to ``plot`` (PNG; both default under results/).
    ``options`` are ``measuring.settings.AccuracySettings``' other fields (``act_timeout``, ``workers``,
    ``sandbox``, ``budget`` ...). With two agents or more the report compares them position by position
    (McNemar's exact test). Raises ``ValueError`` (one line) for bad input.

    >>> from connectx_toolkit import accuracy
    >>> report = accuracy("greedy", "random", games=4, progress=False)  # the benchmark's first 4 games
    >>> [agent["positions"] for agent in report["agents"]], report["comparisons"][0]["set"]
    ([47, 47], 'all')
    >>> sorted(report["files"])  # under results/: every answer, and the accuracy by ply
    ['answers', 'plot']
    """
    from connectx_toolkit.measuring.jobs import run_accuracy
    from connectx_toolkit.measuring.report import AccuracyReport
    from connectx_toolkit.measuring.settings import AccuracySettings

    settings = AccuracySettings(agents=(agent, *others), positions=None if positions is None or isinstance(positions, str)
                                else tuple(positions), games=games, worst=worst,
                                answers=answers, plot=plot, progress=progress, **options)
    return AccuracyReport(run_accuracy(settings))
