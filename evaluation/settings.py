"""How the games of a gate or a league are played: the options the two share with ``evaluate.py A B``; and
the one error the front doors raise for bad input."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from connectx_toolkit.evaluation.referees.played import DEFAULT_REFEREE
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB

__all__ = ["PlaySettings", "UsageError", "positive_int", "seconds"]


class UsageError(ValueError):
    """Bad input to a front door (``evaluate.py``, the gate, the league, the Python API): one line for the
    user; the command line exits 2."""


@dataclass(frozen=True, kw_only=True)
class PlaySettings:
    """The board, the openings, Kaggle's clock and where the games run.

    Every field is the ``evaluate.py`` option of the same name (``memory_mb`` 0: no cap), with the same
    default; keyword-only, so the settings built on it keep their own fields first.
    """

    rows: int = 6
    columns: int = 7
    inarow: int = 4
    seed: int = 0
    openings: str | None = None
    workers: int | None = None
    act_timeout: float = 2.0
    overage: float = 60.0
    memory_mb: int = DEFAULT_MEMORY_MB
    replays: str | None = None  # where HTML replays of forfeited games go
    backend: str = "process"
    sandbox: bool = False  # every agent process inside a bubblewrap sandbox
    path: tuple[str, ...] = ()  # import roots after an agent file's folder, before PYTHONPATH's (--path)
    referee: str = DEFAULT_REFEREE  # "native" (Kaggle's rules, fast) or "kaggle" (kaggle_environments' Environment)


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
