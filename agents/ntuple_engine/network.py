"""The n-tuple network: the board's encoding for the tuples and the threat tables, the learned value of a
position, and the weights file.

The network (``connectx_toolkit/training/ntuple/``, where it is trained): 70 fixed 8-tuples of cells, each read
on the board and on its mirror image; a cell is empty and not yet playable, the first player's, the second's,
or empty and playable; the value of a position is ``tanh`` of the sum of the 140 table entries read, the first
player's expected outcome (+1 a win, -1 a loss); with several sets of tables (one for each side to move, GBG's;
and for each stage of the game), a position reads the set of its count of stones. With threat tables, eight more
entries join the sum: each column's empty cells read as whose winning cell each is, and the count of columns
whose lowest winning cell is each player's on an odd or an even row (``threat_entries``): the parity of the rows
that decides long games, which no 8-tuple sees. It learned from self-play alone: no solver, no book. This module
is the encoding's one home: the trainer's compiled kernels are proven equal to it.

The weights file (``write_network``/``read_network``): the tuples, and the tables (and the threat tables, when the
network has them) as float16, compressed (most entries are never visited and stay 0).
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Sequence

import numpy as np

from ..core import Config, Position
from ..core.position import geometry

ROWS, COLUMNS, STATES = 6, 7, 4
CELLS = ROWS * COLUMNS
EMPTY, FIRST, SECOND, PLAYABLE = 0, 1, 2, 3  # a cell's states (training/ntuple/tuples.py)
# Bit b of the core's bitboards (column c owns bits 7c .. 7c + 5) for each cell column * 6 + row.
CELL_BITS = tuple(1 << (c * (ROWS + 1) + r) for c in range(COLUMNS) for r in range(ROWS))

# The threat tables: the winning cells of both players (the rules' ``Geometry.winning_cells``) as the parity of
# their rows and who must move decide the long games (zugzwang). Eight entries a position, from one set of tables
# for each side to move (the count of stones' parity); entry ``side * THREAT_SIDE + ...``:
# - a column's (seven): a column holding h stones has 6 - h empty cells, each coded by whose winning cell it is
#   (0 nobody's, 1 the first player's, 2 the second's, 3 both's); the column's pattern is
#   sum(code(row) * 4**(row - h)), one of 4**(6 - h), and its entry COLUMN_BASE[h] + pattern, one of
#   COLUMN_SIZE = 4**6 + 4**5 + ... + 1 = 5,461 in table ``COLUMN_TABLES[c]`` (columns c and 6 - c, mirror images,
#   share one; four tables), at ``table * COLUMN_SIZE``;
# - the board's (one), at ``LOWEST_BASE``: each column's lowest winning cell, the first player's on an even row
#   (0, 2, 4 counted from the bottom: the 1st, 3rd, 5th), the first's on an odd row, the second's on an even one,
#   the second's on an odd one, or both players'; the number of columns of each of the four kinds (0, 1, 2 or
#   more) and whether any column's is both's: ((n1 * 3 + n2) * 3 + n3) * 3 + n4) * 2 + both, one of 162.
COLUMN_BASE = tuple(sum(STATES ** (ROWS - k) for k in range(h)) for h in range(ROWS + 2))
COLUMN_SIZE = COLUMN_BASE[ROWS + 1]
COLUMN_TABLES = tuple(min(c, COLUMNS - 1 - c) for c in range(COLUMNS))
LOWEST_BASE = (max(COLUMN_TABLES) + 1) * COLUMN_SIZE
LOWEST_SIZE = 3 ** 4 * 2
THREAT_SIDE = LOWEST_BASE + LOWEST_SIZE
THREAT_SHAPE = (2, THREAT_SIDE)  # side to move, entry
THREAT_SLOTS = COLUMNS + 1


@dataclass(frozen=True)
class Network:
    """Decoded weights: the cells each of the 2n slots reads (the tuples, then their mirror images), each slot's
    table offset into ``tables`` (flat, one 4**len table a tuple, set after set), ``set_shifts`` (for each count
    of stones 0 .. 42, where the set of tables a position with that many stones reads starts in ``tables``) and
    the training record."""

    slot_cells: np.ndarray
    slot_offsets: np.ndarray
    tables: np.ndarray
    training: dict
    set_shifts: np.ndarray
    threats: np.ndarray | None = None  # the threat tables (flat, THREAT_SHAPE), or None: the tuples alone

    def values(self, states: np.ndarray) -> np.ndarray:
        """The first player's learned value of each position in ``states`` (positions x 42 cell states)."""
        powers = STATES ** np.arange(self.slot_cells.shape[1], dtype=np.int64)
        indices = (states[:, self.slot_cells] * powers).sum(axis=2) + self.slot_offsets
        stones = ((states == FIRST) | (states == SECOND)).sum(axis=1)
        boards = None
        if self.threats is not None:
            bits = np.array(CELL_BITS, dtype=np.uint64)
            first = np.bitwise_or.reduce(np.where(states == FIRST, bits, np.uint64(0)), axis=1).tolist()
            mask = np.bitwise_or.reduce(np.where(states == SECOND, bits, np.uint64(0)), axis=1).tolist()
            boards = [(int(f), int(f) | int(m)) for f, m in zip(first, mask)]
        return self.first_values(indices, stones[:, None], boards)

    def first_values(self, indices: np.ndarray, stones, boards: Sequence[tuple[int, ...]] | None) -> np.ndarray:
        """The first player's learned value of positions given by their slots' entries in the first set of tables
        (one row a position, ``indices``' rows), their count of stones (one for all, or a column of counts) and,
        for the threat tables, their bitboards (the first player's stones, all stones; one pair a position, or a
        quadruple with both players' winning cells, the first's then the second's, when the caller has them)."""
        total = self.tables[indices + self.set_shifts[stones]].astype(np.float64).sum(axis=1)
        if self.threats is not None:
            assert boards is not None, "a network with threat tables values positions from their bitboards"
            entries = [threat_entries(board[0], board[1], board[1].bit_count(), board[2:]) for board in boards]
            total += self.threats[entries].astype(np.float64).sum(axis=1)
        return np.tanh(total)

    def indices(self, states: np.ndarray) -> np.ndarray:
        """The entries the slots read for one position's 42 cell states, in the first set of tables (int64)."""
        powers = STATES ** np.arange(self.slot_cells.shape[1], dtype=np.int64)
        return (states[self.slot_cells] * powers).sum(axis=1) + self.slot_offsets

    @cached_property
    def move_deltas(self) -> np.ndarray:
        """How each slot's index changes when a stone lands on a cell: ``[colour, cell]`` (colour 0 the first
        player's) adds the stone (``PLAYABLE`` to ``FIRST`` or ``SECOND``) and makes the cell above playable."""
        deltas = np.zeros((2, CELLS, len(self.slot_cells)), dtype=np.int64)
        for slot, cells in enumerate(self.slot_cells.tolist()):
            for j, cell in enumerate(cells):
                for colour, stone in enumerate((FIRST, SECOND)):
                    deltas[colour, cell, slot] += (stone - PLAYABLE) * STATES ** j
                if cell % ROWS:  # the cell becomes playable when a stone lands on the one below
                    deltas[:, cell - 1, slot] += (PLAYABLE - EMPTY) * STATES ** j
        return deltas


