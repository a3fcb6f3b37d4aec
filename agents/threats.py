"""Threat-space pattern scoring, the gomoku idea under ConnectX gravity: no search, just a good eye.

Gomoku programs score each empty cell by the lines it makes for itself and breaks for the opponent.
Here the candidate cells are the ones a stone can drop into, and a "line" is a window of ``inarow``
cells (``agents.core.lines``). For the cell of each playable column:

- every window through it with none of the opponent's stones is one the move extends (or completes):
  worth ``10 ** n``, ``n`` = own stones in it after the move;
- every window through it with none of our stones is one the move blocks: worth ``0.7 * 10 ** n``,
  ``n`` = the opponent's stones it would hold had they played there;
- windows holding both colours are dead and worth nothing.

An open pattern (``.XXX.``) lies in more live windows than a closed one (``OXXX.``), so summing
windows ranks open above closed as gomoku's pattern tables do. Gravity adds what gomoku lacks: a
stone also makes the cell above it playable, so a move under the opponent's winning cell gives the
game away and one under our own winning cell lets them block it. Wins are played and immediate
threats blocked before any scoring; a centre preference and a little noise break ties.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from .core import Config, Position
from .core.lines import windows

OPPONENT_WEIGHT = 0.7
CENTRE_WEIGHT = 10.0  # at the middle column, falling linearly to 0 beyond the edges
NOISE = 1.0  # uniform in [0, NOISE): below any window's value, it only breaks near-ties


@lru_cache(maxsize=64)
def windows_through(config: Config) -> dict[int, tuple[int, ...]]:
    """For every cell (as a one-bit mask), the windows that contain it."""
    through: dict[int, list[int]] = {}
    for window in windows(config):
        rest = window
        while rest:
            cell = rest & -rest
            through.setdefault(cell, []).append(window)
            rest ^= cell
    return {cell: tuple(found) for cell, found in through.items()}


def cell_score(position: Position, column: int) -> float:
    """The pattern value of dropping the player to move's stone into ``column``."""
    cell = position.move_bit(column)
    own, opp = position.current, position.opponent
    score = 0.0
    for window in windows_through(position.config).get(cell, ()):
        mine, theirs = own & window, opp & window
        if not theirs:
            score += 10 ** (mine.bit_count() + 1)
        if not mine:
            score += OPPONENT_WEIGHT * 10 ** (theirs.bit_count() + 1)
    return score


def gravity_penalty(position: Position, column: int) -> float:
    """What the move gives away by making the cell above it playable."""
    # A penalty, not Position.non_losing_moves' filter: it is weighed against the pattern score, and
    # it also counts our own winning cell above.
    g = position.geometry
    above = (position.move_bit(column) << 1) & g.board
    if above & position.winning_cells(own=False):
        return 10.0 ** (g.inarow + 3)  # the opponent wins there next move
    if above & position.winning_cells(own=True):
        return 0.5 * 10.0 ** g.inarow  # our threat there gets blocked
    return 0.0


def scores(position: Position, rng: random.Random | None = None) -> dict[int, float]:
    """Every legal column's pattern value, minus the gravity penalty, plus centre preference and noise."""
    rng = rng or random.Random()
    middle = (position.geometry.columns - 1) / 2
    result = {}
    for column in position.legal_moves():
        centre = CENTRE_WEIGHT * (1 - abs(column - middle) / (middle + 1))
        result[column] = cell_score(position, column) - gravity_penalty(position, column) + centre + rng.random() * NOISE
    return result


def choose(position: Position, rng: random.Random | None = None) -> int:
    """Win if possible, else block an immediate threat, else the best scored column."""
    rng = rng or random.Random()
    wins = position.immediate_wins()
    if wins:
        return rng.choice(wins)
    blocks = position.opponent_threats()
    if blocks:
        return max(blocks, key=lambda column: cell_score(position, column))
    scored = scores(position, rng)
    return max(scored, key=scored.__getitem__)


def agent(obs: Any, config: Any) -> int:
    return int(choose(Position.from_kaggle(obs, Config.from_kaggle(config))))
