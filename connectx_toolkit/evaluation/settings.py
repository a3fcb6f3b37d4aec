"""The front doors' shared vocabulary: how games are played (``PlaySettings``, the options a match, the gate
and the league share with ``evaluate.py A B``), the one error they raise for bad input, and the types of
the command line's options."""

from __future__ import annotations

import argparse
from typing import Callable

from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings, UsageError

__all__ = ["DEFAULT_ALPHA", "DEFAULT_BETA", "DEFAULT_GAMES", "PlaySettings", "UsageError", "check_games", "check_sprt",
           "integer", "number", "positive_id", "positive_int"]

DEFAULT_GAMES = 100  # a match's games (``-n``), a league's per match, the gate's against its baseline at most
DEFAULT_ALPHA = DEFAULT_BETA = 0.05  # an SPRT's false positive and false negative rates (a match's, the gate's)


def check_games(games: object) -> None:
    """The rule of a match's, the gate's and a league's ``games`` (``-n``); raises ``UsageError``."""
    if not (type(games) is int and games >= 1):
        raise UsageError(f"--games must be an integer >= 1, got {games!r}")


def check_sprt(sprt: tuple[float, float] | None, alpha: float, beta: float) -> None:
    """The rules of an SPRT (a match's ``--sprt``, the gate's): raises ``UsageError``; None: no test."""
    if sprt is None:
        return
    numbers = [elo for elo in sprt if isinstance(elo, (int, float)) and not isinstance(elo, bool)]
    if len(numbers) != len(sprt) or len(sprt) != 2 or not sprt[0] < sprt[1]:
        shown = " ".join(f"{elo:g}" if elo in numbers else repr(elo) for elo in sprt)
        raise UsageError(f"--sprt needs ELO0 < ELO1, got {shown}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise UsageError("--alpha and --beta must lie strictly between 0 and 1")


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
    """An option's whole number, at least 1 (the type argparse calls; a bad value is one line)."""
    return _whole_number(text, "is not an integer", "must be >= 1")


def positive_id(what: str, example: str) -> Callable[[str], int]:
    """The type of an option that names a thing by its number, e.g. ``positive_id("a submission id",
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
