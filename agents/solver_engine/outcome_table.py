"""The outcome table: win, draw or loss for the player to move in every 6x7 position of one ply (8).

Made offline by ``tools/make_outcomes.py`` (the compiled solver) and packed by ``tools/pack_outcomes.py``
into ``agents/data/connect4_outcomes_ply8.bin``; read here with the standard library only. It stores
outcomes, not moves: the positions are implied by a numbering of every arrangement of ``ply`` stones
(:class:`SlotIndex`), so a lookup is arithmetic on the bitboards and one byte read, with no key list
and no enumeration of the game tree at load time.

What the agent learns from it (:func:`outcome_bounds`): at the table's ply the position's outcome
itself; one ply later a lower bound, since the position is a child of every position it can have come
from: if the opponent, to move there, could at best draw, the mover now can at least draw. A slot
the table does not know (not solved yet, or no position) is *unknown*, never a loss.

File format:
    b"C4OT" | uint32 little-endian length n | n bytes of JSON metadata | zlib(one byte per slot)
    slots in :class:`SlotIndex` order; a byte's low 2 bits: 0 unknown, 1 loss, 2 draw, 3 win (for the
    player to move); its next 3 bits: 0, or 1 + a column that keeps the outcome (a table packed with
    ``--moves``, metadata ``"moves": true``, holds the moves its checkpoint had: ``"with_move"`` of them).
Only a position's canonical orientation (``Position.canonical_key``, the smaller key of a mirror pair)
has a byte; the other orientation's slot holds 0.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Iterator

from ..core.config import Config
from ..core.position import Position
from ..core.resources import has_resource, load_resource

MAGIC = b"C4OT"
STANDARD = Config()
UNKNOWN = 0  # the byte of a slot the table does not know; otherwise byte = outcome + 2
_HEIGHT = STANDARD.rows + 1  # bits per column in Pons' layout
_COLUMN = (1 << _HEIGHT) - 1
MAX_PLY = 16  # the patterns are listed, 2**ply numbers


class SlotIndex:
    """A dense numbering of every arrangement of ``ply`` stones on 6x7 (gravity kept, any colours).

    ``slot = fill * patterns + pattern``: ``fill`` numbers the column heights (lexicographic, column 0
    first; each height 0-6, summing to ``ply``), ``pattern`` the player to move's stones, read column by
    column from the bottom as a ``ply``-bit number with ``ply // 2`` ones (the numbers in increasing
    order). Arrangements with a line, or unreachable ones, have slots too: the table leaves them unknown.
    """

    def __init__(self, ply: int) -> None:
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"a slot index numbers 0 to {MAX_PLY} stones, not {ply}")
        self.ply = ply
        ones = ply // 2  # the player to move has placed half the stones, rounded down
        self.pattern_bits = [bits for bits in range(1 << ply) if bits.bit_count() == ones]
        self.pattern_of = dict(zip(self.pattern_bits, range(len(self.pattern_bits))))
        self.patterns = len(self.pattern_bits)
        self.fill_masks: list[int] = []
        self._fills(0, ply, 0)
        self.fill_of = dict(zip(self.fill_masks, range(len(self.fill_masks))))
        self.slots = len(self.fill_masks) * self.patterns

    def _fills(self, column: int, left: int, mask: int) -> None:
        if column == STANDARD.columns:
            if not left:
                self.fill_masks.append(mask)
            return
        for height in range(min(STANDARD.rows, left) + 1):
            self._fills(column + 1, left - height, mask | ((1 << height) - 1) << (column * _HEIGHT))

    def slot(self, current: int, mask: int) -> int:
        """The slot of the arrangement with stones ``mask``, ``current`` those of the player to move."""
        pattern = shift = 0
        for column in range(STANDARD.columns):
            stones = (mask >> (column * _HEIGHT)) & _COLUMN
            pattern |= ((current >> (column * _HEIGHT)) & stones) << shift
            shift += stones.bit_length()
        return self.fill_of[mask] * self.patterns + self.pattern_of[pattern]

    def position(self, slot: int) -> Position:
        """The arrangement numbered ``slot`` (the inverse of :meth:`slot`)."""
        fill, pattern = divmod(slot, self.patterns)
        mask, bits, current = self.fill_masks[fill], self.pattern_bits[pattern], 0
        for column in range(STANDARD.columns):
            stones = (mask >> (column * _HEIGHT)) & _COLUMN
            current |= (bits & stones) << (column * _HEIGHT)
            bits >>= stones.bit_length()
        return Position(STANDARD, current, mask, self.ply)


def position_of_key(key: int, ply: int) -> Position:
    """The 6x7 position whose key (``current + mask``) is ``key``; ValueError if it has not ``ply`` stones.

    Within a column of ``h`` stones the key is ``2**h - 1`` plus the mover's stones there.
    """
    current = mask = 0
    for column in range(STANDARD.columns):
        part = (key >> (column * _HEIGHT)) & _COLUMN
        height = (part + 1).bit_length() - 1
        if height > STANDARD.rows:
            raise ValueError(f"{key} is not a 6x7 position key")
        stones = (1 << height) - 1
        mask |= stones << (column * _HEIGHT)
        current |= (part - stones) << (column * _HEIGHT)
    if key >> (STANDARD.columns * _HEIGHT) or mask.bit_count() != ply or current.bit_count() != ply // 2:
        raise ValueError(f"{key} is not the key of a 6x7 position with {ply} stones")
    return Position(STANDARD, current, mask, ply)


def encode_outcome_table(outcomes: dict[int, int], ply: int, metadata: dict,
                         moves: dict[int, int] | None = None) -> bytes:
    """The table file for ``{canonical key: outcome (1, 0, -1) for the player to move}`` at ``ply``.

    ``moves``, if given: ``{canonical key: a column keeping the outcome, in that orientation}`` for
    positions that are not lost; a position it leaves out has no move in the table.
    """
    index = SlotIndex(ply)
    codes = bytearray(index.slots)
    counts = {1: 0, 0: 0, -1: 0}
    for key, outcome in outcomes.items():
        position = position_of_key(key, ply)
        if key != position.canonical_key() or outcome not in counts:
            raise ValueError(f"bad entry {key}: {outcome} (keys must be canonical, outcomes 1, 0 or -1)")
        code = outcome + 2
        if moves is not None and outcome >= 0 and key in moves:
            move = moves[key]
            if not position.can_play(move):
                raise ValueError(f"bad entry {key}: move {move} cannot be played")
            code |= (move + 1) << 2
        codes[index.slot(position.current, position.mask)] = code
        counts[outcome] += 1
    meta = dict(metadata, kind="outcome table", ply=ply, slots=index.slots, solved=len(outcomes),
                wins=counts[1], draws=counts[0], losses=counts[-1], moves=moves is not None,
                with_move=sum(1 for key in outcomes if moves is not None and key in moves))
    header = json.dumps(meta, sort_keys=True).encode()
    return MAGIC + struct.pack("<I", len(header)) + header + zlib.compress(bytes(codes), 9)


class OutcomeTable:
    """A decoded table: ``outcome(position)`` -> 1, 0, -1 for the player to move, or None if unknown."""

    def __init__(self, data: bytes) -> None:
        if data[:4] != MAGIC:
            raise ValueError("not a Connect 4 outcome table")
        (length,) = struct.unpack("<I", data[4:8])
        self.metadata: dict = json.loads(data[8:8 + length])
        self.ply: int = self.metadata["ply"]
        self.index = SlotIndex(self.ply)
        self._codes = zlib.decompress(data[8 + length:])
        if len(self._codes) != self.index.slots or self.metadata.get("slots") != self.index.slots:
            raise ValueError("corrupt outcome table: slot count mismatch")

    @property
    def complete(self) -> bool:
        """Does it know every position of its ply (``solved == positions`` in its metadata)?"""
        return self.metadata.get("solved") == self.metadata.get("positions")

    def __len__(self) -> int:
        """The number of positions it knows."""
        return self.metadata["solved"]

    def _code(self, position: Position) -> tuple[int, bool]:
        """(the byte of ``position``, is it the mirror of the stored orientation); 0 off the table's ply."""
        if position.moves != self.ply or not position.config.is_standard:
            return 0, False
        mirrored = position.key() != position.canonical_key()
        if mirrored:
            position = position.mirrored()
        return self._codes[self.index.slot(position.current, position.mask)], mirrored

    def outcome(self, position: Position) -> int | None:
        """The outcome of a 6x7 ``position`` at the table's ply for the player to move, or None."""
        code = self._code(position)[0] & 3
        return code - 2 if code != UNKNOWN else None

    def move(self, position: Position) -> int | None:
        """A column keeping the outcome of ``position`` (not lost), if the table holds moves; else None."""
        code, mirrored = self._code(position)
        column = (code >> 2) - 1
        if column < 0:
            return None
        return STANDARD.columns - 1 - column if mirrored else column

    def entries(self) -> Iterator[tuple[Position, int]]:
        """Every (canonical position, outcome) the table knows, in slot order."""
        for slot, code in enumerate(self._codes):
            if code != UNKNOWN:
                yield self.index.position(slot), (code & 3) - 2


