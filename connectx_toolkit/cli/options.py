"""The command line's vocabulary: its parser (one line on bad input), the types of its options, and the option
groups the subcommands share (games and SPRT, game rules, how games are played, output, analysis), each defined
once here.

A subcommand takes a group whole (``PLAY.add_to(parser)``, or as an argparse parent parser: ``PLAY.parent()``)
or only the options it reads (``RULES.add_to(parser, "rows", "columns", "inarow")``), so its ``--help`` shows
exactly those, and an option it does not read is refused like any unknown one. Each option keeps the name,
default and meaning it had in ``connectx-evaluate``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any, Callable, NoReturn

from connectx_toolkit.agents.core import Config
from connectx_toolkit.analysis.cache import default_cache_path
from connectx_toolkit.analysis.settings import DEFAULT_BUDGETS, MAX_BUDGET, AnalysisSettings
from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE, REFEREES
from connectx_toolkit.evaluation.scheduling.play_settings import BACKENDS, DEFAULT_BACKEND
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB
from connectx_toolkit.evaluation.settings import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_GAMES

__all__ = ["ANALYSIS", "GAMES", "OUTPUT", "OptionGroup", "PLAY", "Parser", "RULES", "analysis_budget",
           "analysis_settings", "integer", "number", "port", "positive_id", "positive_int"]

BOARD = Config()  # Kaggle's board: the defaults of --rows, --columns, --inarow


class Parser(argparse.ArgumentParser):
    """argparse's parser, but bad input is one ``UsageError`` line (the caller prints ``PROG: error: ...`` and
    exits 2), not argparse's usage dump; and no abbreviated options, so that ``connectx match --game`` is
    refused (the board's flag), not read as ``--games``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# The types argparse calls: a bad value is one line naming the option (argparse adds "argument --x: ").

def integer(text: str) -> int:
    """An option's whole number, parsed only: the settings it fills say which values they take."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def number(text: str) -> float:
    """An option's number, parsed only: the settings it fills say which values they take."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def positive_int(text: str) -> int:
    """An option's whole number, at least 1."""
    return _whole_number(text, "is not an integer", "must be >= 1")


def positive_id(what: str, example: str) -> Callable[[str], int]:
    """The type of an argument that names a thing by its number, e.g. ``positive_id("a submission id",
    "41234567")``: a bad value is one line that says what was expected."""
    def parse(text: str) -> int:
        return _whole_number(text, f"is not {what} (a number, e.g. {example})", f"is not {what} (a positive number)")

    return parse


def _whole_number(text: str, not_a_number: str, below_one: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} {not_a_number}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} {below_one}")
    return value


def analysis_budget(text: str) -> float:
    """``--analysis-budget``: seconds, more than 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_BUDGET:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0 and <= {MAX_BUDGET:g}")
    return value


def port(text: str) -> int:
    """``--port``: a TCP port, 0 for a free one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)")
    return value


@dataclass
class OptionGroup:
    """A titled group of options, defined once: ``options`` maps each option's key to its flags and the
    keywords of ``add_argument``."""

    title: str
    options: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = field(default_factory=dict)

    def add(self, key: str, *flags: str, **keywords: Any) -> None:
        self.options[key] = (flags, keywords)

    def add_to(self, parser: argparse.ArgumentParser, *keys: str, **overrides: dict[str, Any]) -> None:
        """Add this group's options ``keys`` (all when none are named), in their order here, to ``parser`` under
        the group's title; ``overrides`` change an option's keywords (e.g. ``results={"help": "its folder"}``)."""
        unknown = (set(keys) | set(overrides)) - set(self.options)
        if unknown:
            raise KeyError(f"no option {sorted(unknown)} in group {self.title!r}")
        group = parser.add_argument_group(self.title)
        for key, (flags, keywords) in self.options.items():
            if not keys or key in keys:
                group.add_argument(*flags, **{**keywords, **overrides.get(key, {})})

    def parent(self, *keys: str, **overrides: dict[str, Any]) -> Parser:
        """The same options as a parent parser (``Parser(parents=[RULES.parent()])``)."""
        parser = Parser(add_help=False)
        self.add_to(parser, *keys, **overrides)
        return parser


# A match's and the gate's games and SPRT (a league's -n is games per pair: its own help).
GAMES = OptionGroup("games")
GAMES.add("games", "-n", "--games", type=integer, default=DEFAULT_GAMES, help=f"games to play (default {DEFAULT_GAMES})")
GAMES.add("sprt", "--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"), help="stop when the SPRT decides")
GAMES.add("alpha", "--alpha", type=float, default=DEFAULT_ALPHA, help=f"SPRT false positive rate (default {DEFAULT_ALPHA:g})")
GAMES.add("beta", "--beta", type=float, default=DEFAULT_BETA, help=f"SPRT false negative rate (default {DEFAULT_BETA:g})")

