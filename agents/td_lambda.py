"""TD(λ): a linear value function over coarse-coded board features, learned by self-play.

The agent looks one move ahead. Every legal move leads to an *afterstate*; the afterstate is
described by a feature vector ``x`` seen from the player who has just moved ("me"), and its value
``V = w · x`` estimates that player's outcome (+1 win, 0 draw, -1 loss). The agent plays the move
with the highest value, after a small tactical layer: take a win, block the opponent's immediate
win, and never drop a stone right under a cell where the opponent would then win.

Features (derived from the configuration, so any rows x columns x inarow works):
- coarse coding (the classic design): for each player, the fraction of each row, column, diagonal
  and anti-diagonal (those long enough to hold ``inarow`` cells) filled by that player's stones;
- threats: for each player, the number of *open* windows of ``inarow`` cells holding k-1, k-2 and
  k-3 of their stones and none of the opponent's; empty cells that would complete a line, split by
  row parity (the first player profits from threats on odd rows counted from the bottom, the second
  from even rows); whether the player to move can win at once; whether I have two playable wins;
- a bias and a "mover moved first" flag.

``TDLambda`` is the learner: accumulating eligibility traces, ``e <- γλ e + x``,
``w <- w + α (target - w · x) e``. Training (self-play, ε-greedy, in the self-play environment) lives in
``connectx_toolkit/training/td_lambda_trainer.py``; ``tools/train_td_lambda.py`` draws its learning curve and
``connectx-train`` writes an agent folder of one's own. Shipped weights for 6x7 are read from
``agents/data/td_lambda_6x7.json``; for any other configuration the agent uses hand-set default weights on the
threat features. An agent with weights of its own decodes them once with ``read_weights`` and plays with
``play``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from .core import Config, Position
from .core.lines import windows
from .core.position import Geometry, geometry
from .core.resources import load_resource

WIN, DRAW, LOSS = 1.0, 0.0, -1.0
THREAT_DEPTHS = 3  # open windows holding k-1, k-2, ..., k-THREAT_DEPTHS own stones
WINDOW_SCALE = 0.1  # open-window counts reach tens; scaled so every feature stays near [0, 1]
CELL_SCALE = 0.25


def _line_masks(g: Geometry, dc: int, dr: int, min_length: int) -> list[int]:
    """Every maximal line of cells in direction (dc, dr) with at least ``min_length`` cells."""
    lines = []
    for c0 in range(g.columns):
        for r0 in range(g.rows):
            before_c, before_r = c0 - dc, r0 - dr
            if 0 <= before_c < g.columns and 0 <= before_r < g.rows:
                continue  # not the start of a line
            mask, c, r, length = 0, c0, r0, 0
            while 0 <= c < g.columns and 0 <= r < g.rows:
                mask |= g.bit(c, r)
                c, r, length = c + dc, r + dr, length + 1
            if length >= min_length:
                lines.append(mask)
    return lines


class Features:
    """The feature map of one configuration: ``features(position)`` for the afterstate ``position``."""

    def __init__(self, config: Config) -> None:
        g = self.geometry = geometry(config)
        k = config.inarow
        self.config = config
        rows = [sum(g.bit(c, r) for c in range(g.columns)) for r in range(g.rows)]
        columns = list(g.column_masks)
        diagonals = _line_masks(g, 1, 1, k)
        anti_diagonals = _line_masks(g, 1, -1, k)
        self.lines = rows + columns + diagonals + anti_diagonals
        self.line_sizes = [m.bit_count() for m in self.lines]
        self.windows = windows(config)
        self.depths = [j for j in range(k - 1, k - 1 - THREAT_DEPTHS, -1) if j >= 1]
        odd = sum(g.bit(c, r) for c in range(g.columns) for r in range(0, g.rows, 2))  # rows 1, 3, ...
        self.odd_rows, self.even_rows = odd, g.board & ~odd

        line_names = (
            [f"row{r}" for r in range(g.rows)] + [f"col{c}" for c in range(g.columns)]
            + [f"diag{i}" for i in range(len(diagonals))] + [f"anti{i}" for i in range(len(anti_diagonals))]
        )
        threat_names = [f"open{j}" for j in self.depths] + ["cells_good_parity", "cells_bad_parity"]
        self.names = (
            ["bias", "mover_first"]
            + [f"me_{n}" for n in line_names] + [f"them_{n}" for n in line_names]
            + [f"me_{n}" for n in threat_names] + [f"them_{n}" for n in threat_names]
            + ["them_can_win_now", "me_double_threat"]
        )
        self.size = len(self.names)

    def __call__(self, position: Position) -> np.ndarray:
        """Features of ``position`` seen by the player who made the last move."""
        me, them = position.opponent, position.current
        mask = position.mask
        mover_first = me.bit_count() > them.bit_count()
        x = [1.0, 1.0 if mover_first else 0.0]
        for stones in (me, them):
            x.extend((stones & m).bit_count() / n for m, n in zip(self.lines, self.line_sizes))
        possible = position.possible()
        playable_wins = []
        for stones, other, first in ((me, them, mover_first), (them, me, not mover_first)):
            open_counts = dict.fromkeys(self.depths, 0)
            for w in self.windows:
                if not w & other:
                    j = (w & stones).bit_count()
                    if j in open_counts:
                        open_counts[j] += 1
            x.extend(WINDOW_SCALE * open_counts[j] for j in self.depths)
            cells = self.geometry.winning_cells(stones, mask)
            playable_wins.append((cells & possible).bit_count())
            waiting = cells & ~possible
            good, bad = (self.odd_rows, self.even_rows) if first else (self.even_rows, self.odd_rows)
            x.append(CELL_SCALE * (waiting & good).bit_count())
            x.append(CELL_SCALE * (waiting & bad).bit_count())
        x.append(1.0 if playable_wins[1] else 0.0)
        x.append(1.0 if playable_wins[0] >= 2 else 0.0)
        return np.array(x)

    def default_weights(self) -> np.ndarray:
        """Sensible untrained weights: own open windows and threats good, the opponent's bad."""
        w = np.zeros(self.size)
        by_name = {name: i for i, name in enumerate(self.names)}
        for rank, j in enumerate(self.depths):
            w[by_name[f"me_open{j}"]] = 0.3 / 3**rank
            w[by_name[f"them_open{j}"]] = -0.4 / 3**rank
        w[by_name["me_cells_good_parity"]], w[by_name["me_cells_bad_parity"]] = 0.3, 0.15
        w[by_name["them_cells_good_parity"]], w[by_name["them_cells_bad_parity"]] = -0.4, -0.2
        w[by_name["them_can_win_now"]], w[by_name["me_double_threat"]] = -1.0, 1.0
        return w


