"""Positions written as move strings (Pons' notation), read with one clear line for anything wrong.

A move string is the columns played from the empty board, one digit each, 1 to 7 from the left, first
player first: ``"4453"``. Surrounding whitespace is ignored, and an empty string is the empty board
(as in Pons' solver). Only 6x7, four in a row.

>>> parse_moves("4453")
(3, 3, 4, 2)
>>> parse_position("4453").moves
4
>>> for text in ("44444447", "1212121", "4a"):
...     try:
...         parse_position(text)
...     except PositionError as error:
...         print(f"{type(error).__name__}: {error}")
IllegalPosition: move 7 is column 4, which is full
FinishedPosition: the game is over: move 7 won it (four in a row)
IllegalPosition: move 2 is 'a', not a column: columns are 1 to 7
"""

from __future__ import annotations

from connectx_toolkit.agents.core import Config, Position

__all__ = ["FinishedPosition", "IllegalPosition", "PositionError", "move_string", "parse_moves", "parse_position"]

STANDARD = Config()


class PositionError(ValueError):
    """A move string that is no position to solve; the message is one line for the user."""


class IllegalPosition(PositionError):
    """Not a legal sequence of moves: a character that is no column, a full column, a move after a win."""


class FinishedPosition(PositionError):
    """A legal game that is over: the last move won, or the board is full."""


def parse_position(text: str) -> Position:
    """The 6x7 position after the move string ``text``, still to be played; PositionError if there is none."""
    return Position.from_moves(parse_moves(text), STANDARD)


def parse_moves(text: str) -> tuple[int, ...]:
    """The 0-based columns of the move string ``text``, a game still to be played; PositionError if not."""
    moves = text.strip()
    position = Position(STANDARD)
    won_at = 0
    for index, char in enumerate(moves, start=1):
        if not "1" <= char <= str(STANDARD.columns):
            what = "off the board" if char.isdigit() else "not a column"
            raise IllegalPosition(f"move {index} is {char!r}, {what}: columns are 1 to {STANDARD.columns}")
        if won_at:
            raise IllegalPosition(f"move {index} comes after the game was won by move {won_at}")
        column = int(char) - 1
        if not position.can_play(column):
            raise IllegalPosition(f"move {index} is column {char}, which is full")
        position.play(column)
        if position.last_player_won():
            won_at = index
    if won_at:
        raise FinishedPosition(f"the game is over: move {won_at} won it (four in a row)")
    if position.is_full():
        raise FinishedPosition("the game is over: the board is full (a draw)")
    return tuple(int(char) - 1 for char in moves)


def move_string(moves: tuple[int, ...] | list[int]) -> str:
    """Pons' notation for 0-based ``moves``: ``(3, 3, 4)`` -> ``"445"``."""
    return "".join(str(column + 1) for column in moves)
