"""The front doors' shared vocabulary: how games are played (``PlaySettings``, the options a match, the gate
and the league share with ``evaluate.py A B``), and the one error they raise for bad input
(``UsageError``, at home in ``connectx_toolkit.errors`` and re-exported here). The types of the command line's
options are the command line's own (``connectx_toolkit.cli.options``)."""

from __future__ import annotations

from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

__all__ = ["DEFAULT_ALPHA", "DEFAULT_BETA", "DEFAULT_GAMES", "PlaySettings", "UsageError", "check_games", "check_sprt"]

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
