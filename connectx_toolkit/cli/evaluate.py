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
from dataclasses import fields
from typing import IO, TYPE_CHECKING, Any, Sequence

from connectx_toolkit.cli.program import EVALUATE, evaluate_program, rerun_command
from connectx_toolkit.evaluation.referees.played import (DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE,
                                                         REFEREES)
from connectx_toolkit.evaluation.scheduling.play_settings import BACKENDS, DEFAULT_BACKEND
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB
from connectx_toolkit.evaluation.settings import (DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_GAMES, PlaySettings, UsageError,
                                                   integer, number)

if TYPE_CHECKING:
    from connectx_toolkit.evaluation.gate import GateSettings
    from connectx_toolkit.evaluation.head_to_head import MatchSettings
    from connectx_toolkit.evaluation.league import LeagueSettings


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, not argparse's usage dump
        raise UsageError(message)


def build_parser() -> Parser:
    p = Parser(prog=evaluate_program(), description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("agents", nargs="*", metavar="AGENT", help="A and B: module in agents/, .py file, folder, TARGET:FUNCTION, random or negamax")
    match = p.add_argument_group("match (A B: which is stronger)",
                                 "-n also sets a league's games per pair and the gate's maximum; the gate takes --sprt, "
                                 "--alpha and --beta too")
    match.add_argument("-n", "--games", type=integer, default=DEFAULT_GAMES, help=f"games to play (default {DEFAULT_GAMES})")
    match.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="stop when the SPRT decides")
    match.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help=f"SPRT false positive rate (default {DEFAULT_ALPHA:g})")
    match.add_argument("--beta", type=float, default=DEFAULT_BETA, help=f"SPRT false negative rate (default {DEFAULT_BETA:g})")
    match.add_argument("--resume", metavar="FILE", help="continue the interrupted run recorded in FILE")
    match.add_argument("--replays", metavar="DIR", help="save an HTML replay of every game A did not win or draw")
    league = p.add_argument_group("league (a round robin: ratings and cross tables)")
    league.add_argument("--league", nargs="+", metavar="AGENT", help="round robin between these agents")
    gate = p.add_argument_group("gate (a submission's checks before an upload: docs/gate.md)")
    gate.add_argument("--gate", metavar="CANDIDATE", help="pre-upload gate for CANDIDATE")
    gate.add_argument("--baseline", metavar="BASELINE", help="the gate's baseline")
    rules = p.add_argument_group("game rules (Kaggle's ConnectX configuration)")
    rules.add_argument("--rows", type=integer, default=6, help="board rows (default 6)")
    rules.add_argument("--columns", type=integer, default=7, help="board columns (default 7)")
    rules.add_argument("--inarow", type=integer, default=4, help="stones in a row that win (default 4)")
    rules.add_argument("--act-timeout", type=number, default=DEFAULT_ACT_TIMEOUT,
                       help=f"seconds per move (Kaggle: {DEFAULT_ACT_TIMEOUT:g})")
    rules.add_argument("--overage", type=number, default=DEFAULT_OVERAGE,
                       help=f"overage bank per game in seconds (Kaggle: {DEFAULT_OVERAGE:g})")
    play = p.add_argument_group("how games are played (a match, a league and the gate alike)")
    play.add_argument("--openings", help="ply depth or file of move strings (default: the shipped suite / depth 4)")
    play.add_argument("--seed", type=int, default=0, help="seeds openings order and every game (default 0)")
    play.add_argument("--referee", metavar="{" + ",".join(REFEREES) + "}", default=DEFAULT_REFEREE,
                      help="native: Kaggle's ConnectX rules, proven identical and over 20x faster here (default); "
                           "kaggle: kaggle_environments' own Environment")
    play.add_argument("--path", action="append", default=[], metavar="DIR",
                      help="import root searched after an agent file's folder and before PYTHONPATH (repeatable)")
    play.add_argument("--sandbox", action="store_true",
                      help="run every agent in a bubblewrap sandbox: no network, no home directory, private /tmp")
    play.add_argument("--memory-mb", type=int, default=DEFAULT_MEMORY_MB,
                      help="memory an agent may allocate (0: no cap)")
    play.add_argument("--workers", type=integer, default=None, help="worker processes (default: all cores)")
    play.add_argument("--backend", metavar="{" + ",".join(BACKENDS) + "}", default=DEFAULT_BACKEND,
                      help="local worker processes (default) or a Ray cluster")
    play.add_argument("--pin-cores", action=argparse.BooleanOptionalAction, default=None,
                      help="start each worker and its two agents on one CPU, so a move's round trip stays on one "
                           "core; an agent that runs threads gets every CPU back (default with the process "
                           "backend; --no-pin-cores: let the kernel place them)")
    output = p.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print exactly one JSON object on stdout")
    output.add_argument("--results", help="JSON Lines results file (default: results/A-vs-B-<time>.jsonl); "
                                          "with --league, its folder")
    output.add_argument("--no-progress", action="store_true", help="no progress bar")
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
            sys.stdout = sys.stderr  # nothing but the JSON object may reach stdout (agents' own prints neither)
        for root in args.path:  # checked before any agent, whatever its form
            if not os.path.isdir(os.path.expanduser(root)):
                raise UsageError(f"--path {root}: no such folder")
        PlaySettings(**play_settings(args))  # their own rules, whatever the mode, before anything runs
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
            return run_league(args, real_stdout)
        if args.gate or args.baseline:
            return run_gate(args, real_stdout)
        return run_match(args, real_stdout)
    except UsageError as error:
        print(f"{evaluate_program()}: error: {error}", file=sys.stderr)
        return 2
    finally:
        sys.stdout = real_stdout


