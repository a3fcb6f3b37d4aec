"""The results file: JSON Lines, one header line describing the run, then one line per finished game.

Each game is appended and flushed the moment it ends, so a run killed at any point loses at most the
games that were still being played. ``resume`` reads such a file back: a torn last line (the process
died mid-write) is cut off, and the header says exactly which run to continue.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any

from evaluation.record import GameRecord

FORMAT = 1


class ResultsError(ValueError):
    """A results file that cannot be used; one line for the user."""


class ResultsLog:
    """An open results file that games are appended to."""

    def __init__(self, path: str, handle: IO[str]) -> None:
        self.path = path
        self.handle = handle

    @classmethod
    def create(cls, path: str, header: dict[str, Any]) -> "ResultsLog":
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if os.path.exists(path) and os.path.getsize(path) > 0:
            raise ResultsError(f"results file {path!r} already exists (use --resume {path} to continue it)")
        handle = open(path, "w", encoding="utf-8")
        log = cls(path, handle)
        log._write({"kind": "run", "format": FORMAT, **header})
        return log

    @classmethod
    def resume(cls, path: str) -> tuple["ResultsLog", dict[str, Any], list[GameRecord]]:
        """Reopen ``path`` for appending; returns the log, the run header and the games already played."""
        header, records, good_bytes = read(path)
        with open(path, "r+b") as raw:
            raw.truncate(good_bytes)
        return cls(path, open(path, "a", encoding="utf-8")), header, records

    def append(self, record: GameRecord) -> None:
        self._write({"kind": "game", **record.to_json()})

    def close(self) -> None:
        self.handle.close()

    def _write(self, data: dict[str, Any]) -> None:
        self.handle.write(json.dumps(data, separators=(",", ":")) + "\n")
        self.handle.flush()


def read(path: str) -> tuple[dict[str, Any], list[GameRecord], int]:
    """(header, records with unique game ids, bytes up to the end of the last complete line)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise ResultsError(f"cannot read results file {path!r}: {error.strerror}") from None
    header: dict[str, Any] | None = None
    records: dict[int, GameRecord] = {}
    good = 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # torn write
        try:
            item = json.loads(line)
        except ValueError:
            break
        good += len(line)
        if item.get("kind") == "run" and header is None:
            header = item
        elif item.get("kind") == "game" and header is not None:
            record = GameRecord.from_json(item)
            records.setdefault(record.game_id, record)
    if header is None:
        raise ResultsError(f"{path!r} is not a results file (no run header)")
    return header, sorted(records.values(), key=lambda r: r.game_id), good
