"""Positions for search tests: random games stopped before anyone completes a line."""

import random

from agents.core import Config, Position


def undecided_position(rng: random.Random, config: Config, plies: int) -> Position:
    """Up to ``plies`` random moves from the empty board, stopping before a move that would win."""
    pos = Position(config)
    for _ in range(plies):
        column = rng.choice(pos.legal_moves())
        if pos.is_winning_move(column):
            break
        pos.play(column)
    return pos