def run_match(args: argparse.Namespace, out: IO[str]) -> int:
    """``evaluate.py A B``: the match table (or ``--json``'s object), 0; 130 when interrupted."""
    from connectx_toolkit.evaluation import head_to_head
    from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable
    from connectx_toolkit.sandbox import SandboxUnavailable

    try:
        prepared = head_to_head.prepare(match_settings(args))
    except (ValueError, BackendUnavailable, SandboxUnavailable) as error:  # each one line for the user
        raise UsageError(str(error)) from None
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        run = head_to_head.play(prepared)
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: {rerun_command(EVALUATE)} --resume {prepared.log.path}", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    report = run.report
    text = report.text() + "\n"
    if args.analyze:
        from connectx_toolkit.analysis.cli import analyse_records

        report["analysis"], analysis_text = analyse_records(args, run.records, prepared.log.path)
        text += analysis_text + "\n"
    out.write(json.dumps(report) + "\n" if args.json else text)
    out.flush()
    return 0


def run_gate(args: argparse.Namespace, out: IO[str]) -> int:
    """``evaluate.py --gate``: the checks as they end and the verdict (or ``--json``'s object); 0 PASS, 1 FAIL."""
    from connectx_toolkit.evaluation import gate

    log = None if args.json else (lambda line: print(line, file=out, flush=True))
    report = gate.run(gate_settings(args), log)  # bad input: UsageError; a candidate that cannot load: FAIL
    out.write(json.dumps(report) + "\n" if args.json else gate.render_verdict(report) + "\n")
    out.flush()
    return 0 if report["verdict"] == "PASS" else 1


def run_league(args: argparse.Namespace, out: IO[str]) -> int:
    """``evaluate.py --league``: the rating and cross tables and the files written (or ``--json``'s object);
    0, or 130 when interrupted."""
    from connectx_toolkit.evaluation import league
    from connectx_toolkit.evaluation.display import LeagueReport

    prepared = league.prepare(league_settings(args))  # bad input: UsageError
    try:
        report = LeagueReport(league.complete(prepared))
    except KeyboardInterrupt:
        print("\ninterrupted: the league was not finished; games so far are in "
              f"{os.path.join(prepared.directory, 'games.jsonl')}", file=sys.stderr)
        return 130
    out.write(json.dumps(report) + "\n" if args.json else report.text() + "\n")
    out.flush()
    return 0


def check_sandbox(args: argparse.Namespace) -> None:
    """``--sandbox``: fail before any game unless a sandbox can be built here; without it, say so on stderr
    when an agent file from outside the project is about to run with the user's rights."""
    from connectx_toolkit.sandbox import SandboxUnavailable, require, say_outside_note

    if not args.sandbox:
        names = [*args.agents, *(args.league or []), args.gate or "", args.baseline or "", args.submit or ""]
        # A Kaggle bundle always runs in the sandbox (it is unpacked at /kaggle_simulations/agent there).
        # Once per process: --submit runs the gate through the Python API, which would say it again.
        names = list(dict.fromkeys(name for name in names if name and not name.endswith(".tar.gz")))
        say_outside_note(names, evaluate_program())
        return
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


def match_settings(args: argparse.Namespace) -> MatchSettings:
    """``evaluate.py A B`` (or ``--resume FILE``) and its options."""
    from connectx_toolkit.evaluation.head_to_head import MatchSettings

    named = not args.resume and len(args.agents) == 2  # else MatchSettings refuses them, or the header names them
    results = args.results or (default_results_path(args.agents) if named else None)
    return MatchSettings(
        agents=tuple(args.agents), games=args.games, sprt=(args.sprt[0], args.sprt[1]) if args.sprt else None,
        alpha=args.alpha, beta=args.beta, results=results, resume=args.resume, progress=not args.no_progress,
        **play_settings(args),
    )


def play_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The fields of ``PlaySettings`` (how games are played), from the flags of the same names."""
    values = {item.name: getattr(args, item.name) for item in fields(PlaySettings)}
    values["path"] = tuple(values["path"])
    return values


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
