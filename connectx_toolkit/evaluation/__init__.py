"""Evaluation engine behind ``evaluate.py``: agents in their own processes, Kaggle's referee, workers, reports.

By role, each subpackage importing only those above it in this list (``tests/project/test_layering.py``):

- ``seats``       an agent argument resolved (``AgentSpec``), the agent's own process and the referee's side
                  of it, what crosses their socket;
- ``referees``    one game's rules between two seats (native, or Kaggle's ``Environment``), the overage bank,
                  what a game is asked to be and what it was (``GameTask``, ``GameRecord``);
- ``scheduling``  games across worker processes (or Ray), a match's schedule over an opening suite;
- ``reports``     the results file, a match's summary and statistics, a league's ratings, replays, progress;
- the front doors here: ``head_to_head`` (a match: ``evaluate.py A B``), ``gate``, ``league``, ``api`` (the
  three from Python), ``settings`` (what they share: ``PlaySettings``, ``UsageError``), ``display``. Each
  returns a report; ``evaluate.py`` parses the flags, prints the report and picks the exit code.

Public API (stable; other tools build on it):

- ``evaluation.seats.agent_specs.resolve_agent(spec) -> AgentSpec`` — a module in ``agents/`` or a dotted module, a
  ``.py`` file, a folder, ``TARGET:FUNCTION``, a Kaggle built-in, or a callable; raises ``AgentSpecError``
  with one clear line for anything unusable.
- ``evaluation.api.play_match(a, b, games, ...) -> MatchResult`` — a match from Python (callables welcome); the
  dict ``evaluate.py A B --json`` prints.
- ``evaluation.api.run_gate(candidate, baseline, **options) -> GateReport`` and
  ``evaluation.api.league(agents, **options) -> LeagueReport`` (``run_league``, its earlier name) — the gate and
  the league; the options are the fields of ``GateSettings`` and ``LeagueSettings``, the settings
  ``evaluate.py --gate`` and ``--league`` build from their flags (a ready settings object stands for them all).
  Both settings share ``evaluation.settings.PlaySettings`` (board, openings, clock, workers, sandbox),
  keyword-only. The three results are dicts a notebook shows as tables (``evaluation.display``); their
  progress bars are ``evaluation.reports.progress``'s. ``connectx_toolkit.play_match``, ``run_gate`` and ``league``
  at the package's top (the public names) hand their arguments to these three, unchanged.
- ``evaluation.scheduling.runner.play_task(task) -> GameRecord`` (a scheduled ``GameTask``), and for a caller
  with no schedule ``play_game(spec_a, spec_b, opening, config, act_timeout, overage, seed)`` — one game refereed in this process (the native referee, or Kaggle's ``Environment`` with
  ``referee="kaggle"``), each seat's agent in a process of its own (``evaluation.seats.agent_process``).
- ``evaluation.scheduling.pool.run_games(tasks, on_record=..., settings=PlaySettings(...))`` — games in isolated
  worker processes (``evaluation.scheduling.worker``) with hard per-move deadlines; ``settings.sandbox`` runs
  each agent inside a bubblewrap sandbox (the ``sandbox`` package).
- ``evaluation.scheduling.match.run_match(spec_a, spec_b, games, settings, on_game=...) -> list[GameRecord]`` and
  ``evaluation.reports.summary.summarize(records, names, config) -> dict``.
- ``evaluation.reports.results.ResultsLog`` and ``evaluation.reports.results.read(path, strict=False)`` — the JSON Lines
  results file every run writes (``ResultsReader`` reads it line by line; ``strict``: a corrupt line
  is an error instead of where a torn write ends).
- ``evaluation.reports.stats`` — score, Elo, likelihood of superiority, SPRT.
"""
