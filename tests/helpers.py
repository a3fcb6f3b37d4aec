"""Small checks that several test files share."""

from __future__ import annotations

import random
from importlib.util import find_spec
from typing import Any

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.training.td_lambda_trainer import DEFAULT_ENV, pettingzoo_connect_four

# Until the project's own self-play env is the trainers' default, they play in PettingZoo's connect_four_v3, whose
# module imports pygame (for its rendering), which the project does not install.
needs_self_play_env = pytest.mark.skipif(
    DEFAULT_ENV is pettingzoo_connect_four and find_spec("pygame") is None,
    reason="the trainers' env is PettingZoo's connect_four_v3, which needs pygame (not installed)")


def played_without_forfeit(summary: dict[str, Any], games: int, seat: int = 0) -> bool:
    """The agent listed ``seat``-th in a match's summary finished each of ``games`` games without an invalid move,
    an error or a timeout. (Who wins against ``random`` depends on its draws, which the forced opening plies
    consume too: a test of loading and playing asserts that the agent played, not that it won.)"""
    agent = summary["agents"][seat]
    finished = agent["wins"] + agent["draws"] + agent["losses"]
    return finished == games and agent["invalid"] == agent["errors"] == agent["timeouts"] == 0


def drawn_game(seed: int = 7) -> list[int]:
    """A 42-ply game of 6x7 in which nobody ever has four in a row (found by seeded random play)."""
    rng = random.Random(seed)
    while True:
        position, moves = Position(Config()), []
        while position.moves < 42:
            safe = [c for c in position.legal_moves() if not position.is_winning_move(c)]
            if not safe:
                break
            column = rng.choice(safe)
            moves.append(column)
            position = position.played(column)
        if position.moves == 42:
            return moves
