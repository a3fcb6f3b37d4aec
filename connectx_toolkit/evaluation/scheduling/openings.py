"""Opening suites: the positions games start from, so that deterministic agents play different games.

A suite is a list of openings, each a list of 0-based columns. Sources:

- the shipped 6x7 suite ``evaluation/scheduling/openings_6x7.txt`` (checked with a perfect solver offline), the
  default for standard Connect 4 when present;
- a file of move strings, one opening per line, in Pons' notation (1-based column digits, ``4453``);
  for boards wider than 9 columns the columns may be separated by spaces or commas (``10 3 3``);
  blank lines and ``#`` comments are ignored;
- a ply depth: distinct positions reached by seeded random play, skipping positions that are already
  decided (game over, or the side to move wins at once).
"""

from __future__ import annotations

import os
import random
import re

from connectx_toolkit.agents.core import Config, Position

DEFAULT_DEPTH = 4
SUITE_6X7 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings_6x7.txt")


class OpeningError(ValueError):
    """An opening suite that cannot be used; the message is one line for the user."""


def load_suite(source: str | int | None, config: Config, seed: int = 0, count: int = 256) -> list[list[int]]:
    """The suite named by ``source``: None (the default), a ply depth (int or digits) or a file path."""
    if source is None or source == "":
        if config.is_standard and os.path.exists(SUITE_6X7):
            return read_suite(SUITE_6X7, config)
        return generate(config, DEFAULT_DEPTH, count, seed)
    if isinstance(source, int) or (isinstance(source, str) and source.isdigit() and not os.path.exists(source)):
        depth = int(source)
        return generate(config, depth, count, seed)
    if not os.path.isfile(source):
        raise OpeningError(f"--openings {source!r} is neither a ply depth nor an existing file")
    return read_suite(source, config)


def read_suite(path: str, config: Config) -> list[list[int]]:
    """Openings from a file of move strings; every one must be legal and leave the game undecided."""
    suite = []
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise OpeningError(f"cannot read openings file {path!r}: {error}") from None
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        tokens = re.split(r"[\s,]+", text) if re.search(r"[\s,]", text) else list(text)
        try:
            columns = [int(token) - 1 for token in tokens]
            position = Position.from_moves(columns, config)
        except ValueError as error:
            raise OpeningError(f"{path}:{number}: opening {text!r} is not legal on {_shape(config)}: {error}") from None
        if _decided(position):
            raise OpeningError(f"{path}:{number}: opening {text!r} leaves a game that is already decided")
        suite.append(columns)
    if not suite:
        raise OpeningError(f"openings file {path!r} contains no opening")
    return suite


def generate(config: Config, depth: int, count: int, seed: int) -> list[list[int]]:
    """Up to ``count`` distinct undecided positions ``depth`` plies deep, by seeded random play.

    When no such position exists at ``depth`` (tiny boards, small ``inarow``) the depth is lowered
    until one does; depth 0 is the empty board.
    """
    if depth < 0:
        raise OpeningError(f"opening depth must be >= 0, got {depth}")
    rng = random.Random(f"openings:{seed}:{config.rows}x{config.columns}x{config.inarow}:{depth}")
    for ply in range(min(depth, config.cells - 1), -1, -1):
        found: dict[int, list[int]] = {}
        for _ in range(count * 20):
            line = _random_line(config, ply, rng)
            if line is not None:
                found.setdefault(Position.from_moves(line, config).key(), line)
                if len(found) >= count:
                    break
        if found:
            return list(found.values())
    return [[]]


def to_string(opening: list[int]) -> str:
    """Pons' notation for an opening (space-separated when a column number has two digits)."""
    if all(column < 9 for column in opening):
        return "".join(str(column + 1) for column in opening)
    return " ".join(str(column + 1) for column in opening)


def _random_line(config: Config, plies: int, rng: random.Random) -> list[int] | None:
    position, line = Position(config), []
    for _ in range(plies):
        column = rng.choice(position.legal_moves())
        position.play(column)
        line.append(column)
        if position.last_player_won() or position.is_full():
            return None
    return None if _decided(position) else line


def _decided(position: Position) -> bool:
    if position.moves and position.last_player_won():
        return True
    return position.is_full() or bool(position.immediate_wins())


def _shape(config: Config) -> str:
    return f"{config.rows}x{config.columns} (inarow {config.inarow})"
