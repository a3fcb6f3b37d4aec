"""Labelled positions: where an agent's accuracy against perfect play is measured (6x7, four in a row).

A :class:`Benchmark` is a set of whole games (:class:`SourceGame`), and of each game the positions whose every
legal move has an exact score (:class:`LabelledPosition`). Whole games because an agent is asked the positions
as a game asks them (``measuring.play``): loaded afresh, called at each of its turns from the empty board, the
game's own column played after each answer. Scores are Pons' scale for the player who plays the column
(``analysis.scores``): > 0 that player wins, 0 a draw, < 0 a loss.

A move is *accurate* when it keeps the mover's outcome class (win, draw or loss: the class of the best column),
*best* when its score is the best column's; a position is *critical* when at least one legal move changes the
mover's outcome class (a lost position never is: every move loses). Phases split the plies as
:data:`PHASES` says.

>>> position = LabelledPosition(game=0, ply=1, moves="4", scores=(-3, -2, -2, -1, -2, -2, -3))
>>> str(position.outcome), position.critical, position.phase
('loss', False, '0-11')
>>> position = LabelledPosition(game=0, ply=0, moves="", scores=(-2, -1, 0, 1, 0, -1, -2))
>>> str(position.outcome), position.critical, position.best_columns, position.verdict(2)
('win', True, (3,), 'win→draw')
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterable

from connectx_toolkit.agents.core import Config
from connectx_toolkit.analysis.positions import move_string
from connectx_toolkit.outcomes import Proven

__all__ = ["ALL", "Benchmark", "BenchmarkError", "CRITICAL", "DEFAULT_BENCHMARK", "LabelledPosition", "PHASES",
           "SETS", "SourceGame", "load_benchmark", "outcome_of", "phase_of"]

STANDARD = Config()
ALL, CRITICAL = "all", "critical"
SETS = (ALL, CRITICAL)
PHASES = (("0-11", 0, 11), ("12-23", 12, 23), ("24-41", 24, 41))  # (name, first ply, last ply)
BLUNDERS = ("win→draw", "win→loss", "draw→loss")
DEFAULT_BENCHMARK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "benchmark.json.gz")
FORMAT = "connectx accuracy benchmark"


class BenchmarkError(ValueError):
    """A benchmark file that cannot be used: one line naming it."""


def outcome_of(score: int) -> Proven:
    """The outcome class of a score for the player it belongs to."""
    return Proven.WIN if score > 0 else Proven.LOSS if score < 0 else Proven.DRAW


def phase_of(ply: int) -> str:
    for name, first, last in PHASES:
        if first <= ply <= last:
            return name
    raise ValueError(f"ply {ply} is off a 6x7 board")


@dataclass(frozen=True)
class LabelledPosition:
    """The position after ``moves`` (a move string, Pons' notation) of game ``game``, ``ply`` stones on the
    board, with ``scores``: the exact score of each column for the player to move, None for a full column."""

    game: int
    ply: int
    moves: str
    scores: tuple[int | None, ...]

    @property
    def best(self) -> int:
        return max(score for score in self.scores if score is not None)

    @property
    def outcome(self) -> Proven:
        """The mover's outcome class with perfect play."""
        return outcome_of(self.best)

    @property
    def best_columns(self) -> tuple[int, ...]:
        return tuple(column for column, score in enumerate(self.scores) if score == self.best)

    @property
    def kept_columns(self) -> tuple[int, ...]:
        """The columns that keep the mover's outcome class."""
        return tuple(column for column, score in enumerate(self.scores)
                     if score is not None and outcome_of(score) == self.outcome)

    @property
    def critical(self) -> bool:
        """Does some legal move change the mover's outcome class?"""
        return any(score is not None and outcome_of(score) != self.outcome for score in self.scores)

    @property
    def phase(self) -> str:
        return phase_of(self.ply)

    def in_set(self, name: str) -> bool:
        """Is it in set ``name`` ("all": every position; "critical": :attr:`critical`)?"""
        if name not in SETS:
            raise ValueError(f"unknown set {name!r}: one of {', '.join(SETS)}")
        return name == ALL or self.critical

    def legal(self, column: Any) -> bool:
        return type(column) is int and 0 <= column < len(self.scores) and self.scores[column] is not None

    def verdict(self, column: int) -> str:
        """"best", "kept" (the class, not the best score) or the blunder's kind ("win→draw", …) of a legal move."""
        score = self.scores[column]
        if score is None:
            raise ValueError(f"column {column + 1} is full in position {self.moves!r}")
        if score == self.best:
            return "best"
        after = outcome_of(score)
        return "kept" if after == self.outcome else f"{self.outcome}→{after}"

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "ply": self.ply, "moves": self.moves, "scores": list(self.scores)}