@lru_cache(maxsize=1)
def column_lookup() -> list[int]:
    """For a column's 6 bits of the stones ``m``, of the first player's winning cells ``a`` and of the second's
    ``b``: at ``m << 12 | a << 6 | b``, the column's entry (``COLUMN_BASE[h] + pattern``) times 8 plus its lowest
    winning cell's kind (0 none; 1 + 2 * whose (0 the first, 1 the second) + the row's parity; 5 both's)."""
    stones, first, second = np.ix_(np.arange(64), np.arange(64), np.arange(64))
    height = sum((stones >> r) & 1 for r in range(ROWS))  # a column's stones are its lowest cells
    entry = np.asarray(COLUMN_BASE)[height]
    kind = np.zeros((1, 64, 64), dtype=np.int64)
    for row in reversed(range(ROWS)):  # the lowest row last, so its kind stays
        a, b = (first >> row) & 1, (second >> row) & 1
        code = np.where(row >= height, a + 2 * b, 0)
        entry = entry + code * STATES ** np.maximum(row - height, 0)
        kind = np.where(code == 3, 5, np.where(code == 1, 1 + row % 2, np.where(code == 2, 3 + row % 2, kind)))
    return (entry * 8 + kind).astype(np.int64).ravel().tolist()


COLUMN_OFFSETS = tuple(t * COLUMN_SIZE for t in COLUMN_TABLES)
STANDARD = geometry(Config())  # 6x7, four in a row: the only board the network plays


