"""The n-tuple network: its tables, its value of a position and its TD(λ) update with temporal coherence.

The value of a position is ``tanh(sum of the 140 slots' table entries)`` (70 tuples, each read on the board and
on its mirror image, ``tuples.py``): the first player's expected outcome, +1 a win, -1 a loss, 0 a draw; the
second player wants it low. A slot's entry is ``table[slot's tuple, slot's index]``, the tables stored as one
flat array, entry ``tuple * 65536 + index``. With side tables (GBG's: one set of tables for each player to move)
a position with an odd number of stones reads a second set, ``70 * 65536`` entries on (the kernels' ``shift``):
whose turn it is changes what a pattern is worth, and no 8-tuple can see it. With stages, each stage of the game
(by its count of stones) has its own set(s) as well (``NTupleSettings.table_sets``).

The kernels (numba, compiled at first call, no cache) keep a position's 140 slot indices and, to value the
positions one move away, change only the slots that read the two cells a move changes (the cell the stone
lands on, and the one above it, which becomes playable): about 50 of the 140.

The update is TD(λ) with eligibility traces kept as the list of the positions since the last reset (each with
its gradient ``1 - V²``), cut after ``horizon`` positions (GBG's horizon cut: λ**horizon is negligible). Each
entry's step size is temporal-coherence learning's (TCL, Beal & Smith 1999; its exponential form TCL-EXP,
Bagheri et al. 2015): with ``N`` the sum of the entry's recommended changes and ``A`` the sum of their sizes,
``α_i = α · exp(β (|N|/A - 1))`` (1 before the first change), so an entry whose changes keep one direction
learns at full speed and one that is pushed back and forth slows down.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from . import tuples as tp


@dataclass(frozen=True)
class Layout:
    """The tuples as arrays the kernels read (built once from ``tuples.TUPLES``)."""

    slot_cells: np.ndarray  # (slots, 8) the cells each slot reads
    slot_offsets: np.ndarray  # (slots,) the flat offset of each slot's table: tuple * 65536
    cell_slots: np.ndarray  # (42, most) the slots that read each cell, padded with -1
    cell_powers: np.ndarray  # (42, most) the cell's place value in that slot's index: 4**j
    empty_indices: np.ndarray  # (slots,) every slot's index on the empty board

    @property
    def slots(self) -> int:
        return len(self.slot_cells)

    @property
    def tables(self) -> int:
        return len(self.slot_cells) // 2


def make_layout(tuples: tuple[tuple[int, ...], ...] = tp.TUPLES) -> Layout:
    cells = tp.slot_cells(tuples)
    offsets = tp.slot_tables(tuples) * tp.TABLE_SIZE
    readers: list[list[tuple[int, int]]] = [[] for _ in range(tp.CELLS)]
    for slot, slot_cells in enumerate(cells):
        for j, cell in enumerate(slot_cells):
            readers[cell].append((slot, tp.STATES ** j))
    most = max(len(r) for r in readers)
    cell_slots = np.full((tp.CELLS, most), -1, dtype=np.int64)
    cell_powers = np.zeros((tp.CELLS, most), dtype=np.int64)
    for cell, found in enumerate(readers):
        for k, (slot, power) in enumerate(found):
            cell_slots[cell, k], cell_powers[cell, k] = slot, power
    empty = np.zeros(tp.CELLS, dtype=np.int64)
    empty[0::tp.ROWS] = tp.PLAYABLE  # the bottom row is playable
    return Layout(cells, offsets, cell_slots, cell_powers, slot_indices(empty, cells))


def slot_indices(states: np.ndarray, slot_cells: np.ndarray) -> np.ndarray:
    """Every slot's index for the cell states ``states`` (42 values), in numpy: ``sum(state * 4**j)``."""
    powers = tp.STATES ** np.arange(slot_cells.shape[1], dtype=np.int64)
    return (states[slot_cells] * powers).sum(axis=1).astype(np.int64)


@njit
def table_sum(weights, offsets, indices, shift):
    """The sum of the entries the slots read, in the table set that starts ``shift`` entries on."""
    total = 0.0
    for slot in range(indices.shape[0]):
        total += weights[shift + offsets[slot] + indices[slot]]
    return total


@njit
def entries_sum(weights, entries):
    total = 0.0
    for k in range(entries.shape[0]):
        total += weights[entries[k]]
    return total


@njit
def moved_sum(weights, offsets, indices, total, cell, colour, cell_above, cell_slots, cell_powers, change, shift):
    """The table sum after a stone of ``colour`` lands on ``cell`` (``cell_above``, or -1 at the top, becomes
    playable), from the sum ``total`` before, both in the table set that starts ``shift`` entries on; ``change``
    is a zeroed scratch array of one entry a slot, left zeroed."""
    for k in range(cell_slots.shape[1]):
        slot = cell_slots[cell, k]
        if slot < 0:
            break
        change[slot] += (colour - 3) * cell_powers[cell, k]  # PLAYABLE (3) -> FIRST (1) or SECOND (2)
    if cell_above >= 0:
        for k in range(cell_slots.shape[1]):
            slot = cell_slots[cell_above, k]
            if slot < 0:
                break
            change[slot] += 3 * cell_powers[cell_above, k]  # EMPTY (0) -> PLAYABLE (3)
    for c in (cell, cell_above):
        if c < 0:
            continue
        for k in range(cell_slots.shape[1]):
            slot = cell_slots[c, k]
            if slot < 0:
                break
            if change[slot] != 0:  # never 0 once touched: the two changes cannot cancel (powers of 4)
                base = shift + offsets[slot] + indices[slot]
                total += weights[base + change[slot]] - weights[base]
                change[slot] = 0
    return total


@njit
def apply_move(indices, cell, colour, cell_above, cell_slots, cell_powers):
    """Change ``indices`` in place as ``moved_sum`` values them."""
    for k in range(cell_slots.shape[1]):
        slot = cell_slots[cell, k]
        if slot < 0:
            break
        indices[slot] += (colour - 3) * cell_powers[cell, k]
    if cell_above >= 0:
        for k in range(cell_slots.shape[1]):
            slot = cell_slots[cell_above, k]
            if slot < 0:
                break
            indices[slot] += 3 * cell_powers[cell_above, k]


@njit
def td_update(weights, coherence_sum, coherence_size, history, gradients, start, end, error, alpha, lam, horizon,
              beta):
    """One TD(λ) step: move the values of the positions ``history[start:end]`` (flat entry numbers, one row a
    position, the latest last) by ``error`` times their eligibility (λ**age times the gradient ``1 - V²``),
    at most ``horizon`` positions back, each entry at its TCL-EXP step size (``beta`` 0: plain TD(λ))."""
    decay = 1.0
    oldest = max(start, end - horizon)
    for k in range(end - 1, oldest - 1, -1):
        step = error * decay * gradients[k]
        size = abs(step)
        for slot in range(history.shape[1]):
            entry = history[k, slot]
            rate = alpha
            if beta != 0.0:
                seen = coherence_size[entry]
                if seen > 0.0:
                    rate = alpha * np.exp(beta * (abs(coherence_sum[entry]) / seen - 1.0))
            weights[entry] += rate * step
            coherence_sum[entry] += step
            coherence_size[entry] += size
        decay *= lam
