"""The n-tuple agent: Connect 4 values learned by TD(λ) self-play, read from 70 8-tuple look-up tables.

The network (``connectx_toolkit/training/ntuple/``, where it is trained): 70 fixed 8-tuples of cells, each read
on the board and on its mirror image; a cell is empty and not yet playable, the first player's, the second's,
or empty and playable; the value of a position is ``tanh`` of the sum of the 140 table entries read, the first
player's expected outcome (+1 a win, -1 a loss); with several sets of tables (one for each side to move, GBG's;
and for each stage of the game), a position reads the set of its count of stones. It learned from self-play alone:
no solver, no book.

The agent: the tactical filter the other agents share (``td_lambda.candidate_moves``: take a win, block a win,
never play under the opponent's winning cell), then a time-limited alpha-beta (``alphabeta.alphabeta_search``,
deepened while Kaggle's clock allows) whose evaluation at the depth cut is the learned value. ``choose`` is the
network alone: the candidate whose resulting position has the best learned value (no search). numpy only.

The weights: ``data/ntuple_6x7.npz`` (``write_network``/``read_network``): the tuples, and the tables as float16,
compressed (most entries are never visited and stay 0). On a board other than 6x7 four in a row the agent plays
the tactical filter and the most central candidate.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from .alphabeta import ConnectX, alphabeta_search
from .core import Config, Position
from .core.clock import MoveClock, move_deadline
from .core.resources import load_resource
from .heuristic_search.deepening import deepen
from .td_lambda import candidate_moves

ROWS, COLUMNS, STATES = 6, 7, 4
CELLS = ROWS * COLUMNS
EMPTY, FIRST, SECOND, PLAYABLE = 0, 1, 2, 3  # a cell's states (training/ntuple/tuples.py)
TIME_SHARE = 0.2  # of the act timeout: 0.4 s on Kaggle's 2 s, as alphabeta's
TIME_CEILING = 0.4
MAX_DEPTH = 42
# Bit b of the core's bitboards (column c owns bits 7c .. 7c + 5) for each cell column * 6 + row.
CELL_BITS = tuple(1 << (c * (ROWS + 1) + r) for c in range(COLUMNS) for r in range(ROWS))


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

    def values(self, states: np.ndarray) -> np.ndarray:
        """The first player's learned value of each position in ``states`` (positions x 42 cell states)."""
        powers = STATES ** np.arange(self.slot_cells.shape[1], dtype=np.int64)
        indices = (states[:, self.slot_cells] * powers).sum(axis=2) + self.slot_offsets
        stones = ((states == FIRST) | (states == SECOND)).sum(axis=1)
        indices += self.set_shifts[stones][:, None]
        return np.tanh(self.tables[indices].astype(np.float64).sum(axis=1))


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
                 sets: Sequence[int] | None = None) -> Network:
    """A network from its tuples (cells ``column * 6 + row``) and its tables (tuples x 4**length for each set of
    tables; ``sets``: the set each count of stones reads, as ``table_sets`` reads it)."""
    cells, table_of_slot = slots(tuples)
    offsets = table_of_slot * tables.shape[1]
    shifts = table_sets(tuples, tables, sets) * (len(tuples) * tables.shape[1])
    return Network(cells, offsets, np.ascontiguousarray(tables, dtype=np.float32).reshape(-1), training, shifts)


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
                  sets: Sequence[int] | None = None) -> bytes:
    """The weights file's bytes: the tuples, the tables as float16, the training record and (when given: one
    set, or the two sides', need none) the set of tables each count of stones reads, compressed."""
    arrays = {"tuples": np.array(tuples, dtype=np.int8), "tables": np.asarray(tables, dtype=np.float16),
              "training": np.frombuffer(json.dumps(training, sort_keys=True).encode("utf-8"), dtype=np.uint8)}
    if sets is not None:
        arrays["sets"] = np.asarray(sets, dtype=np.int8)
    return npz_bytes(arrays)