def threat_entries(first: int, mask: int, stones: int, wins: Sequence[int] = ()) -> list[int]:
    """The threat tables' eight entries (one a column, then the board's) of the position whose first player's
    stones are ``first`` and whose stones are ``mask`` (the core's bitboards), ``stones`` of them; ``wins``, when
    given, the first player's and the second's winning cells there (else computed by the rules)."""
    if wins:
        own, their = wins
    else:
        own, their = STANDARD.winning_cells(first, mask), STANDARD.winning_cells(first ^ mask, mask)  # rules' home
    lookup, side = column_lookup(), (stones & 1) * THREAT_SIDE
    entries, kinds = [], [0] * 6
    for column, offset in enumerate(COLUMN_OFFSETS):
        shift = column * (ROWS + 1)
        packed = lookup[(mask >> shift & 63) << 12 | (own >> shift & 63) << 6 | their >> shift & 63]
        entries.append(side + offset + (packed >> 3))
        kinds[packed & 7] += 1
    lowest = (min(kinds[1], 2) * 54 + min(kinds[2], 2) * 18 + min(kinds[3], 2) * 6 + min(kinds[4], 2) * 2
              + (kinds[5] > 0))
    entries.append(side + LOWEST_BASE + lowest)
    return entries


def mirror_cell(cell: int) -> int:
    column, row = divmod(cell, ROWS)
    return (COLUMNS - 1 - column) * ROWS + row


