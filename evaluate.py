#!/usr/bin/env python3
"""Play two ConnectX agents against each other under Kaggle's rules and report who is stronger.

    python evaluate.py greedy random -n 100
    python evaluate.py submissions/submission.py negamax --json
    python evaluate.py new.py old.py -n 2000 --sprt 0 10          # stop as soon as the test decides
    python evaluate.py --resume results/new-vs-old-20250101-120000.jsonl
    python evaluate.py --board my_agent.py                        # play it in the browser (docs/board.md)
    python evaluate.py --submit submission.py -m "v2"             # the gate, then the upload on PASS (docs/ladder.md)
    python evaluate.py --ladder 41234567                          # fetch and analyse its ladder games

An agent is a module in agents/ (or a dotted module), a .py file (loaded as Kaggle loads a submission), a
folder (main.py or a package), TARGET:FUNCTION, or a Kaggle built-in (random, negamax): see the README's
"Bring your own agent"; from Python, evaluation.api.play_match returns this script's --json dict. Games start from an opening suite, in pairs with seats swapped, each seat's agent
in a process of its own with Kaggle's time limits enforced by a hard deadline, refereed by a native
referee proven identical to Kaggle's (--referee kaggle: kaggle_environments itself). Every finished game is appended to
a JSON Lines results file. Exit 0 on success, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Sequence

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB
from connectx_toolkit.evaluation.settings import UsageError, positive_int, seconds

if TYPE_CHECKING:
    from connectx_toolkit.evaluation.gate import GateSettings
    from connectx_toolkit.evaluation.league import LeagueSettings


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, not argparse's usage dump
        raise UsageError(message)


def build_parser() -> Parser:
    p = Parser(prog="evaluate.py", description=__doc__.split("\n\n")[0])
    p.add_argument("agents", nargs="*", metavar="AGENT", help="A and B: module in agents/, .py file, folder, TARGET:FUNCTION, random or negamax")
    p.add_argument("-n", "--games", type=positive_int, default=100, help="games to play (default 100)")
    p.add_argument("--rows", type=positive_int, default=6, help="board rows (default 6)")
    p.add_argument("--columns", type=positive_int, default=7, help="board columns (default 7)")
    p.add_argument("--inarow", type=positive_int, default=4, help="stones in a row that win (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seeds openings order and every game (default 0)")
    p.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    p.add_argument("--openings", help="ply depth or file of move strings (default: the shipped suite / depth 4)")
    p.add_argument("--workers", type=positive_int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--act-timeout", type=seconds, default=2.0, help="seconds per move (Kaggle: 2)")
    p.add_argument("--overage", type=seconds, default=60.0, help="overage bank per game in seconds (Kaggle: 60)")
    p.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB,
                   help="memory an agent may allocate (0: no cap)")
    p.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="stop when the SPRT decides")
    p.add_argument("--alpha", type=float, default=0.05, help="SPRT false positive rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="SPRT false negative rate (default 0.05)")
    p.add_argument("--results", help="JSON Lines results file (default: results/A-vs-B-<time>.jsonl)")
    p.add_argument("--resume", metavar="FILE", help="continue the interrupted run recorded in FILE")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--replays", metavar="DIR", help="save an HTML replay of every game A did not win or draw")
    p.add_argument("--backend", choices=("process", "ray"), default="process",
                   help="local worker processes (default) or a Ray cluster")
    p.add_argument("--league", nargs="+", metavar="AGENT", help="round robin between these agents")
    p.add_argument("--gate", metavar="CANDIDATE", help="pre-upload gate for CANDIDATE")
    p.add_argument("--baseline", metavar="BASELINE", help="the gate's baseline")
    p.add_argument("--path", action="append", default=[], metavar="DIR",
                   help="import root searched after an agent file's folder and before PYTHONPATH (repeatable)")
    p.add_argument("--referee", choices=("native", "kaggle"), default="native",
                   help="native: Kaggle's ConnectX rules, proven identical and over 20x faster here (default); "
                        "kaggle: kaggle_environments' own Environment")
    p.add_argument("--pin-cores", action=argparse.BooleanOptionalAction, default=None,
                   help="start each worker and its two agents on one CPU, so a move's round trip stays on one "
                        "core; an agent that runs threads gets every CPU back (default with the process "
                        "backend; --no-pin-cores: let the kernel place them)")
    p.add_argument("--sandbox", action="store_true",
                   help="run every agent in a bubblewrap sandbox: no network, no home directory, private /tmp")
    from connectx_toolkit.analysis.cli import add_arguments as add_analysis_arguments

    add_analysis_arguments(p)
    from connectx_toolkit.board.cli import add_arguments as add_board_arguments

    add_board_arguments(p)
    from connectx_toolkit.on_kaggle.cli import add_arguments as add_kaggle_arguments

    add_kaggle_arguments(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    real_stdout = sys.stdout
    try:
        args = build_parser().parse_intermixed_args(argv)  # options may stand between A and B
        if args.json:
            sys.stdout = sys.stderr  # nothing but the JSON object may reach stdout
        for root in args.path:  # checked before any agent, whatever its form
            if not os.path.isdir(os.path.expanduser(root)):
                raise UsageError(f"--path {root}: no such folder")
        check_sandbox(args)
        from connectx_toolkit.board import cli as board_cli

        stray = board_cli.stray_flags(args)
        if stray:
            raise UsageError(stray)
        from connectx_toolkit.on_kaggle import cli as kaggle_cli

        problem = kaggle_cli.check(args)
        if problem:
            raise UsageError(problem)
        if args.submit:  # the gate on FILE, with this command's gate options, then the upload
            args.gate, args.baseline = args.submit, args.baseline or kaggle_cli.DEFAULT_BASELINE
            return kaggle_cli.submit(args, gate_settings(args), real_stdout)
        if args.ladder:
            return kaggle_cli.ladder(args, real_stdout)
        if args.board:
            return board_cli.run(args, real_stdout)
        if args.analyze or args.analyze_file:
            from connectx_toolkit.analysis import cli as analysis_cli

            problem = analysis_cli.check(args)
            if problem:
                raise UsageError(problem)
            if args.analyze_file:
                return analysis_cli.analyse_file(args, real_stdout)
        if args.league:
            from connectx_toolkit.evaluation import league

            return league.main(league_settings(args), as_json=args.json)
        if args.gate or args.baseline:
            from connectx_toolkit.evaluation import gate

            return gate.main(gate_settings(args), as_json=args.json)
        return run(args, real_stdout)
    except UsageError as error:
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = real_stdout


def check_sandbox(args: argparse.Namespace) -> None:
    """``--sandbox``: fail before any game unless a sandbox can be built here; without it, say so on stderr
    when an agent file from outside the project is about to run with the user's rights."""
    from connectx_toolkit.sandbox import SandboxUnavailable, require, say_outside_note

    if not args.sandbox:
        names = [*args.agents, *(args.league or []), args.gate or "", args.baseline or "", args.submit or ""]
        # A Kaggle bundle always runs in the sandbox (it is unpacked at /kaggle_simulations/agent there).
        # Once per process: --submit runs the gate through the Python API, which would say it again.
        names = list(dict.fromkeys(name for name in names if name and not name.endswith(".tar.gz")))
        say_outside_note(names, "evaluate.py")
        return
    if args.backend != "process":
        raise UsageError("--sandbox runs games on the local process backend; drop --backend ray")
    try:
        require()
    except SandboxUnavailable as error:
        raise UsageError(str(error)) from None


