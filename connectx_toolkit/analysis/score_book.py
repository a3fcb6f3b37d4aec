"""The exact scores of the opening book's positions (6x7, four in a row), as package data.

``tools/make_book.py`` solves every position of the agent's opening book with the compiled solver and
keeps each one's exact score in its checkpoint (``tools/book_checkpoint.txt``: key, best move, score);
the book file the agent reads (``agents/data/connect4_book.bin``) keeps only the moves.
``tools/pack_scores.py`` packs the scores into ``analysis/data/book_scores.bin``, which this module
reads: 182,658 positions of plies 0-15 (every position up to ply 1, and every position the agent can
face up to ply 15 when it plays the book and its opponent plays anything), each an exact score on
Pons' scale for the player to move. These are the early positions a search takes minutes on.

File format:
    b"C4SC" | uint32 little-endian length n | n bytes of JSON metadata | lzma(payload)
    payload = the canonical keys (``Position.canonical_key``) in increasing order, one little-endian
    uint64 each, then one byte per key: its score + 64.
"""

from __future__ import annotations

import functools
import json
import lzma
import os
import struct
import sys
from array import array
from bisect import bisect_left
from typing import Iterator

from connectx_toolkit.agents.core import Position

__all__ = ["DEFAULT_SCORE_BOOK", "ScoreBook", "encode_score_book", "load_score_book"]

MAGIC = b"C4SC"
SCORE_OFFSET = 64
DEFAULT_SCORE_BOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "book_scores.bin")


def encode_score_book(scores: dict[int, int], metadata: dict) -> bytes:
    """The file for ``{canonical key: exact score for the player to move}``."""
    keys = array("Q", sorted(scores))
    if any(not -SCORE_OFFSET <= scores[key] < SCORE_OFFSET for key in keys):
        raise ValueError("a score outside -64..63")
    payload_keys = array("Q", keys)
    if sys.byteorder != "little":
        payload_keys.byteswap()
    payload = payload_keys.tobytes() + bytes(scores[key] + SCORE_OFFSET for key in keys)
    header = json.dumps(dict(metadata, kind="score book", positions=len(keys)), sort_keys=True).encode()
    return MAGIC + struct.pack("<I", len(header)) + header + lzma.compress(payload)


class ScoreBook:
    """``score(position)``: the exact score of a 6x7 position the book holds, else None."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != MAGIC:
            raise ValueError("not a Connect 4 score book")
        (length,) = struct.unpack("<I", data[4:8])
        self.metadata: dict = json.loads(data[8:8 + length])
        payload = lzma.decompress(data[8 + length:])
        count = self.metadata["positions"]
        if len(payload) != 9 * count:
            raise ValueError("corrupt score book: size does not match its metadata")
        self._keys = array("Q")
        self._keys.frombytes(payload[:8 * count])
        if sys.byteorder != "little":
            self._keys.byteswap()
        self._scores = payload[8 * count:]

    def __len__(self) -> int:
        return len(self._keys)

    def entries(self) -> Iterator[tuple[int, int]]:
        """Every (canonical key, score), in increasing key order."""
        for key, code in zip(self._keys, self._scores):
            yield key, code - SCORE_OFFSET

    def score(self, position: Position) -> int | None:
        if not position.config.is_standard:
            return None
        key = position.canonical_key()
        index = bisect_left(self._keys, key)
        if index < len(self._keys) and self._keys[index] == key:
            return self._scores[index] - SCORE_OFFSET
        return None


@functools.lru_cache(maxsize=2)
def load_score_book(path: str = DEFAULT_SCORE_BOOK) -> ScoreBook | None:
    """The book at ``path``, decoded once a process (about 0.05 s); None if there is no such file."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    return ScoreBook(data)
