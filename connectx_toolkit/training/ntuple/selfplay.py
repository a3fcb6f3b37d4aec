"""The self-play games the n-tuple network learns from, compiled with numba: whole episodes in one call.

Both players are the one network: the first player moves to the position of highest value, the second to the
lowest (ties broken at random), a position that ends the game valued by the rules (+1, -1, 0), not the network.
With ``tactics`` the rules look one ply further, as the agent's tactical filter does at play time: a move that
leaves the opponent a win on its next move is valued as that loss, and a position whose mover can win at once ends
the game with that win. With probability ε a move is instead a random legal column (with ``tactics``, one that
does not lose at once, when there is one): an exploring move. After each greedy move the previous position's
value moves toward the new position's (after the last move, toward the game's result); an exploring move cuts
the eligibility traces (Thill et al. 2014: its position says nothing about the greedy player's). What the
positions before it learn is ``explore_target``'s: nothing (0); the explored position's value, the one position
the move was chosen in only (1); or the value of the move the greedy player would have made (2: Watkins'
Q(λ), the whole trace learns the greedy target, then is cut), so that a position is never taught the value of a
random move. With ``threats`` each position's value also sums its eight threat-table entries (``threats.py``),
the tables starting ``threat_base`` entries on. With ``siblings`` p, at a share p of the moves (drawn after the
move is chosen) the other moves the rules do not decide teach their own positions, positions the self-play does
not go to, their one-ply lookahead (``lookahead_update``), before the move is played.

Randomness is the kernels' own generator (xorshift64*), its one-word state kept in an array: a checkpoint holds
it, and the same seed gives the same games and the same weights, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import rules
from .network import apply_move, entries_sum, moved_sum, table_sum, td_update
from .threats import THREAT_SLOTS, threat_entries

ROWS, COLUMNS, CELLS = rules.ROWS, rules.COLUMNS, rules.CELLS


def seeded_state(seed: int) -> np.ndarray:
    """The generator's state for ``seed`` (splitmix64 of it: never the all-zero state xorshift cannot leave)."""
    mask = (1 << 64) - 1
    z = (seed * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@njit
def uniform(state):
    """A float in [0, 1) from the generator's state (advanced)."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return float((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def below(state, n):
    """An integer in [0, n)."""
    return min(int(uniform(state) * n), n - 1)


@njit
def position_entries(offsets, indices, shift, first, mask, stones, threats, threat_base, entries):
    """The flat entry numbers a position's value sums, into ``entries``: its slots' (``indices`` in the table set
    that starts ``shift`` entries on), then with ``threats`` its threat entries (the first player's stones
    ``first``, all ``mask``, ``stones`` of them)."""
    slots = offsets.shape[0]
    for slot in range(slots):
        entries[slot] = shift + offsets[slot] + indices[slot]
    if threats:
        threat_entries(first, mask, stones, threat_base, entries, slots)


@njit
def move_values(weights, offsets, indices, total, shift, first, mask, moves, heights, tactics, threats, threat_base,
                cell_slots, cell_powers, change, scratch, values, losing, decided):
    """Every legal move's value from the position of ``moves`` stones (the first player's stones ``first``, all
    ``mask``, the columns' ``heights``; its slots' ``indices``, whose sum is ``total`` in the set of the positions
    one move on, ``shift``), the first player's view, into ``values``: a move that wins or fills the board valued by
    the rules; with ``tactics`` a move that leaves the opponent a win on its next move valued as that loss
    (``losing``); else the network's value of the position it leads to (``decided`` 0, 1 for the rules' values).
    Returns the number of legal moves and of those not losing."""
    first_to_move = moves % 2 == 0
    colour = 1 if first_to_move else 2
    mover = first if first_to_move else first ^ mask
    other = mask ^ mover
    legal = 0
    safe = 0
    for column in range(COLUMNS):
        losing[column] = 0
        decided[column] = 1
        if not rules.can_play(mask, column):
            continue
        legal += 1
        bit = rules.move_bit(mask, column)
        if rules.has_four(mover | bit):
            value = 1.0 if first_to_move else -1.0
        elif moves + 1 == CELLS:
            value = 0.0
        elif tactics and rules.wins_now(other, mask | bit):
            value = -1.0 if first_to_move else 1.0
            losing[column] = 1
        else:
            decided[column] = 0
            row = heights[column]
            cell = column * ROWS + row
            above = cell + 1 if row + 1 < ROWS else -1
            moved = moved_sum(weights, offsets, indices, total, cell, colour, above, cell_slots, cell_powers, change,
                              shift)
            if threats:
                threat_entries(first | bit if first_to_move else first, mask | bit, moves + 1, threat_base, scratch,
                               0)
                moved += entries_sum(weights, scratch)
            value = np.tanh(moved)
        values[column] = value
        safe += 1 - losing[column]
    return legal, safe


@njit
def lookahead_update(weights, coherence_sum, coherence_size, offsets, set_shifts, indices, first, mask, moves,
                     heights, column, tactics, threats, threat_base, cell_slots, cell_powers, change, scratch, alpha,
                     beta, child_indices, child_entries, child_values, child_flags):
    """The position after ``column`` (a move the self-play did not make from the position of ``moves`` stones, not
    decided by the rules) learns its own one-ply lookahead: its value moves toward the best of its moves for its
    own mover, valued as ``move_values`` values them, one TD step at TCL's step size (no trace)."""
    first_to_move = moves % 2 == 0
    colour = 1 if first_to_move else 2
    bit = rules.move_bit(mask, column)
    child_first = first | bit if first_to_move else first
    child_mask = mask | bit
    row = heights[column]
    cell = column * ROWS + row
    above = cell + 1 if row + 1 < ROWS else -1
    child_indices[:] = indices
    apply_move(child_indices, cell, colour, above, cell_slots, cell_powers)
    position_entries(offsets, child_indices, set_shifts[moves + 1], child_first, child_mask, moves + 1, threats,
                     threat_base, child_entries)
    value = np.tanh(entries_sum(weights, child_entries))
    next_shift = set_shifts[moves + 2]
    total = table_sum(weights, offsets, child_indices, next_shift)
    heights[column] += 1
    move_values(weights, offsets, child_indices, total, next_shift, child_first, child_mask, moves + 1, heights,
                tactics, threats, threat_base, cell_slots, cell_powers, change, scratch, child_values, child_flags[0],
                child_flags[1])
    heights[column] -= 1
    child_mover_first = not first_to_move
    best = -2.0
    for move in range(COLUMNS):
        if rules.can_play(child_mask, move):
            best = max(best, child_values[move] if child_mover_first else -child_values[move])
    target = best if child_mover_first else -best
    gradient = np.full(1, 1.0 - value * value)
    td_update(weights, coherence_sum, coherence_size, child_entries.reshape(1, -1), gradient, 0, 1, target - value,
              alpha, 0.0, 1, beta)