@lru_cache(maxsize=16)
def features_for(config: Config) -> Features:
    return Features(config)


class TDLambda:
    """Linear TD(λ) with accumulating eligibility traces over one sequence of states at a time."""

    def __init__(self, weights: np.ndarray, alpha: float, gamma: float = 1.0, lam: float = 0.7) -> None:
        self.weights = weights
        self.alpha, self.gamma, self.lam = alpha, gamma, lam
        self.trace = np.zeros_like(weights)

    def value(self, x: np.ndarray) -> float:
        return float(self.weights @ x)

    def reset(self) -> None:
        """Start a new sequence: forget the credit owed to earlier states."""
        self.trace = np.zeros_like(self.weights)

    def update(self, x: np.ndarray, target: float) -> float:
        """Move V(x) toward ``target`` (r + γ V(next), or the final reward); returns the TD error δ."""
        self.trace = self.gamma * self.lam * self.trace + x
        delta = target - self.value(x)
        self.weights += self.alpha * delta * self.trace
        return delta


# -- playing ---------------------------------------------------------------------------------

def afterstate_value(position: Position, column: int, weights: np.ndarray, features: Features) -> float:
    """Value of playing ``column`` for the player to move: exact at the end of the game, else w · x."""
    if position.is_winning_move(column):
        return WIN
    child = position.played(column)
    if child.is_full():
        return DRAW
    return float(weights @ features(child))


