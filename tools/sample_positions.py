"""Positions for search tests and benches: random games stopped before anyone completes a line."""

import random

from connectx_toolkit.agents.core import Config, Position


def undecided_position(rng: random.Random, config: Config, plies: int) -> Position:
    """Up to ``plies`` random moves from the empty board, stopping before a move that would win."""
    pos = Position(config)
    for _ in range(plies):
        column = rng.choice(pos.legal_moves())
        if pos.is_winning_move(column):
            break
        pos.play(column)
    return pos


def quiet_game(rng: random.Random, plies: int, config: Config | None = None) -> tuple[list[int], Position]:
    """Random moves, each one that does not complete a line, for ``plies`` moves or until none is left.

    Returns the columns played and the position they reach; fewer than ``plies`` columns means the
    game could not go on that long without a line.
    """
    position, moves = Position(config or Config()), []
    for _ in range(plies):
        options = [c for c in position.legal_moves() if not position.is_winning_move(c)]
        if not options:
            break
        moves.append(rng.choice(options))
        position.play(moves[-1])
    return moves, position
