"""The Connect 4 opening books (6x7, four in a row only): best moves, and outcome-keeping moves.

Both are made offline from the project's own solver and read here with the standard library only:
``agents/data/connect4_book.bin`` (``tools/make_book.py``) holds the exact best move of every position
of the agent's own games up to ply 15; ``agents/data/connect4_outcomes.bin`` (``tools/make_outcomes.py``)
holds, for positions before ply 8 reached any way at all, a move that keeps the outcome (win or draw).
A position and its left-right mirror share one entry, stored under the smaller of the two position
keys (``Position.canonical_key``) together with the move for that orientation.

File format (both files):
    b"C4BK" | uint32 little-endian length n | n bytes of JSON metadata | zlib(payload)
    payload = 2**BUCKET_BITS bytes: entries per bucket, then one little-endian uint32 per entry.
Each 49-bit canonical key is scrambled by an invertible mix (so buckets fill evenly); the top
BUCKET_BITS bits of the result pick the bucket, the low 29 bits are stored in the entry next to the
3-bit move: ``entry = low29 << 3 | move``. Entries are sorted within a bucket, so a lookup is one
binary search in a slice: exact, no false hits, and decoding is a few C-level calls.
"""

from __future__ import annotations

import json
import struct
import sys
import zlib
from array import array
from bisect import bisect_left
from itertools import accumulate

from ..core.position import Position
from ..core.resources import has_resource, load_resource

MAGIC = b"C4BK"
KEY_BITS = 49  # 7 columns x 7 bits
BUCKET_BITS = 20
LOW_BITS = KEY_BITS - BUCKET_BITS  # 29, + 3 bits of move = one uint32 per entry
_KEY_MASK = (1 << KEY_BITS) - 1
_LOW_MASK = (1 << LOW_BITS) - 1
_ODD_1, _ODD_2 = 0x1E3779B97F4A7, 0x0BF58476D1CE5  # odd multipliers: invertible modulo 2**49
COLUMNS = 7


def _entry_array() -> array:
    """An array of unsigned 32-bit integers (the typecode whose item is 4 bytes here)."""
    for code in "ILH":
        if array(code).itemsize == 4:
            return array(code)
    raise RuntimeError("no 32-bit array typecode")


def mix(key: int) -> int:
    """A bijection of 49-bit integers that spreads Pons' keys evenly."""
    key = (key * _ODD_1) & _KEY_MASK
    key ^= key >> 25
    key = (key * _ODD_2) & _KEY_MASK
    return key ^ (key >> 25)


def encode_book(moves_by_key: dict[int, int], metadata: dict) -> bytes:
    """The book file for ``{canonical key: best move in that orientation}``."""
    buckets: dict[int, list[int]] = {}
    for key, move in moves_by_key.items():
        if not 0 <= move < COLUMNS or not 0 <= key <= _KEY_MASK:
            raise ValueError(f"bad entry {key}: {move}")
        scrambled = mix(key)
        buckets.setdefault(scrambled >> LOW_BITS, []).append((scrambled & _LOW_MASK) << 3 | move)
    counts = bytearray(1 << BUCKET_BITS)
    entries = _entry_array()
    for bucket in sorted(buckets):
        if len(buckets[bucket]) > 255:
            raise ValueError("a bucket overflowed: raise BUCKET_BITS")
        counts[bucket] = len(buckets[bucket])
        entries.extend(sorted(buckets[bucket]))
    if sys.byteorder != "little":
        entries.byteswap()
    meta = json.dumps(dict(metadata, entries=len(moves_by_key)), sort_keys=True).encode()
    payload = zlib.compress(bytes(counts) + entries.tobytes(), 9)
    return MAGIC + struct.pack("<I", len(meta)) + meta + payload


