"""Solved positions kept on disk, so the same position is never searched twice.

A SQLite file (default ``$XDG_CACHE_HOME/connectx-toolkit/analysis-6x7.sqlite``, i.e.
``~/.cache/connectx-toolkit/analysis-6x7.sqlite``; ``--analysis-cache PATH`` chooses another, ``none``
keeps nothing) with one row per position, keyed by the smaller of the position's and its mirror's Pons
key: the proven bounds on its score, the engine that proved them and the budget it had. An exact score is
final. Bounds that are not exact are reused only by an analysis with no more budget and no stronger
engine — a larger budget, or the compiled solver after the Python search, tries again.
Only the parent process writes, in one transaction per batch.
"""

from __future__ import annotations

import os
import sqlite3

from connectx_toolkit.analysis.values import Value

__all__ = ["PositionCache", "default_cache_path"]

ENGINE_RANK = {"python": 0, "compiled": 1}


def default_cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "connectx-toolkit", "analysis-6x7.sqlite")


class PositionCache:
    """``get(key, budget, engine)`` -> Value or None; ``put(key, value, budget)``; in memory if path is None."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.hits = 0
        self._memory: dict[int, tuple[int, int, str, float]] = {}
        self._db: sqlite3.Connection | None = None
        if path is not None:
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            try:
                self._db = sqlite3.connect(path)
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS positions (key INTEGER PRIMARY KEY, low INTEGER NOT NULL, "
                    "high INTEGER NOT NULL, engine TEXT NOT NULL, budget REAL NOT NULL)")
                self._db.commit()
            except sqlite3.DatabaseError as error:
                raise ValueError(f"analysis cache {path!r} is not usable: {error}") from None

    def get(self, key: int, budget: float, engine: str) -> Value | None:
        row = self._memory.get(key)
        if row is None and self._db is not None:
            found = self._db.execute("SELECT low, high, engine, budget FROM positions WHERE key = ?", (key,)).fetchone()
            if found is not None:
                row = self._memory[key] = (int(found[0]), int(found[1]), str(found[2]), float(found[3]))
        if row is None:
            return None
        low, high, stored_engine, stored_budget = row
        if low != high and (budget > stored_budget or ENGINE_RANK.get(engine, 0) > ENGINE_RANK.get(stored_engine, 0)):
            return None  # not settled last time, and this analysis may do better
        self.hits += 1
        return Value(low, high, "cache", 0.0, timed_out=low != high)

    def put(self, key: int, value: Value, budget: float) -> None:
        engine = value.engine if value.engine in ENGINE_RANK else "python"
        old = self._memory.get(key)
        if old is not None and old[0] == old[1]:
            return
        self._memory[key] = (value.low, value.high, engine, budget)
        if self._db is not None:
            self._db.execute("INSERT OR REPLACE INTO positions VALUES (?, ?, ?, ?, ?)",
                             (key, value.low, value.high, engine, budget))

    def commit(self) -> None:
        if self._db is not None:
            self._db.commit()

    def close(self) -> None:
        if self._db is not None:
            self._db.commit()
            self._db.close()
            self._db = None
