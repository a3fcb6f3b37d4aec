"""The independent oracle: bitbully, a C++ perfect Connect 4 solver, and the position sets it labelled.

Dev-only (tools, benches and tests; never imported by an agent). :class:`Oracle` is the one wrapper
of bitbully; it speaks 0-based columns and Pons' scores. The labelled sets live in
``tests/data/oracle_<name>.jsonl``: each entry is a position (Pons' move string, 1-based digits) and
the exact score of every column on Pons' scale, from the point of view of the player to move (None
for a full column). Made by ``tools/make_oracle_set.py``; the first line of each file states the
command that produced it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from connectx_toolkit.agents.core import Config, Position

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(ROOT, "tests", "data")
STANDARD = Config()


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


def load_oracle_file(path: str, min_ply: int = 0, max_ply: int = 42) -> list[OracleEntry]:
    """Entries of any file in the sets' format (``tools/make_oracle_set.py --out``) with ply in range."""
    with open(path) as handle:
        entries = [parse_line(line) for line in handle if line.strip() and not line.startswith("#")]
    return [entry for entry in entries if min_ply <= entry.ply <= max_ply]


def load_oracle_set(name: str, min_ply: int = 0, max_ply: int = 42) -> list[OracleEntry]:
    """Entries of ``tests/data/oracle_<name>.jsonl`` (``random`` or ``strong``) with ply in range."""
    return [entry for entry in _load(name) if min_ply <= entry.ply <= max_ply]


ORACLE_SETS = ("random", "strong")


class Oracle:
    """bitbully on 6x7 boards: exact scores (Pons' scale, player to move) by 0-based column.

    ``book=True`` loads bitbully's 12-ply opening book with exact distances (fast on shallow
    positions); ``book=False`` searches everything. ``bitbully`` is imported here, not at module
    level, so that the tools' ``--help`` and the data-set readers work without it.
    """

    def __init__(self, book: bool = True) -> None:
        import bitbully

        self._bitbully = bitbully
        self.solver: Any = bitbully.BitBully() if book else bitbully.BitBully(None)  # the engine itself

    def board(self, moves: Sequence[int]) -> Any:
        """bitbully's board after ``moves`` (0-based columns from the empty board)."""
        return self._bitbully.Board.from_moves(list(moves))

    def board_of(self, position: Position) -> Any:
        """bitbully's board for a 6x7 ``position`` (mark 1 having moved first)."""
        flat, rows, columns = position.to_board(), position.geometry.rows, position.geometry.columns
        return self._bitbully.Board.from_array([flat[r * columns:(r + 1) * columns] for r in range(rows)])

    def scores(self, moves: Sequence[int]) -> dict[int, int]:
        """``{column: exact score of playing it}`` after ``moves``, for every playable column."""
        return self.solver.score_all_moves(self.board(moves))

    def column_scores(self, moves: Sequence[int]) -> list[int | None]:
        """The same as a list by column, None for a full column."""
        by_column = self.scores(moves)
        return [by_column.get(c) for c in range(STANDARD.columns)]

    def position_scores(self, position: Position) -> dict[int, int]:
        """``{column: exact score}`` for a 6x7 ``position`` given as a board (no move history needed)."""
        return self.solver.score_all_moves(self.board_of(position))

    def score(self, moves: Sequence[int]) -> int:
        """The exact score of the position after ``moves`` for the player to move."""
        return int(self.solver.negamax(self.board(moves)))