@dataclass(frozen=True)
class SourceGame:
    """A game the benchmark's positions come from: its moves (0-based columns) and the agents that played it."""

    id: int
    moves: tuple[int, ...]
    agents: tuple[str, str] = ("", "")
    positions: tuple[LabelledPosition, ...] = ()

    @property
    def last_ply(self) -> int:
        """The ply of its last labelled position (the agent is asked up to there)."""
        return max(position.ply for position in self.positions)


@dataclass(frozen=True)
class Benchmark:
    """Games and their labelled positions; ``metadata`` says how they were made (``tools/make_accuracy_benchmark.py``)."""

    games: tuple[SourceGame, ...]
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = "benchmark"  # the file it was read from, for messages

    @property
    def positions(self) -> list[LabelledPosition]:
        return [position for game in self.games for position in game.positions]

    def of_set(self, name: str) -> list[LabelledPosition]:
        """The positions of set ``name``: "all", or "critical"."""
        return [p for p in self.positions if p.in_set(name)]

    def only(self, games: Iterable[int]) -> "Benchmark":
        """The benchmark cut to the games with these ids (in their order here)."""
        wanted = set(games)
        return Benchmark(tuple(game for game in self.games if game.id in wanted), self.metadata, self.source)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "metadata": self.metadata,
                "games": [{"id": game.id, "agents": list(game.agents),
                           "moves": move_string(game.moves),
                           "positions": {str(p.ply): list(p.scores) for p in game.positions}}
                          for game in self.games]}

    def save(self, path: str) -> None:
        """Write the benchmark (gzip'd JSON when ``path`` ends in .gz), atomically."""
        from connectx_toolkit.atomic import write_atomically

        text = json.dumps(self.to_json(), separators=(",", ":"), sort_keys=True).encode()
        write_atomically(path, gzip.compress(text, mtime=0) if path.endswith(".gz") else text)


def from_json(document: Any, source: str) -> Benchmark:
    """The benchmark a :meth:`Benchmark.to_json` document holds; BenchmarkError (naming ``source``) if not one."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BenchmarkError(f"{source}: not a {FORMAT} file")
    games = []
    try:
        for entry in document["games"]:
            moves = tuple(int(char) - 1 for char in entry["moves"])
            if not all(0 <= column < STANDARD.columns for column in moves):
                raise ValueError(f"game {entry['id']}'s moves {entry['moves']!r} are not 6x7 columns 1-7")
            positions = tuple(
                LabelledPosition(int(entry["id"]), int(ply), entry["moves"][:int(ply)],
                                 tuple(None if s is None else int(s) for s in scores))
                for ply, scores in sorted(entry["positions"].items(), key=lambda item: int(item[0])))
            for position in positions:  # the shape every reader relies on; the labels' truth is the tests'
                if not 0 <= position.ply < len(moves) or len(position.scores) != STANDARD.columns:
                    raise ValueError(f"game {entry['id']} has no position {position.ply} of 7 column scores")
            games.append(SourceGame(int(entry["id"]), moves, tuple(entry.get("agents", ("", ""))), positions))
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise BenchmarkError(f"{source}: a game is not readable ({type(error).__name__}: {error})") from None
    return Benchmark(tuple(games), dict(document.get("metadata", {})), source)


@functools.lru_cache(maxsize=2)
def load_benchmark(path: str = DEFAULT_BENCHMARK) -> Benchmark:
    """The benchmark at ``path`` (the shipped one by default), read once a process."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise BenchmarkError(f"{path}: cannot read the benchmark ({error.strerror or error})") from None
    try:
        text = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        document = json.loads(text)
    except (OSError, EOFError, zlib.error, ValueError) as error:  # a cut or corrupt gzip: EOFError, zlib.error
        raise BenchmarkError(f"{path}: not a benchmark file ({type(error).__name__}: {error})") from None
    return from_json(document, path)