def gate_settings(args: argparse.Namespace) -> GateSettings:
    """``--gate``/``--baseline`` and the options the gate uses; raises UsageError for flags it cannot take."""
    from connectx_toolkit.evaluation.gate import DEFAULT_SPRT, GateSettings

    if not args.gate:
        raise UsageError("--baseline needs --gate CANDIDATE")
    if not args.baseline:
        raise UsageError("--gate needs --baseline BASELINE (a module in agents/, a .py file, a folder or a built-in)")
    if args.agents:
        raise UsageError(f"--gate takes no positional agents, got {' '.join(args.agents)}")
    if args.resume:
        raise UsageError("--gate cannot --resume")
    return GateSettings(
        candidate=args.gate, baseline=args.baseline, games=args.games,
        sprt=(args.sprt[0], args.sprt[1]) if args.sprt else DEFAULT_SPRT, alpha=args.alpha, beta=args.beta,
        **play_settings(args),
    )


def league_settings(args: argparse.Namespace) -> LeagueSettings:
    """``--league`` and the options the league uses; raises UsageError for flags it cannot take."""
    from connectx_toolkit.evaluation.league import LeagueSettings

    if args.agents:
        raise UsageError(f"--league takes its agents after the flag, got extra {' '.join(args.agents)}")
    for flag, given in (("--gate", args.gate), ("--baseline", args.baseline), ("--resume", args.resume),
                        ("--sprt", args.sprt)):
        if given:
            raise UsageError(f"--league cannot be combined with {flag}")
    return LeagueSettings(
        agents=tuple(args.league), games=args.games,
        directory=args.results,  # a league's --results names its directory (a single match's is one file)
        progress=not args.no_progress, **play_settings(args),
    )