def read_network(blob: bytes) -> Network:
    """Decode a weights file (``write_network``'s bytes); raises ValueError when it is not one."""
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as data:
            tuples = data["tuples"].astype(np.int64)
            tables = data["tables"]
            training = json.loads(data["training"].tobytes().decode("utf-8"))
            sets = data["sets"].tolist() if "sets" in data.files else None
    except Exception as error:  # a zip, npz or JSON problem, whichever layer finds it
        raise ValueError(f"not an n-tuple weights file: {error}") from None
    if tuples.ndim != 2 or tables.shape[1:] != (STATES ** tuples.shape[1],) or not (
            (0 <= tuples).all() and (tuples < CELLS).all()):
        raise ValueError(f"not an n-tuple weights file: tuples {tuples.shape}, tables {tables.shape}")
    try:
        return network_from(tuples.tolist(), tables, training, sets)
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


def move_values(position: Position, columns: Sequence[int], network: Network) -> list[float]:
    """The learned value, for the player to move, of playing each of ``columns``: +1/0 by the rules when the move
    wins or fills the board, else the network's value of the position it leads to."""
    values: list[float | None] = []
    states = []
    for column in columns:
        if position.is_winning_move(column):
            values.append(1.0)
        elif position.moves + 1 == CELLS:
            values.append(0.0)
        else:
            values.append(None)
            states.append(cell_states(position.played(column)))
    learned = iter(network.values(np.array(states)).tolist()) if states else iter(())
    sign = 1.0 if position.moves % 2 == 0 else -1.0
    return [v if v is not None else sign * next(learned) for v in values]


def choose(position: Position, network: Network, rng: random.Random | None = None) -> int:
    """The network alone: the candidate (the tactical filter's) with the highest learned value; ties go to the most
    central column, or a random one of them with ``rng``."""
    moves = candidate_moves(position)
    if len(moves) == 1:
        return moves[0]
    values = dict(zip(moves, move_values(position, moves, network)))
    best = max(values.values())
    top = [c for c in position.geometry.center_order if c in values and values[c] >= best - 1e-12]
    return rng.choice(top) if rng is not None else top[0]


class LearnedConnectX(ConnectX):
    """The alpha-beta game with the learned value at the depth cut (the mover's view, in [-1, 1]; a win by the
    rules is ``ConnectX.WIN`` and more, so it always outweighs a learned value). At ``root`` the moves are
    ``root_moves`` only (the tactical filter's candidates)."""

    def __init__(self, config: Config, network: Network, root: Position | None = None,
                 root_moves: Sequence[int] = ()) -> None:
        super().__init__(config)
        self.network = network
        self.root, self.root_moves = root, list(root_moves)

    def actions(self, state: Position) -> list[int]:
        return self.root_moves if state is self.root else super().actions(state)

    def evaluate(self, state: Position, player: int) -> float:
        first_value = float(self.network.values(cell_states(state)[None, :])[0])
        return first_value if player == 0 else -first_value


def search(position: Position, network: Network, deadline: MoveClock) -> int:
    """The best candidate of the deepest alpha-beta over the learned values finished before ``deadline``; the
    network alone's choice when not even depth 1 finishes."""
    moves = candidate_moves(position)
    if len(moves) == 1:
        return moves[0]
    alone = choose(position, network)
    order = [alone] + [c for c in position.geometry.center_order if c in moves and c != alone]
    game = LearnedConnectX(position.config, network, position, order)

    def at_depth(depth: int, previous: Sequence[int]) -> tuple[list[int], float]:
        decision = alphabeta_search(game, position, depth, deadline, previous[0])
        return decision.actions, decision.value

    best, _ = deepen(at_depth, [alone], deadline, min(MAX_DEPTH, CELLS - position.moves),
                     decided=lambda value: abs(value) >= ConnectX.WIN)
    return alone if alone in best else best[0]


@lru_cache(maxsize=1)
def shipped_network() -> Network:
    return read_network(load_resource("ntuple_6x7.npz"))


def play(obs, config, network: Network, searching: bool = True) -> int:
    """The agent's move with ``network`` (6x7 four in a row; elsewhere the tactical filter's most central move)."""
    cfg = Config.from_kaggle(config)
    position = Position.from_kaggle(obs, cfg)
    if not cfg.is_standard:
        moves = candidate_moves(position)
        return int(next(c for c in position.geometry.center_order if c in moves))
    if not searching:
        return int(choose(position, network))
    return int(search(position, network, move_deadline(obs, config, TIME_SHARE, TIME_CEILING)))


def agent(obs, config):
    return play(obs, config, shipped_network())