class OpeningBook:
    """A decoded book: ``move(position)`` -> best column or None."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != MAGIC:
            raise ValueError("not a Connect 4 book")
        (meta_length,) = struct.unpack("<I", data[4:8])
        self.metadata: dict = json.loads(data[8:8 + meta_length])
        payload = zlib.decompress(data[8 + meta_length:])
        counts = payload[: 1 << BUCKET_BITS]
        # Bucket starts as a typed array: a list would hold a million int objects (~50 MB).
        self._starts = _entry_array()
        self._starts.extend(accumulate(counts, initial=0))
        self._entries = _entry_array()
        self._entries.frombytes(payload[1 << BUCKET_BITS:])
        if sys.byteorder != "little":
            self._entries.byteswap()
        if len(self._entries) != self._starts[-1]:
            raise ValueError("corrupt book: entry count mismatch")

    def __len__(self) -> int:
        return len(self._entries)

    def move(self, position: Position) -> int | None:
        """The stored best column for ``position`` (6x7), or None if the book does not cover it."""
        key = position.canonical_key()
        mirrored = key != position.key()  # a symmetric position is its own mirror: either move serves
        scrambled = mix(key)
        bucket, low = scrambled >> LOW_BITS, scrambled & _LOW_MASK
        lo, hi = self._starts[bucket], self._starts[bucket + 1]
        i = bisect_left(self._entries, low << 3, lo, hi)
        if i == hi or self._entries[i] >> 3 != low:
            return None
        move = self._entries[i] & 7
        return COLUMNS - 1 - move if mirrored else move


BOOK_RESOURCE = "connect4_book.bin"
OUTCOME_RESOURCE = "connect4_outcomes.bin"
_cache: dict[str, OpeningBook | None] = {}  # by resource name, filled on first use


def load_book() -> OpeningBook | None:
    """The shipped book of best moves, decoded once; None if this build has none."""
    if BOOK_RESOURCE not in _cache:
        found = has_resource("connect4_book.bin")  # literal names: the builder embeds what they name
        _cache[BOOK_RESOURCE] = OpeningBook(load_resource("connect4_book.bin")) if found else None
    return _cache[BOOK_RESOURCE]


def load_outcome_book() -> OpeningBook | None:
    """The shipped book of outcome-keeping moves (``tools/make_outcomes.py``), decoded once; None if absent."""
    if OUTCOME_RESOURCE not in _cache:
        found = has_resource("connect4_outcomes.bin")
        _cache[OUTCOME_RESOURCE] = OpeningBook(load_resource("connect4_outcomes.bin")) if found else None
    return _cache[OUTCOME_RESOURCE]


def _playable(book: OpeningBook | None, position: Position) -> int | None:
    if book is None:
        return None
    move = book.move(position)
    return move if move is not None and position.can_play(move) else None


def book_move(position: Position) -> int | None:
    """The book's best move (0-based column) for ``position``, or None if it is not covered.

    Only standard Connect 4 (6 rows, 7 columns, four in a row) has a book.
    """
    return _playable(load_book(), position) if position.config.is_standard else None


def outcome_move(position: Position) -> int | None:
    """A move that keeps the best outcome of an early ``position`` the mover does not lose, or None.

    The outcome book covers positions before ply 8, whoever reached them, but only keeps the outcome
    (a win stays a win, a draw a draw): ask :func:`book_move` first, which has the exact best move.
    """
    return _playable(load_outcome_book(), position) if position.config.is_standard else None


def outcome_book_proves_lost(position: Position) -> bool:
    """Is an early ``position`` lost for the mover, by the outcome book's silence?

    A complete outcome book (built from every position of its ply: ``solved == positions`` in its
    metadata) has a move for every position up to that ply that is not lost, except where the mover
    wins at once; so there, and only there, no entry proves the loss.
    """
    book = load_outcome_book() if position.config.is_standard else None
    if book is None or book.metadata.get("solved") != book.metadata.get("positions"):
        return False
    return (position.moves <= book.metadata.get("ply", -1) and book.move(position) is None
            and not position.immediate_wins())