def play_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The fields of ``PlaySettings`` (how games are played), from the flags of the same names."""
    from connectx_toolkit.evaluation.settings import PlaySettings

    return {item.name: getattr(args, item.name) for item in fields(PlaySettings)}


@dataclass
class Plan:
    """Everything a run needs, from the command line or from the header of the run being resumed."""

    names: list[str]
    specs: tuple[Any, Any]
    config: Config
    tasks: list[Any]
    sprt: list[float] | None
    alpha: float
    beta: float
    log: Any
    done: list[Any] = field(default_factory=list)


def plan_run(args: argparse.Namespace) -> Plan:
    """Check every input before anything is written; raises UsageError with one line on bad input."""
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable, backend_runner, schedule
    from connectx_toolkit.evaluation.scheduling.openings import OpeningError, load_suite
    from connectx_toolkit.evaluation.reports.results import ResultsError, ResultsLog

    try:
        log, done, run = None, [], vars(args)
        if args.resume:
            log, run, done = ResultsLog.resume(args.resume)
            if args.agents and list(args.agents) != run["agents"]:
                raise UsageError(f"--resume {args.resume} is a run of {run['agents']}, not {args.agents}")
            config = Config(**run["config"])
            suite = [[int(c) for c in line] for line in run["suite"]]
        else:
            if len(args.agents) != 2:
                raise UsageError(f"give two agents (A B), got {len(args.agents)}")
            config = Config(args.rows, args.columns, args.inarow)
            suite = load_suite(args.openings, config, args.seed, count=max(64, (args.games + 1) // 2))
        names = list(run["agents"])
        # the import roots: given again, or as the resumed run recorded them
        paths = tuple(args.path) if args.path or not args.resume else tuple(run.get("paths", ()))
        specs = tuple(resolve_agent(name, sandbox=args.sandbox, paths=paths) for name in names)
        sprt, alpha, beta = run["sprt"], run["alpha"], run["beta"]
        if sprt and not (0 < alpha < 1 and 0 < beta < 1):
            raise UsageError("--alpha and --beta must lie strictly between 0 and 1")
        if sprt and not sprt[0] < sprt[1]:
            raise UsageError(f"--sprt needs ELO0 < ELO1, got {sprt[0]:g} {sprt[1]:g}")
        backend_runner(args.backend)
        tasks = schedule(*specs, run["games"], config, suite, run["act_timeout"], run["overage"], run["seed"])
        if log is None:
            header = {
                "agents": names, "games": args.games, "config": config.as_dict(), "seed": args.seed,
                "act_timeout": args.act_timeout, "overage": args.overage, "openings": args.openings,
                "sprt": sprt, "alpha": alpha, "beta": beta, "suite": suite,
                "paths": [os.path.abspath(path) for path in args.path],
            }
            log = ResultsLog.create(args.results or default_results_path(names), header)
    except (AgentSpecError, BackendUnavailable, OpeningError, ResultsError, ValueError, KeyError) as error:
        raise UsageError(str(error)) from None
    return Plan(names, specs, config, tasks, sprt, alpha, beta, log, done)


def run(args: argparse.Namespace, out: Any) -> int:
    from connectx_toolkit.evaluation.scheduling.match import run_match
    from connectx_toolkit.evaluation.reports.summary import summarize, table

    plan = plan_run(args)
    for spec in plan.specs:
        if spec.note:
            print(f"note: {spec.note}", file=sys.stderr)
    from connectx_toolkit.evaluation.reports import replays as replay_files

    replays = replay_files if args.replays else None
    progress = make_progress(len(plan.tasks), len(plan.done), args.no_progress)
    played = list(plan.done)

    first_record: list[float] = []

    def on_game(record):
        if not first_record:
            first_record.append(time.perf_counter())
        plan.log.append(record)
        if replays is not None and record.outcome_of(0) not in ("win", "draw"):
            replays.save_replay(record, args.replays)
        played.append(record)
        if progress is not None:
            progress.set_postfix_str(running_score(played), refresh=False)
            progress.update(1)

    previous = signal.signal(signal.SIGTERM, _terminate)
    play_start = time.perf_counter()
    try:
        records = run_match(
            *plan.specs, plan.tasks, workers=args.workers, on_game=on_game, done=plan.done,
            stop=sprt_stop(plan.sprt, plan.alpha, plan.beta) if plan.sprt else None,
            backend=args.backend, memory_mb=args.memory_mb, sandbox=args.sandbox, referee=args.referee,
            pin_cores=args.pin_cores,
        )
        play_seconds = time.perf_counter() - play_start
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: python evaluate.py --resume {plan.log.path}", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        if progress is not None:
            progress.close()
        plan.log.close()

    summary = summarize(records, plan.names, plan.config.as_dict())
    summary["results"] = plan.log.path
    summary["referee"] = args.referee
    new_games = len(records) - len(plan.done)
    summary["games_per_s"] = games_per_second(new_games, play_start, first_record, play_start + play_seconds)
    if plan.sprt:
        summary["sprt"] = sprt_summary(records, plan.sprt, plan.alpha, plan.beta)
    text = table(summary) + f"\nresults: {plan.log.path}\n"
    if args.analyze:
        from connectx_toolkit.analysis.cli import analyse_records

        summary["analysis"], analysis_text = analyse_records(args, records, plan.log.path)
        text += analysis_text + "\n"
    out.write(json.dumps(summary) + "\n" if args.json else text)
    out.flush()
    return 0


def games_per_second(games: int, start: float, first: list[float], end: float) -> float:
    """Games per wall second of play, start-up excluded: from the first record on (workers and agents'
    processes are up by then), counting the games after it; the whole run when it played one game."""
    if games > 1 and first and end > first[0]:
        return round((games - 1) / (end - first[0]), 3)
    return round(games / (end - start), 3) if games and end > start else 0.0


def sprt_summary(records: list, sprt: Sequence[float], alpha: float, beta: float) -> dict[str, Any]:
    from connectx_toolkit.evaluation.reports import stats
    from connectx_toolkit.evaluation.reports.summary import pair_counts

    result = stats.sprt(stats.PAIR_SCORES, pair_counts(records), sprt[0], sprt[1], alpha, beta)
    return {
        "elo0": sprt[0], "elo1": sprt[1], "alpha": alpha, "beta": beta,
        "llr": round(result.llr, 4), "lower": round(result.lower, 4), "upper": round(result.upper, 4),
        "verdict": result.verdict,
    }


def sprt_stop(sprt: Sequence[float], alpha: float, beta: float):
    def stop(records: list) -> bool:
        return sprt_summary(records, sprt, alpha, beta)["verdict"] is not None

    return stop


def running_score(records: list) -> str:
    from connectx_toolkit.evaluation.referees.record import score_of

    points = sum(score_of(record.outcome_of(0)) for record in records)
    return f"A scores {points:g}/{len(records)} ({points / len(records):.1%})" if records else ""


def make_progress(total: int, initial: int, disabled: bool):
    if disabled:
        return None
    from connectx_toolkit.evaluation.reports.progress import progress_bar

    # a live bar on a terminal, a few plain lines under a notebook's `!`, nothing in a pipe; short runs silent
    return progress_bar(total, initial=initial, unit="game")


def default_results_path(names: Sequence[str]) -> str:
    def short(name: str) -> str:
        base = os.path.splitext(os.path.basename(name.rstrip("/")))[0]  # a folder given as my_bot/
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", base) or "agent"

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return os.path.join("results", f"{short(names[0])}-vs-{short(names[1])}-{stamp}-{os.getpid()}.jsonl")


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # unwind: workers are killed, the results file is closed


if __name__ == "__main__":
    sys.exit(main())