RULES = OptionGroup("game rules (Kaggle's ConnectX configuration)")
RULES.add("rows", "--rows", type=integer, default=BOARD.rows, help=f"board rows (default {BOARD.rows})")
RULES.add("columns", "--columns", type=integer, default=BOARD.columns, help=f"board columns (default {BOARD.columns})")
RULES.add("inarow", "--inarow", type=integer, default=BOARD.inarow,
          help=f"stones in a row that win (default {BOARD.inarow})")
RULES.add("act_timeout", "--act-timeout", type=number, default=DEFAULT_ACT_TIMEOUT,
          help=f"seconds per move (Kaggle: {DEFAULT_ACT_TIMEOUT:g})")
RULES.add("overage", "--overage", type=number, default=DEFAULT_OVERAGE,
          help=f"overage bank per game in seconds (Kaggle: {DEFAULT_OVERAGE:g})")

# The fields of PlaySettings (a match, a league and the gate alike) besides the rules; the board takes a few.
PLAY = OptionGroup("how games are played")
PLAY.add("openings", "--openings", help="ply depth or file of move strings (default: the shipped suite / depth 4)")
PLAY.add("seed", "--seed", type=int, default=0, help="seeds openings order and every game (default 0)")
PLAY.add("referee", "--referee", metavar="{" + ",".join(REFEREES) + "}", default=DEFAULT_REFEREE,
         help="native: Kaggle's ConnectX rules, proven identical and over 20x faster here (default); "
              "kaggle: kaggle_environments' own Environment")
PLAY.add("path", "--path", action="append", default=[], metavar="DIR",
         help="import root searched after an agent file's folder and before PYTHONPATH (repeatable)")
PLAY.add("sandbox", "--sandbox", action="store_true",
         help="run every agent in a bubblewrap sandbox: no network, no home directory, private /tmp")
PLAY.add("memory_mb", "--memory-mb", type=int, default=DEFAULT_MEMORY_MB, help="memory an agent may allocate (0: no cap)")
PLAY.add("workers", "--workers", type=integer, default=None, help="worker processes (default: all cores)")
PLAY.add("backend", "--backend", metavar="{" + ",".join(BACKENDS) + "}", default=DEFAULT_BACKEND,
         help="local worker processes (default) or a Ray cluster")
PLAY.add("pin_cores", "--pin-cores", action=argparse.BooleanOptionalAction, default=None,
         help="start each worker and its two agents on one CPU, so a move's round trip stays on one core; an agent "
              "that runs threads gets every CPU back (default with the process backend; --no-pin-cores: let the "
              "kernel place them)")
PLAY.add("replays", "--replays", metavar="DIR", help="save an HTML replay of every game the first agent did not win or draw")

OUTPUT = OptionGroup("output")
OUTPUT.add("json", "--json", action="store_true", help="print exactly one JSON object on stdout")
OUTPUT.add("results", "--results", help="JSON Lines results file (default: results/A-vs-B-<time>.jsonl)")
OUTPUT.add("no_progress", "--no-progress", action="store_true", help="no progress bar")

ANALYSIS = OptionGroup("game analysis (6x7, four in a row)")
ANALYSIS.add("budget", "--analysis-budget", type=analysis_budget, default=None, metavar="SECONDS",
             help=f"CPU seconds of search per position (default {DEFAULT_BUDGETS['compiled']:g} with the compiled "
                  f"solver, {DEFAULT_BUDGETS['python']:g} with the Python search)")
ANALYSIS.add("cache", "--analysis-cache", metavar="PATH", default=None,
             help=f"SQLite file of solved positions (default {default_cache_path()}; 'none': no cache)")
ANALYSIS.add("directory", "--analysis-dir", metavar="DIR",
             help="where the annotated replays and the PNG go (default: next to the results file)")
ANALYSIS.add("no_compiled_solver", "--no-compiled-solver", action="store_true",
             help="search with the agent's Python solver only, even when numba is installed (analysis/fast_solver.py)")
ANALYSIS.add("no_outcome_table", "--no-outcome-table", action="store_true",
             help="search positions up to ply 7 too, instead of taking their class from analysis/data/outcomes_ply7.txt")


def analysis_settings(args: argparse.Namespace) -> AnalysisSettings:
    """The ``AnalysisSettings`` of a command's analysis options, ``--workers`` and ``--no-progress`` (those it
    has; an option it lacks takes the setting's default)."""
    return AnalysisSettings(budget=args.analysis_budget, cache=args.analysis_cache,
                            directory=getattr(args, "analysis_dir", None),
                            compiled_solver=not args.no_compiled_solver, outcome_table=not args.no_outcome_table,
                            workers=getattr(args, "workers", None), progress=not getattr(args, "no_progress", False))
