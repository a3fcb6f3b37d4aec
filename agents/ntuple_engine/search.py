"""The n-tuple player: the network alone, and its search on Kaggle's clock.

The tactical filter the other agents share (``td_lambda.candidate_moves``: take a win, block a win, never play
under the opponent's winning cell), then a time-limited negamax alpha-beta (``LearnedSearch``, deepened while
Kaggle's clock allows) whose evaluation at the depth cut is the learned value (``network.py``). ``choose`` is the
network alone: the candidate whose resulting position has the best learned value (no search). On a board other
than 6x7 four in a row the player plays the tactical filter and the most central candidate. numpy only.
"""

from __future__ import annotations

import math
import random
from typing import Sequence

import numpy as np

from ..alphabeta import ConnectX
from ..core import Config, Position
from ..core.clock import MoveClock, move_deadline
from ..heuristic_search.deepening import OutOfTime, deepen
from ..td_lambda import candidate_moves
from .network import CELLS, ROWS, Network, cell_states

# Half of the act timeout, 1 s on Kaggle's 2 s: the rest is the margin for a slower machine (the deadline is the
# agent's own wall clock, checked every 256 nodes), and the bank is never touched. The learned values' errors are
# the long game's, which depth reaches: at 0.4 s (alphabeta's budget) 4 errors in 100 of Pons' Middle-Medium, at
# 1 s 0 and 1 in two runs (docs/agents.md).
TIME_SHARE = 0.5
TIME_CEILING = 1.0
MAX_DEPTH = 42
WIN = ConnectX.WIN  # a win by the rules: this plus the empty cells left after it


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


