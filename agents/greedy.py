"""Greedy: win at once if possible, else block the opponent's immediate win, else play centrally.

Ties are broken at random, so two greedy players do not repeat one game forever.
"""

from __future__ import annotations

import random

from .core import Position


def choose(position: Position, rng: random.Random = random._inst) -> int:  # type: ignore[attr-defined]
    """The greedy move in ``position`` (which must have a legal move)."""
    wins = position.immediate_wins()
    if wins:
        return rng.choice(wins)
    blocks = position.opponent_threats()
    if blocks:
        return rng.choice(blocks)
    moves = position.legal_moves()
    middle = (position.geometry.columns - 1) / 2
    nearest = min(abs(c - middle) for c in moves)
    return rng.choice([c for c in moves if abs(c - middle) == nearest])


def agent(obs, config):
    return int(choose(Position.from_kaggle(obs, config)))
