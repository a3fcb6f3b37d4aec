"""The front doors' shared vocabulary: how games are played (``PlaySettings``, the options a match, the gate
and the league share with ``evaluate.py A B``), the one error they raise for bad input, and the types of
the command line's options."""

from __future__ import annotations

import argparse

from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

__all__ = ["DEFAULT_ALPHA", "DEFAULT_BETA", "DEFAULT_GAMES", "PlaySettings", "UsageError", "positive_int", "seconds"]

DEFAULT_GAMES = 100  # a match's games (``-n``), a league's per match, the gate's against its baseline at most
DEFAULT_ALPHA = DEFAULT_BETA = 0.05  # an SPRT's false positive and false negative rates (a match's, the gate's)


class UsageError(ValueError):
    """Bad input to a front door (``evaluate.py``, the gate, the league, the Python API): one line for the
    user; the command line exits 2."""


def positive_int(text: str) -> int:
    """An option's whole number, at least 1 (the type argparse calls; a bad value is one line)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def seconds(text: str) -> float:
    """An option's seconds, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value
