"""Exact values for the board, computed in the background by the analysis' own engine and cache.

Every column's value for the side to move is the value of the move into it, as the analysis labels a
move (:func:`analysis.labelling.label_games`: rules, the on-disk cache, the opening book, the outcome
table, then a search under the budget by the compiled solver or the Python search). A value is what was
proven: win / draw / loss, the exact score on Pons' scale when known, ``unknown`` when the budget ran out.
The loaded game is labelled the same way. One background thread does the work; the latest position asked
for is the next one solved (positions the board has left meanwhile are skipped).
"""

from __future__ import annotations

import threading
from typing import Callable

from connectx_toolkit.agents.core import Position

from connectx_toolkit.analysis.cache import PositionCache
from connectx_toolkit.analysis.games import STANDARD, Game
from connectx_toolkit.analysis.labelling import GameAnalysis, label_games
from connectx_toolkit.analysis.table import OutcomeTable
from connectx_toolkit.analysis.values import Value

__all__ = ["ValueService"]


class ValueService:
    """``ask(moves)`` queues a 6x7 position; ``columns(moves)`` is its column values once solved, else None."""

    def __init__(self, budget: float, compiled: bool, cache_path: str | None, workers: int,
                 table: bool = True, on_done: Callable[[], None] | None = None) -> None:
        self.budget = budget
        self.compiled = compiled
        self.cache_path = cache_path
        self.workers = workers
        self.on_done = on_done
        self._table = OutcomeTable() if table else None
        self._lock = threading.Condition()
        self._wanted: tuple[int, ...] | None = None
        self._games: list[Game] = []
        self._columns: dict[tuple[int, ...], dict[int, Value]] = {}
        self._analyses: dict[int, GameAnalysis] = {}
        self._errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name="board-values", daemon=True)
        self._thread.start()

    def ask(self, moves: tuple[int, ...]) -> None:
        with self._lock:
            if moves not in self._columns:
                self._wanted = moves
                self._lock.notify()

    def label(self, game: Game) -> None:
        with self._lock:
            self._games.append(game)
            self._lock.notify()

    def columns(self, moves: tuple[int, ...]) -> dict[int, Value] | None:
        with self._lock:
            return self._columns.get(moves)

    def analysis(self, game_id: int) -> GameAnalysis | None:
        with self._lock:
            return self._analyses.get(game_id)

    @property
    def error(self) -> str | None:
        with self._lock:
            return self._errors[-1] if self._errors else None

    def _run(self) -> None:
        cache = PositionCache(self.cache_path)  # SQLite: used by the thread that opened it
        while True:
            with self._lock:
                while self._wanted is None and not self._games:
                    self._lock.wait()
                game = self._games.pop(0) if self._games else None
                moves, self._wanted = (None, self._wanted) if game is not None else (self._wanted, None)
            try:
                if game is not None:
                    analysis = label_games([game], self.budget, cache, self.workers, self.compiled,
                                           progress=False, table=self._table)[0]
                    with self._lock:
                        self._analyses[game.game_id] = analysis
                elif moves is not None:
                    values = self._solve(moves, cache)
                    with self._lock:
                        self._columns[moves] = values
            except Exception as error:  # a solver worker that cannot start, a full disk: said on the page,
                with self._lock:     # and the thread lives on for the next position
                    self._errors.append(f"{type(error).__name__}: {error}")
            if self.on_done is not None:
                self.on_done()

    def _solve(self, moves: tuple[int, ...], cache: PositionCache) -> dict[int, Value]:
        position = Position.from_moves(moves, STANDARD)
        columns = position.legal_moves()
        games = [Game(0, ("", ""), moves + (column,), len(moves) + 1, ("", "")) for column in columns]
        analyses = label_games(games, self.budget, cache, self.workers, self.compiled, progress=False,
                               table=self._table)
        return {column: analysis.moves[-1].after for column, analysis in zip(columns, analyses)}