@njit
def play_episodes(weights, coherence_sum, coherence_size, state, episodes, first_episode, alpha_start, alpha_end,
                  alpha_episodes, lam, horizon, beta, epsilon_start, epsilon_end, epsilon_episodes, explore_target,
                  tactics, offsets, set_shifts, cell_slots, cell_powers, empty_indices, results, threats=False,
                  threat_base=0, siblings=0.0):
    """Play and learn from ``episodes`` self-play games, the first being game number ``first_episode`` (0-based,
    for the exploration schedule). A position with n stones reads the table set that starts ``set_shifts[n]``
    entries on. ``results`` (3 counts) gains the first player's wins, the second's, draws."""
    slots = offsets.shape[0]
    width = slots + THREAT_SLOTS if threats else slots  # a position's entries: its slots', then its threats'
    history = np.zeros((CELLS, width), dtype=np.int64)
    scratch = np.zeros(THREAT_SLOTS, dtype=np.int64)
    gradients = np.zeros(CELLS)
    indices = np.zeros(slots, dtype=np.int64)
    change = np.zeros(slots, dtype=np.int64)
    heights = np.zeros(COLUMNS, dtype=np.int64)
    losing = np.zeros(COLUMNS, dtype=np.int64)
    decided = np.zeros(COLUMNS, dtype=np.int64)
    values = np.zeros(COLUMNS)
    child_indices = np.zeros(slots, dtype=np.int64)  # the lookahead's scratch: a move not played, its position
    child_entries = np.zeros(width, dtype=np.int64)
    child_values = np.zeros(COLUMNS)
    child_flags = np.zeros((2, COLUMNS), dtype=np.int64)
    for episode in range(first_episode, first_episode + episodes):
        fraction = min(1.0, episode / epsilon_episodes) if epsilon_episodes > 0 else 1.0
        epsilon = epsilon_start + (epsilon_end - epsilon_start) * fraction
        fraction = min(1.0, episode / alpha_episodes) if alpha_episodes > 0 else 1.0
        alpha = alpha_start * (alpha_end / alpha_start) ** fraction
        indices[:] = empty_indices
        first = np.uint64(0)
        mask = np.uint64(0)
        heights[:] = 0
        start = 0
        end = 0
        for moves in range(CELLS):
            first_to_move = moves % 2 == 0
            colour = 1 if first_to_move else 2
            mover = first if first_to_move else first ^ mask
            other = mask ^ mover
            shift = set_shifts[moves + 1]  # the set of the positions one move on
            total = table_sum(weights, offsets, indices, shift)
            # Every legal move's value, the first player's view (the rules', or the network's: ``move_values``).
            legal, safe = move_values(weights, offsets, indices, total, shift, first, mask, moves, heights, tactics,
                                      threats, threat_base, cell_slots, cell_powers, change, scratch, values, losing,
                                      decided)
            best = -1
            best_score = -2.0
            ties = 0
            for column in range(COLUMNS):
                if not rules.can_play(mask, column):
                    continue
                score = values[column] if first_to_move else -values[column]
                if score > best_score:
                    best, best_score, ties = column, score, 1
                elif score == best_score:
                    ties += 1
                    if below(state, ties) == 0:
                        best = column
            greedy = best_score if first_to_move else -best_score  # the greedy move's value, the first player's view
            exploring = uniform(state) < epsilon
            column = best
            if exploring:
                # With tactics, an exploring move is one that does not lose at once (when there is one).
                only_safe = tactics and safe > 0
                pick = below(state, safe if only_safe else legal)
                for c in range(COLUMNS):
                    if rules.can_play(mask, c) and (losing[c] == 0 or not only_safe):
                        if pick == 0:
                            column = c
                            break
                        pick -= 1
                if explore_target == 2 and column == best:
                    exploring = False  # it chose the greedy move: nothing to cut
            if siblings > 0.0 and uniform(state) < siblings:
                # The moves not played, and not decided by the rules, learn their own one-ply lookahead.
                for other_column in range(COLUMNS):
                    if other_column != column and decided[other_column] == 0:
                        lookahead_update(weights, coherence_sum, coherence_size, offsets, set_shifts, indices,
                                         first, mask, moves, heights, other_column, tactics, threats, threat_base,
                                         cell_slots, cell_powers, change, scratch, alpha, beta, child_indices,
                                         child_entries, child_values, child_flags)
            bit = rules.move_bit(mask, column)
            won = rules.has_four(mover | bit)
            row = heights[column]
            heights[column] += 1
            cell = column * ROWS + row
            above = cell + 1 if row + 1 < ROWS else -1
            if first_to_move:
                first |= bit
            mask |= bit
            # With tactics, a position whose mover can win at once ends the game: the rules' verdict.
            lost = not won and moves + 1 < CELLS and tactics and rules.wins_now(other, mask)
            if won or lost or moves + 1 == CELLS:
                reward = (1.0 if first_to_move else -1.0) if won else (-1.0 if first_to_move else 1.0) if lost else 0.0
                target = reward
                if exploring and explore_target == 2:
                    target = greedy
                elif exploring and explore_target == 1 and end > 0:
                    start = end - 1
                if end > start:
                    error = target - np.tanh(entries_sum(weights, history[end - 1]))
                    td_update(weights, coherence_sum, coherence_size, history, gradients, start, end, error, alpha,
                              lam, horizon, beta)
                if won or lost:
                    results[0 if first_to_move == won else 1] += 1
                else:
                    results[2] += 1
                break
            apply_move(indices, cell, colour, above, cell_slots, cell_powers)
            position_entries(offsets, indices, shift, first, mask, moves + 1, threats, threat_base, history[end])
            value = np.tanh(entries_sum(weights, history[end]))
            target = value
            if exploring:
                # The traces end here: the positions before say nothing of this one (explore_target: what the
                # positions before it learn first).
                if explore_target == 2:
                    target = greedy
                else:
                    start = end - 1 if explore_target == 1 and end > 0 else end
            if end > start:
                error = target - np.tanh(entries_sum(weights, history[end - 1]))
                td_update(weights, coherence_sum, coherence_size, history, gradients, start, end, error, alpha, lam,
                          horizon, beta)
                value = np.tanh(entries_sum(weights, history[end]))  # the update may have moved its entries
            if exploring and explore_target == 2:
                start = end
            gradients[end] = 1.0 - value * value
            end += 1