class LearnedSearch:
    """Negamax alpha-beta over the core's bitboards with the learned value at the depth cut.

    A node's value, for its player to move: a win by the rules when that player can win at once (``WIN`` plus
    the empty cells left after it, so sooner wins are worth more); a draw when one move fills the board; a loss by
    the rules when every move hands the opponent a win (``Position.non_losing_moves`` is empty); at the depth cut
    the learned value (in [-1, 1], so any result of the rules outweighs it); else the best of its children over
    the non-losing moves only. The slots' indices are carried down the tree: a move changes only the slots that
    read its cell and the cell above it (``Network.move_deltas``), and the children of a node one ply above the
    cut are valued in one numpy call. A transposition table keeps each position's bound at each depth and its
    best move, searched first next time.
    """

    EXACT, LOWER, UPPER = 0, 1, 2

    def __init__(self, network: Network, position: Position, deadline: MoveClock | None = None) -> None:
        self.network, self.deadline = network, deadline
        self.geometry = position.geometry
        self.deltas = network.move_deltas
        self.table: dict[int, tuple[int, int, float, int]] = {}  # key -> (depth, bound, value, best column)
        self.nodes = 0

    def rules(self, current: int, mask: int, moves: int) -> tuple[float | None, int, tuple[int, int]]:
        """The node's value when the rules decide it (else None), its non-losing moves (a bitmask) and, when it is
        undecided, both players' winning cells (the first player's, then the second's; else zeros): its threat
        entries read them rather than compute them again."""
        g = self.geometry
        possible = (mask + g.bottom) & g.board
        own = g.winning_cells(current, mask)
        if own & possible:
            return WIN + CELLS - moves - 1, 0, (0, 0)
        if moves + 1 >= CELLS:
            return 0.0, 0, (0, 0)
        # Inlined for speed: a copy of Position.non_losing_moves (tests/agents/test_core.py checks they agree).
        threats = g.winning_cells(current ^ mask, mask)
        forced = possible & threats
        if forced:
            possible = 0 if forced & (forced - 1) else forced  # two threats cannot both be blocked
        candidates = possible & ~(threats >> 1)
        if not candidates:
            return -(WIN + CELLS - moves - 2), 0, (0, 0)
        return None, candidates, ((own, threats) if moves % 2 == 0 else (threats, own))

    def leaves(self, moves: int, indices: np.ndarray, boards: list[tuple[int, ...]]) -> np.ndarray:
        """The learned values of positions of ``moves + 1`` stones (rows of slot indices; their bitboards: the
        first player's stones and all stones, then both players' winning cells), for the player who made the last
        move."""
        return self.network.first_values(indices, moves + 1, boards) * (1.0 if moves % 2 == 0 else -1.0)

    def value(self, current: int, mask: int, moves: int, indices: np.ndarray, depth: int, alpha: float,
              beta: float) -> float:
        """The node's value for its player to move (fail-soft: outside (alpha, beta) a bound of it)."""
        self.nodes += 1
        if self.deadline is not None and not self.nodes & 255 and self.deadline.expired():
            raise OutOfTime
        ruled, candidates, wins = self.rules(current, mask, moves)
        if ruled is not None:
            return ruled
        if depth == 0:
            first = current if moves % 2 == 0 else current ^ mask
            return -float(self.leaves(moves - 1, indices[None, :], [(first, mask, *wins)])[0])
        key = current + mask
        entry = self.table.get(key)
        if entry is not None and entry[0] == depth:
            _, bound, stored, _ = entry
            if bound == self.EXACT or (bound == self.LOWER and stored >= beta) or (
                    bound == self.UPPER and stored <= alpha):
                return stored
        first = entry[3] if entry is not None else -1  # the best move found before, searched first
        order = [c for c in [first] + list(self.geometry.center_order)
                 if c >= 0 and candidates & self.geometry.column_masks[c]]
        order = list(dict.fromkeys(order))
        g, colour, opponent = self.geometry, moves % 2, current ^ mask
        cells = [self.cell(mask, column) for column in order]
        if depth == 1:  # every child is a leaf: value them all at once
            children = [mask | (mask + g.bottom_masks[c]) for c in order]  # each child's stones
            values: list[float | None] = []
            wins = []
            for child in children:
                ruled, _, child_wins = self.rules(opponent, child, moves + 1)
                values.append(None if ruled is None else -ruled)
                wins.append(child_wins)
            learned = [k for k, v in enumerate(values) if v is None]
            if learned:
                rows = indices[None, :] + self.deltas[colour, [cells[k] for k in learned]]
                boards = [(current | (children[k] ^ mask) if colour == 0 else opponent, children[k], *wins[k])
                          for k in learned]
                for k, v in zip(learned, self.leaves(moves, rows, boards).tolist()):
                    values[k] = v
            known = [float(v) for v in values if v is not None]  # every child valued now, by the rules or learned
            best = max(known)
            column = order[known.index(best)]
        else:
            best, column, low = -math.inf, order[0], alpha
            for c, cell in zip(order, cells):
                v = -self.value(opponent, mask | (mask + g.bottom_masks[c]), moves + 1, indices + self.deltas[
                    colour, cell], depth - 1, -beta, -low)
                if v > best:
                    best, column = v, c
                    low = max(low, v)
                    if low >= beta:
                        break
        bound = self.LOWER if best >= beta else self.UPPER if best <= alpha else self.EXACT
        self.table[key] = (depth, bound, float(best), column)
        return float(best)

    def cell(self, mask: int, column: int) -> int:
        """The cell (``column * 6 + row``) a stone dropped into ``column`` lands on."""
        return column * ROWS + self.geometry.move_bit(mask, column).bit_length() - 1 - column * self.geometry.height

    def root(self, position: Position, moves: Sequence[int], depth: int) -> tuple[list[int], float]:
        """Every one of ``moves`` whose value at ``depth`` plies is the best, and that value (the root's window
        kept just below the best, so that ties are computed exactly)."""
        g = self.geometry
        indices = self.network.indices(cell_states(position))
        best, best_moves = -math.inf, []
        for column in moves:
            if position.is_winning_move(column):
                v = WIN + CELLS - position.moves - 1
            else:
                v = -self.value(position.current ^ position.mask,
                                position.mask | (position.mask + g.bottom_masks[column]), position.moves + 1,
                                indices + self.deltas[position.moves % 2, self.cell(position.mask, column)],
                                depth - 1, -math.inf, -(best - 1e-9))
            if v > best:
                best, best_moves = v, [column]
            elif v == best:
                best_moves.append(column)
        return best_moves, best


def search(position: Position, network: Network, deadline: MoveClock) -> int:
    """The best candidate of the deepest search (``LearnedSearch``) finished before ``deadline``; the network
    alone's choice when not even depth 1 finishes (or among equally good moves)."""
    moves = candidate_moves(position)
    if len(moves) == 1:
        return moves[0]
    alone = choose(position, network)
    searcher = LearnedSearch(network, position, deadline)

    def at_depth(depth: int, previous: Sequence[int]) -> tuple[list[int], float]:
        order = [previous[0]] + [c for c in [alone] + list(position.geometry.center_order)
                                 if c in moves and c != previous[0]]
        return searcher.root(position, list(dict.fromkeys(order)), depth)

    best, _ = deepen(at_depth, [alone], deadline, min(MAX_DEPTH, CELLS - position.moves),
                     decided=lambda value: abs(value) >= WIN)
    return alone if alone in best else best[0]


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
