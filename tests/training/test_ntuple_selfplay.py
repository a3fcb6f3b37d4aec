"""The compiled self-play learns as its docstring says: a plain-Python reference of the same algorithm (move choice,
tactics, exploration, the three ``explore_target`` modes, TD(λ) traces cut at the horizon, TCL-EXP step sizes)
played from the same seed ends with the same weights, with one stage of the game and with two, with threat tables
and without, and with the moves not played learning their lookahead (``siblings``). The reference takes the game's
rules from the core's ``Position``, the tuples' values from the kernels' sums (their equality with the agent's
values is ``test_ntuple_rules.py``'s) and the threat tables' entries from the agent's ``threat_entries`` (the
kernel's equality with it is ``test_ntuple_threats.py``'s), so that both see the same ties."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("numba")

from connectx_toolkit.agents import ntuple as agent  # noqa: E402
from connectx_toolkit.agents.core import Position  # noqa: E402
from connectx_toolkit.training.ntuple import tuples as tp  # noqa: E402
from connectx_toolkit.training.ntuple.network import make_layout, moved_sum, table_sum  # noqa: E402
from connectx_toolkit.training.ntuple.trainer import NTupleSettings  # noqa: E402
from connectx_toolkit.training.ntuple.selfplay import below, play_episodes, seeded_state, uniform  # noqa: E402
from connectx_toolkit.training.ntuple.threats import THREAT_SIZE  # noqa: E402

ROWS, COLUMNS, CELLS = tp.ROWS, 7, tp.CELLS
ALPHA, LAM, HORIZON, BETA, EPSILON = 0.5 / 140, 0.5, 4, 2.7, 0.4


def opponent_wins_next(position: Position) -> bool:
    return any(position.is_winning_move(c) for c in position.legal_moves())


def height(position: Position, column: int) -> int:
    return bin(position.mask >> (column * (ROWS + 1)) & ((1 << ROWS) - 1)).count("1")


def threat_entries(position: Position, threat_base: int | None) -> list[int]:
    """The position's threat-table entries (none without threat tables)."""
    if threat_base is None:
        return []
    first = position.current if position.moves % 2 == 0 else position.current ^ position.mask
    return [e + threat_base for e in agent.threat_entries(first, position.mask, position.moves)]