_cache: list[OutcomeTable | None] = []  # filled on first use


def load_outcome_table() -> OutcomeTable | None:
    """The shipped table, decoded once; None if this build has none."""
    if not _cache:
        found = has_resource("connect4_outcomes_ply8.bin")  # a literal name: the builder embeds what it names
        _cache.append(OutcomeTable(load_resource("connect4_outcomes_ply8.bin")) if found else None)
    return _cache[0]


def table_move(position: Position) -> int | None:
    """The shipped table's move for ``position`` (at its ply, not lost, packed with moves), or None."""
    table = load_outcome_table() if position.config.is_standard else None
    return None if table is None else table.move(position)


def outcome_bounds(position: Position, table: OutcomeTable | None = None) -> tuple[int, int] | None:
    """``(low, high)``: what the table proves about the outcome (-1, 0, 1) of ``position`` for the mover.

    At the table's ply: its outcome, ``(v, v)``. One ply later: ``(low, 1)``, ``low`` the best of
    ``-outcome`` over every position it can have come from (the opponent's stone on top of a column
    taken back): the opponent's move there was one of its choices, so it left the mover at least what
    the opponent's best choice would have.
    None when the table proves nothing (another ply or board, unknown positions, or only ``low = -1``).
    """
    table = load_outcome_table() if table is None else table
    if table is None or not position.config.is_standard:
        return None
    if position.moves == table.ply:
        outcome = table.outcome(position)
        return None if outcome is None else (outcome, outcome)
    if position.moves != table.ply + 1:
        return None
    low = -1
    for parent in parents(position):
        outcome = table.outcome(parent)
        if outcome is not None and -outcome > low:
            low = -outcome
    return None if low < 0 else (low, 1)


def parents(position: Position) -> list[Position]:
    """The 6x7 positions one stone earlier: the opponent's stone on top of a column taken back.

    Some are reached by no game (no alternating order of moves leads there); no table knows those.
    """
    found = []
    opponent = position.current ^ position.mask
    for column in range(STANDARD.columns):
        stones = (position.mask >> (column * _HEIGHT)) & _COLUMN
        top = (stones + 1) >> 1 << (column * _HEIGHT)  # the column's highest stone
        if stones and opponent & top:
            found.append(Position(STANDARD, opponent ^ top, position.mask ^ top, position.moves - 1))
    return found
