"""The results file: JSON Lines, one header line describing the run, then one line per finished game.

Each game is appended and flushed the moment it ends, so a run killed at any point loses at most the
games that were still being played. ``resume`` reads such a file back: a torn last line (the process
died mid-write) is cut off, and the header says exactly which run to continue. The analysis reads the
same files with the same reader (:class:`ResultsReader`), strictly: there a corrupt line is an error.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any, Iterator

from connectx_toolkit.evaluation.referees.record import OUTCOMES, GameRecord

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


class ResultsReader:
    """The lines of a results file in order, as ``(line number, item)``: the run header (a dict) first,
    then one :class:`GameRecord` per game line.

    ``strict=False`` (what ``--resume`` needs): reading stops quietly at the first line that is not a
    JSON object, as a torn write leaves it; lines before the header, or after it of another kind than
    a game, are skipped. ``strict=True`` (what an analysis needs): blank lines are skipped and every
    other line must be what the format says (the header first, in this ``FORMAT``, then complete game
    records); anything else raises :class:`ResultsError` naming the line. In both modes a last line
    without its newline is a torn write: it is not read, and is kept in ``torn``.

    After reading, ``header`` is the run header (None: there was none) and ``complete_bytes`` the length
    of the file up to the end of the last line read.
    """

    def __init__(self, data: bytes, path: str, strict: bool = False) -> None:
        self.data = data
        self.path = path
        self.strict = strict
        self.header: dict[str, Any] | None = None
        self.complete_bytes = 0
        self.torn = b""

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any] | GameRecord]]:
        path, strict = self.path, self.strict
        lines = self.data.split(b"\n")
        self.torn = lines.pop()  # b"" when the data ends with a newline
        for number, line in enumerate(lines, 1):
            if strict and not line.decode("utf-8", "replace").strip():
                self.complete_bytes += len(line) + 1
                continue
            try:  # strict: as text, the way the analysis has always read it (a byte-order mark is corrupt)
                item = json.loads(line.decode("utf-8") if strict else line)
            except ValueError:
                if strict:
                    raise ResultsError(f"{path}:{number}: corrupt line (not JSON)") from None
                return
            if not isinstance(item, dict):
                if strict:
                    raise ResultsError(f"{path}:{number}: corrupt line (not a JSON object)")
                return
            self.complete_bytes += len(line) + 1
            kind = item.get("kind")
            if self.header is None:
                if kind == "run":
                    if strict and item.get("format") != FORMAT:
                        raise ResultsError(f"{path}:{number}: results format {item.get('format')!r}, expected {FORMAT}")
                    self.header = item
                    yield number, item
                elif strict:
                    raise ResultsError(
                        f"{path!r} is not a results file of evaluate.py (no run header on line {number})")
            elif kind == "game":
                yield number, self._record(item, number)
            elif strict:
                raise ResultsError(f"{path}:{number}: corrupt line (kind {kind!r}, expected 'game')")

    def _record(self, item: dict[str, Any], number: int) -> GameRecord:
        if not self.strict:
            return GameRecord.from_json(item)
        try:
            record = GameRecord.from_json(item)
            if len(record.agents) != 2 or len(record.outcomes) != 2 or not set(record.outcomes) <= set(OUTCOMES):
                raise TypeError
        except (TypeError, KeyError):
            raise ResultsError(f"{self.path}:{number}: corrupt line (not a complete game record)") from None
        return record


def read(path: str, strict: bool = False) -> tuple[dict[str, Any], list[GameRecord], int]:
    """(header, records with unique game ids, bytes up to the end of the last complete line).

    ``strict``: as :class:`ResultsReader`; the first record of each game id is kept.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise ResultsError(f"cannot read results file {path!r}: {error.strerror}") from None
    reader = ResultsReader(data, path, strict)
    records: dict[int, GameRecord] = {}
    for _, item in reader:
        if isinstance(item, GameRecord):
            records.setdefault(item.game_id, item)
    if reader.header is None:
        raise ResultsError(f"{path!r} is not a results file (no run header)")
    return reader.header, sorted(records.values(), key=lambda r: r.game_id), reader.complete_bytes