def slots(tuples: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The 2n slots of n tuples: the cells each reads (the tuples, then their mirror images) and the table each
    reads (slot s and slot n + s share tuple s's)."""
    cells = np.array([list(t) for t in tuples] + [[mirror_cell(c) for c in t] for t in tuples], dtype=np.int64)
    return cells, np.concatenate([np.arange(len(tuples)), np.arange(len(tuples))]).astype(np.int64)


def table_sets(tuples: Sequence[Sequence[int]], tables: np.ndarray, sets: Sequence[int] | None) -> np.ndarray:
    """The set of tables each count of stones 0 .. 42 reads: ``sets`` when given, else as many rows as tuples
    is one set for all, twice as many the even positions' set then the odd ones'; ValueError when they disagree."""
    count, rest = divmod(len(tables), max(len(tuples), 1))
    if sets is None:
        sets = [0] * (CELLS + 1) if count == 1 else [n % 2 for n in range(CELLS + 1)] if count == 2 else []
    chosen = np.asarray(sets, dtype=np.int64)
    if rest or chosen.shape != (CELLS + 1,) or chosen.min() < 0 or chosen.max() + 1 != count:
        raise ValueError(f"tables {np.shape(tables)} are not one set of {len(tuples)} tuples' for each set of "
                         f"{list(chosen)}")
    return chosen


def network_from(tuples: Sequence[Sequence[int]], tables: np.ndarray, training: dict,
                 sets: Sequence[int] | None = None, threats: np.ndarray | None = None) -> Network:
    """A network from its tuples (cells ``column * 6 + row``), its tables (tuples x 4**length for each set of
    tables; ``sets``: the set each count of stones reads, as ``table_sets`` reads it) and its threat tables
    (``THREAT_SHAPE``, or None)."""
    cells, table_of_slot = slots(tuples)
    offsets = table_of_slot * tables.shape[1]
    shifts = table_sets(tuples, tables, sets) * (len(tuples) * tables.shape[1])
    if threats is not None and np.shape(threats) != THREAT_SHAPE:
        raise ValueError(f"threat tables {np.shape(threats)}, not {THREAT_SHAPE}")
    flat = None if threats is None else np.ascontiguousarray(threats, dtype=np.float32).reshape(-1)
    return Network(cells, offsets, np.ascontiguousarray(tables, dtype=np.float32).reshape(-1), training, shifts, flat)


def npz_bytes(arrays: dict[str, np.ndarray], compress: bool = True) -> bytes:
    """``arrays`` as the bytes of an npz file (``numpy.load`` reads it); its zip entries dated 1980-01-01, so the
    same arrays give the same bytes."""
    buffer = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, array in arrays.items():
            entry = io.BytesIO()
            np.lib.format.write_array(entry, np.ascontiguousarray(array), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            archive.writestr(info, entry.getvalue())
    return buffer.getvalue()


def write_network(tuples: Sequence[Sequence[int]], tables: np.ndarray, training: dict,
                  sets: Sequence[int] | None = None, threats: np.ndarray | None = None) -> bytes:
    """The weights file's bytes: the tuples, the tables as float16, the training record, (when given: one
    set, or the two sides', need none) the set of tables each count of stones reads and (when given) the threat
    tables as float16, compressed."""
    arrays = {"tuples": np.array(tuples, dtype=np.int8), "tables": np.asarray(tables, dtype=np.float16),
              "training": np.frombuffer(json.dumps(training, sort_keys=True).encode("utf-8"), dtype=np.uint8)}
    if sets is not None:
        arrays["sets"] = np.asarray(sets, dtype=np.int8)
    if threats is not None:
        arrays["threats"] = np.asarray(threats, dtype=np.float16).reshape(THREAT_SHAPE)
    return npz_bytes(arrays)


def read_network(blob: bytes) -> Network:
    """Decode a weights file (``write_network``'s bytes); raises ValueError when it is not one."""
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as data:
            tuples = data["tuples"].astype(np.int64)
            tables = data["tables"]
            training = json.loads(data["training"].tobytes().decode("utf-8"))
            sets = data["sets"].tolist() if "sets" in data.files else None
            threats = data["threats"] if "threats" in data.files else None
    except Exception as error:  # a zip, npz or JSON problem, whichever layer finds it
        raise ValueError(f"not an n-tuple weights file: {error}") from None
    if tuples.ndim != 2 or tables.shape[1:] != (STATES ** tuples.shape[1],) or not (
            (0 <= tuples).all() and (tuples < CELLS).all()):
        raise ValueError(f"not an n-tuple weights file: tuples {tuples.shape}, tables {tables.shape}")
    try:
        return network_from(tuples.tolist(), tables, training, sets, threats)
    except ValueError as error:
        raise ValueError(f"not an n-tuple weights file: {error}") from None


def cell_states(position: Position) -> np.ndarray:
    """The 42 cell states of ``position`` (6x7), as the network reads them."""
    first = position.current if position.moves % 2 == 0 else position.opponent
    mask, playable = position.mask, position.possible()
    states = [EMPTY] * CELLS
    for cell, bit in enumerate(CELL_BITS):
        if mask & bit:
            states[cell] = FIRST if first & bit else SECOND
        elif playable & bit:
            states[cell] = PLAYABLE
    return np.array(states, dtype=np.int64)