def reference_episode(weights, coherence_sum, coherence_size, state, layout, set_shifts, explore_target,
                      threat_base=None, siblings=0.0):
    """One self-play game and its learning, written out plainly; ``weights`` and the TCL sums change in place;
    with ``threat_base``, the threat tables start that many entries on; with ``siblings``, at that share of the
    moves the moves not played and not decided by the rules learn their one-ply lookahead."""

    def learn(trace: list, error: float) -> None:
        # TD(λ): the newest position first, λ**age times its gradient, at most HORIZON positions back.
        for age, (entries, gradient) in enumerate(reversed(trace[-HORIZON:])):
            step = error * LAM ** age * gradient
            for entry in entries:
                rate = ALPHA
                if coherence_size[entry] > 0.0:
                    rate = ALPHA * math.exp(BETA * (abs(coherence_sum[entry]) / coherence_size[entry] - 1.0))
                weights[entry] += rate * step
                coherence_sum[entry] += step
                coherence_size[entry] += abs(step)

    def value_of(entries) -> float:
        return math.tanh(sum(weights[e] for e in entries))

    change = np.zeros(layout.slots, dtype=np.int64)

    def scores_of(position: Position, indices: np.ndarray) -> tuple[dict, set, set]:
        """Each legal move's value for the mover, the losing moves and the moves the rules decide."""
        moves = position.moves
        sign = 1.0 if moves % 2 == 0 else -1.0
        shift = set_shifts[moves + 1]  # the set the positions one move on read
        total = table_sum(weights, layout.slot_offsets, indices, shift)
        scores, losing, decided = {}, set(), set()
        for column in position.legal_moves():
            child = position.played(column)
            decided.add(column)
            if position.is_winning_move(column):
                scores[column] = 1.0
            elif moves + 1 == CELLS:
                scores[column] = 0.0
            elif opponent_wins_next(child):
                scores[column] = -1.0
                losing.add(column)
            else:
                decided.discard(column)
                cell = column * ROWS + height(position, column)
                above = cell + 1 if cell % ROWS + 1 < ROWS else -1
                moved = moved_sum(weights, layout.slot_offsets, indices, total, cell, 1 if sign > 0 else 2, above,
                                  layout.cell_slots, layout.cell_powers, change, shift)
                if threat_base is not None:
                    moved += sum(weights[e] for e in threat_entries(child, threat_base))
                scores[column] = sign * math.tanh(moved)
        return scores, losing, decided

    def played_indices(position: Position, indices: np.ndarray, column: int) -> np.ndarray:
        """The slots' indices after ``column``: its cell takes the mover's colour, the cell above becomes playable."""
        indices = indices.copy()
        cell = column * ROWS + height(position, column)
        above = cell + 1 if cell % ROWS + 1 < ROWS else -1
        for k in range(layout.cell_slots.shape[1]):
            if layout.cell_slots[cell, k] >= 0:
                indices[layout.cell_slots[cell, k]] += (1 + position.moves % 2 - 3) * layout.cell_powers[cell, k]
            if above >= 0 and layout.cell_slots[above, k] >= 0:
                indices[layout.cell_slots[above, k]] += 3 * layout.cell_powers[above, k]
        return indices

    def entries_of(position: Position, indices: np.ndarray) -> np.ndarray:
        return np.concatenate([set_shifts[position.moves] + layout.slot_offsets + indices,
                               np.array(threat_entries(position, threat_base), dtype=np.int64)])

    position, indices, trace = Position(), layout.empty_indices.copy(), []
    for moves in range(CELLS):
        sign = 1.0 if moves % 2 == 0 else -1.0  # the mover's view of the first player's value
        scores, losing, decided = scores_of(position, indices)
        best, best_score, ties = -1, -2.0, 0
        for column, score in scores.items():  # ascending columns, ties broken as the kernel does
            if score > best_score:
                best, best_score, ties = column, score, 1
            elif score == best_score:
                ties += 1
                if below(state, ties) == 0:
                    best = column
        greedy = sign * best_score
        exploring = uniform(state) < EPSILON
        column = best
        if exploring:
            choices = [c for c in scores if c not in losing] or list(scores)
            column = choices[below(state, len(choices))]
            if explore_target == 2 and column == best:
                exploring = False
        if siblings > 0.0 and uniform(state) < siblings:
            for other in sorted(set(scores) - decided - {column}):
                # The position after a move not played learns the best of its own moves for its mover.
                child, child_indices = position.played(other), played_indices(position, indices, other)
                entries = entries_of(child, child_indices)
                value = value_of(entries)
                target = -sign * max(scores_of(child, child_indices)[0].values())
                learn([(entries, 1.0 - value * value)], target - value)
        won = position.is_winning_move(column)
        next_indices = played_indices(position, indices, column)
        position.play(column)
        lost = not won and moves + 1 < CELLS and opponent_wins_next(position)
        if won or lost or moves + 1 == CELLS:
            target = sign if won else -sign if lost else 0.0
            if exploring and explore_target == 2:
                target = greedy
            elif exploring and explore_target == 1:
                trace = trace[-1:]
            if trace:
                learn(trace, target - value_of(trace[-1][0]))
            return
        indices = next_indices
        entries = entries_of(position, indices)
        value = value_of(entries)
        target = value
        if exploring:
            if explore_target == 2:
                target = greedy
            else:
                trace = trace[-1:] if explore_target == 1 else []
        if trace:
            learn(trace, target - value_of(trace[-1][0]))
            value = value_of(entries)
        if exploring and explore_target == 2:
            trace = []
        trace.append((entries.copy(), 1.0 - value * value))


@pytest.mark.parametrize("explore_target, stages, threats, siblings", [
    (0, 1, False, 0.0), (1, 1, False, 0.0), (2, 1, False, 0.0), (2, 2, False, 0.0), (2, 1, True, 0.0),
    (0, 2, True, 0.0), (2, 1, True, 0.5)])
def test_the_compiled_self_play_learns_as_the_plain_reference_does(explore_target, stages, threats, siblings):
    layout = make_layout()
    sets = NTupleSettings(stages=stages).table_sets()
    set_shifts = sets * (layout.tables * tp.TABLE_SIZE)
    tuple_size = (int(sets.max()) + 1) * layout.tables * tp.TABLE_SIZE
    size = tuple_size + (THREAT_SIZE if threats else 0)
    compiled = [np.zeros(size) for _ in range(3)]
    generator = seeded_state(7)
    play_episodes(*compiled, generator, 60, 0, ALPHA, ALPHA, 1, LAM, HORIZON, BETA, EPSILON, EPSILON, 1,
                  explore_target, True, layout.slot_offsets, set_shifts, layout.cell_slots, layout.cell_powers,
                  layout.empty_indices, np.zeros(3, dtype=np.int64), threats, tuple_size, siblings)
    reference = [np.zeros(size) for _ in range(3)]
    state = seeded_state(7)
    for _ in range(60):
        reference_episode(*reference, state, layout, set_shifts, explore_target, tuple_size if threats else None,
                          siblings)
    assert state[0] == generator[0]  # the same random draws: the same games
    assert np.count_nonzero(compiled[0]) > 1000
    assert np.count_nonzero(compiled[0][tuple_size:]) > (100 if threats else -1)
    for ours, theirs in zip(compiled, reference):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
