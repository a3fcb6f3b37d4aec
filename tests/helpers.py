"""Small checks that several test files share."""

from __future__ import annotations

import random
from typing import Any


from connectx_toolkit.agents.core import Config, Position


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
