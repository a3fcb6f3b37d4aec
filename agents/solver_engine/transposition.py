"""A transposition table: what earlier searches proved about a position's exact score.

Pons stores one bound per position in a single integer; so do we, in a dict keyed by the
position key (``current + mask``). Measured against two fixed-size lists (keys and values, 2**20
slots indexed by ``key % size``) on 20 random 18-ply positions, the dict searched 254 k nodes per
CPU second against 204-228 k, and it never loses entries to collisions. It is cleared when it
outgrows ``capacity`` so memory stays bounded over a game.

Encoding, for scores in ``[min_score, max_score]``:
    upper bound ``v``  -> ``v - min_score + 1``                 (1 .. span + 1)
    lower bound ``v``  -> ``v + max_score - 2 * min_score + 2``  (span + 2 ..)
"""

from __future__ import annotations


class TranspositionTable:
    """Bounds keyed by position key; ``entries`` is exposed for the search's inner loop."""

    __slots__ = ("entries", "capacity", "min_score", "max_score", "lower_offset", "upper_offset", "split")

    def __init__(self, min_score: int, max_score: int, capacity: int = 2_000_000) -> None:
        self.entries: dict[int, int] = {}
        self.capacity = capacity
        self.min_score, self.max_score = min_score, max_score
        self.upper_offset = 1 - min_score  # stored = upper + upper_offset
        self.lower_offset = max_score - 2 * min_score + 2  # stored = lower + lower_offset
        self.split = max_score - min_score + 1  # stored values above this are lower bounds

    def store_upper(self, key: int, value: int) -> None:
        self.entries[key] = value + self.upper_offset

    def store_lower(self, key: int, value: int) -> None:
        self.entries[key] = value + self.lower_offset

    def bounds(self, key: int) -> tuple[int | None, int | None]:
        """``(lower, upper)`` known for ``key``; ``None`` where nothing is known."""
        stored = self.entries.get(key)
        if stored is None:
            return None, None
        if stored > self.split:
            return stored - self.lower_offset, None
        return None, stored - self.upper_offset

    def make_room(self) -> None:
        """Forget everything if the table has outgrown its capacity (called between searches)."""
        if len(self.entries) > self.capacity:
            self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)