def candidate_moves(position: Position) -> list[int]:
    """The tactical filter: a win if there is one, else a forced block, else moves that do not
    hand the opponent a win on the cell just above (all moves if every one does)."""
    wins = position.immediate_wins()
    if wins:
        return wins
    blocks = position.opponent_threats()
    if blocks:
        return blocks  # unlike non_losing_moves, every block (even a losing one): the filter never empties
    return position.non_losing_columns() or position.legal_moves()


def choose(
    position: Position,
    weights: np.ndarray,
    features: Features,
    tactics: bool = True,
    rng: random.Random | None = None,
) -> int:
    """The greedy move: the highest afterstate value among the candidates.

    Ties go to the most central column, or to a random one of them when ``rng`` is given.
    ``tactics=False`` judges every legal move by its value alone (for measuring what was learned).
    """
    moves = candidate_moves(position) if tactics else position.legal_moves()
    if len(moves) == 1:
        return moves[0]
    values = {c: afterstate_value(position, c, weights, features) for c in moves}
    best = max(values.values())
    top = [c for c in position.geometry.center_order if c in values and values[c] >= best - 1e-12]
    return rng.choice(top) if rng is not None else top[0]


# -- weights ---------------------------------------------------------------------------------

def parse_weights(blob: bytes, features: Features) -> np.ndarray | None:
    """The weight vector in ``blob`` if it was trained for this configuration and feature set."""
    data = json.loads(blob.decode("utf-8"))
    if Config(**data["config"]) != features.config or data["features"] != features.names:
        return None
    return np.array(data["weights"], dtype=float)


@dataclass(frozen=True)
class TrainedWeights:
    """A weights file, decoded: the configuration it was trained on and its weight vector."""

    config: Config
    weights: np.ndarray


def read_weights(blob: bytes) -> TrainedWeights:
    """Decode a weights file (``weights_document``'s JSON) once, for ``play``; raises ValueError when it is not
    one, or when its feature names are not this module's (weights of another feature set)."""
    try:
        data = json.loads(blob.decode("utf-8"))
        config = Config(**data["config"])
        names, weights = data["features"], np.array(data["weights"], dtype=float)
    except (UnicodeDecodeError, KeyError, TypeError, ValueError) as error:  # JSONDecodeError is a ValueError
        raise ValueError(f"not a TD(λ) weights file: {error}") from None
    features = features_for(config)
    if names != features.names or weights.shape != (features.size,):
        raise ValueError(f"the weights were made for another feature set ({len(names)} features, "
                         f"{features.size} expected)")
    return TrainedWeights(config, weights)


def play(obs, config, trained: TrainedWeights) -> int:
    """The agent's move with ``trained``'s weights on the board they were trained on (elsewhere ``weights_for``'s)."""
    cfg = Config.from_kaggle(config)
    position = Position.from_kaggle(obs, cfg)
    weights = trained.weights if cfg == trained.config else weights_for(cfg)
    return int(choose(position, weights, features_for(cfg)))


def weights_document(weights: Sequence[float], features: Features, training: dict) -> str:
    """The JSON text of a weights file (config, feature names, weights, how they were trained)."""
    return json.dumps(
        {
            "config": features.config.as_dict(),
            "features": features.names,
            "weights": [float(v) for v in weights],
            "training": training,
        },
        indent=1,
    )


@lru_cache(maxsize=16)
def weights_for(config: Config) -> np.ndarray:
    """Shipped weights for ``config`` if they exist, else the default weights."""
    features = features_for(config)
    if config.is_standard:
        try:
            trained = parse_weights(load_resource("td_lambda_6x7.json"), features)
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            trained = None
        if trained is not None:
            return trained
    return features.default_weights()


def agent(obs, config):
    cfg = Config.from_kaggle(config)
    position = Position.from_kaggle(obs, cfg)
    return int(choose(position, weights_for(cfg), features_for(cfg)))
