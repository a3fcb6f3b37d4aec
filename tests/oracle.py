"""Read the labelled Connect 4 position sets in ``tests/data/oracle_<name>.jsonl``.

Each entry is a position (Pons' move string, 1-based digits) and the exact score of every column on
Pons' scale, from the point of view of the player to move (None for a full column). Made by
``tools/make_oracle_set.py``; the first line of each file states the command that produced it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache

from agents.core import Config, Position

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
STANDARD = Config(6, 7, 4)


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


@dataclass(frozen=True)
class OracleEntry:
    """One labelled position."""

    moves: str  # Pons' notation: 1-based column digits from the empty board
    scores: tuple[int | None, ...]  # per 0-based column; None = column full

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def legal_moves(self) -> list[int]:
        return [c for c, s in enumerate(self.scores) if s is not None]

    @property
    def best_score(self) -> int:
        """The score of the position for the player to move."""
        return max(s for s in self.scores if s is not None)

    @property
    def best_moves(self) -> list[int]:
        """Every 0-based column with the exact best score."""
        best = self.best_score
        return [c for c, s in enumerate(self.scores) if s == best]

    def outcome_class(self, move: int) -> int:
        """+1 if ``move`` wins with perfect play, 0 if it draws, -1 if it loses."""
        score = self.scores[move]
        if score is None:
            raise ValueError(f"column {move} is full in {self.moves!r}")
        return sign(score)

    def keeps_outcome(self, move: int) -> bool:
        """Does ``move`` keep the best outcome class (win/draw/loss) available?"""
        return self.outcome_class(move) == sign(self.best_score)

    def position(self) -> Position:
        return Position.from_string(self.moves, STANDARD)


def parse_line(line: str) -> OracleEntry:
    record = json.loads(line)
    return OracleEntry(record["moves"], tuple(record["scores"]))


@lru_cache(maxsize=None)
def _load(name: str) -> tuple[OracleEntry, ...]:
    path = os.path.join(DATA_DIR, f"oracle_{name}.jsonl")
    with open(path) as handle:
        return tuple(parse_line(line) for line in handle if line.strip() and not line.startswith("#"))


def load_oracle_set(name: str, min_ply: int = 0, max_ply: int = 42) -> list[OracleEntry]:
    """Entries of ``tests/data/oracle_<name>.jsonl`` (``random`` or ``strong``) with ply in range."""
    return [entry for entry in _load(name) if min_ply <= entry.ply <= max_ply]


ORACLE_SETS = ("random", "strong")
