"""The project's compiled Connect 4 (6x7, four in a row) solver, with numba.

Pascal Pons' algorithm: two uint64 bitboards (the core's bit layout: column c owns bits 7c..7c+5, bit
7c+6 is an always-empty sentinel), negamax with alpha-beta, a transposition table of upper and
lower bounds, null-window searches that narrow the score window (``solve``), moves that hand the
opponent an immediate win pruned, and moves ordered by the number of winning cells they create
(centre first on ties). Scores are on Pons' scale for the player to move: a win scores
(43 - stones on the board before the winning stone) // 2, a draw 0, a loss minus the winner's score.

The analysis solves positions with it when numba is installed (``analysis/solving.py``); the offline
builders in ``tools/`` and the benchmarks use it too. Agents and submissions never import it.

    from connectx_toolkit.analysis.fast_solver import Solver
    solver = Solver()
    solver.score_moves("4453")   # exact score of every column, None for a full one
"""

from __future__ import annotations

from typing import Iterator

import numpy as np
from numba import njit

WIDTH, HEIGHT = 7, 6
CELLS = WIDTH * HEIGHT
H1 = HEIGHT + 1
MIN_SCORE = -CELLS // 2 + 3  # -18: the best the loser can do is lose with its last but one stone
MAX_SCORE = (CELLS + 1) // 2 - 3  # 18
TABLE_SIZE = (1 << 23) + 9  # default entries (a prime: keys are reduced modulo it); 9 bytes each

BOTTOM = np.uint64(sum(1 << (c * H1) for c in range(WIDTH)))
BOARD = np.uint64(sum(((1 << HEIGHT) - 1) << (c * H1) for c in range(WIDTH)))
COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)


@njit(cache=True, inline="always")
def _column_mask(column):
    return np.uint64((1 << HEIGHT) - 1) << np.uint64(column * H1)


@njit(cache=True, inline="always")
def _top_mask(column):
    return np.uint64(1) << np.uint64(HEIGHT - 1 + column * H1)


@njit(cache=True, inline="always")
def _popcount(m):
    count = 0
    while m:
        m &= m - np.uint64(1)
        count += 1
    return count


@njit(cache=True)
def _winning_cells(position, mask):
    """Empty cells that would complete four in a row for the stones in ``position``."""
    p = position
    r = (p << np.uint64(1)) & (p << np.uint64(2)) & (p << np.uint64(3))  # vertical
    r |= _line_ends(p, np.uint64(H1))  # horizontal
    r |= _line_ends(p, np.uint64(H1 - 1))  # diagonal /
    r |= _line_ends(p, np.uint64(H1 + 1))  # diagonal \\
    return r & (BOARD ^ mask)


@njit(cache=True, inline="always")
def _line_ends(p, s):
    """Cells that complete three stones of ``p`` along the direction of shift ``s`` (gaps included)."""
    pair = (p << s) & (p << (s + s))
    r = pair & ((p << (s + s + s)) | (p >> s))
    pair = (p >> s) & (p >> (s + s))
    return r | (pair & ((p << s) | (p >> (s + s + s))))


@njit(cache=True, inline="always")
def _possible(mask):
    return (mask + BOTTOM) & BOARD


@njit(cache=True)
def _non_losing_moves(current, mask):
    """Playable cells that do not let the opponent win at once (0 if every move loses): a compiled copy
    of ``agents.core.position.Position.non_losing_moves`` (tests/agents/test_core.py checks they agree)."""
    possible = _possible(mask)
    opponent_win = _winning_cells(current ^ mask, mask)
    forced = possible & opponent_win
    if forced:
        if forced & (forced - np.uint64(1)):
            return np.uint64(0)  # two threats at once: cannot block both
        possible = forced
    return possible & ~(opponent_win >> np.uint64(1))  # never play just below an opponent's cell


@njit(cache=True)
def _can_win_next(current, mask):
    return (_winning_cells(current, mask) & _possible(mask)) != 0


@njit(cache=True)
def _negamax(current, mask, plies, alpha, beta, keys, values, nodes, order):
    """Score of a position whose player to move cannot win at once, within (alpha, beta)."""
    nodes[0] += 1
    candidates = _non_losing_moves(current, mask)
    if candidates == 0:
        return -((CELLS - plies) // 2)  # the opponent wins with its next stone
    if plies >= CELLS - 2:
        return 0  # nobody can win any more
    lowest = -((CELLS - 2 - plies) // 2)
    if alpha < lowest:
        alpha = lowest
        if alpha >= beta:
            return alpha
    highest = (CELLS - 1 - plies) // 2
    key = current + mask
    slot = key % np.uint64(keys.shape[0])
    if keys[slot] == key and values[slot] != 0:  # 0 marks an empty slot (key 0 is the empty board)
        stored = np.int64(values[slot])
        if stored > MAX_SCORE - MIN_SCORE + 1:  # a lower bound
            bound = stored + 2 * MIN_SCORE - MAX_SCORE - 2
            if alpha < bound:
                alpha = bound
                if alpha >= beta:
                    return alpha
        else:  # an upper bound
            bound = stored + MIN_SCORE - 1
            if beta > bound:
                beta = bound
                if alpha >= beta:
                    return beta
    if beta > highest:
        beta = highest
        if alpha >= beta:
            return beta

    # Order the moves: most winning cells created first, centre first on ties (insertion sort of
    # score * 8 + 7 - centre rank, in row ``plies`` of ``order``: no allocation in the search).
    count = 0
    for i in range(WIDTH):
        move = candidates & _column_mask(COLUMN_ORDER[i])
        if move:
            sort_key = _popcount(_winning_cells(current | move, mask)) * 8 + 7 - i
            j = count
            while j > 0 and order[plies, j - 1] < sort_key:
                order[plies, j] = order[plies, j - 1]
                j -= 1
            order[plies, j] = sort_key
            count += 1

    for i in range(count):
        move = candidates & _column_mask(COLUMN_ORDER[7 - (order[plies, i] & 7)])
        child_mask = mask | move
        score = -_negamax(current ^ mask, child_mask, plies + 1, -beta, -alpha, keys, values, nodes, order)
        if score >= beta:
            keys[slot] = key
            values[slot] = np.int8(score + MAX_SCORE - 2 * MIN_SCORE + 2)
            return score
        if score > alpha:
            alpha = score
    keys[slot] = key
    values[slot] = np.int8(alpha - MIN_SCORE + 1)
    return alpha


@njit(cache=True, inline="always")
def _half_toward_zero(x):
    return -((-x) // 2) if x < 0 else x // 2


@njit(cache=True)
def _next_window(low, high):
    """Where the next null window goes while the score is known to lie in [low, high]: the middle, or
    half the bound on its side when that is further from zero (Pons' choice)."""
    middle = low + (high - low) // 2
    if middle <= 0 and _half_toward_zero(low) < middle:
        middle = _half_toward_zero(low)
    elif middle >= 0 and _half_toward_zero(high) > middle:
        middle = _half_toward_zero(high)
    return middle


@njit(cache=True)
def _solve(current, mask, plies, keys, values, nodes, order):
    """Exact score of a position (not already won) by null-window searches narrowing the window."""
    if _can_win_next(current, mask):
        return (CELLS + 1 - plies) // 2
    low = -((CELLS - plies) // 2)
    high = (CELLS + 1 - plies) // 2
    while low < high:
        middle = _next_window(low, high)
        result = _negamax(current, mask, plies, middle, middle + 1, keys, values, nodes, order)
        if result <= middle:
            high = result
        else:
            low = result
    return low


@njit(cache=True)
def _score_moves(current, mask, plies, keys, values, nodes, order, out):
    """``out[c]`` = exact score of playing column c; -1000 for a full column."""
    wins = _winning_cells(current, mask)
    for column in range(WIDTH):
        if mask & _top_mask(column):
            out[column] = -1000
            continue
        move = (mask + (np.uint64(1) << np.uint64(column * H1))) & _column_mask(column)
        if move & wins:
            out[column] = (CELLS + 1 - plies) // 2
        elif plies + 1 == CELLS:
            out[column] = 0
        else:
            out[column] = -_solve(current ^ mask, mask | move, plies + 1, keys, values, nodes, order)


@njit(cache=True)
def _best_move(current, mask, plies, keys, values, nodes, order):
    """(column, score): a move of exact best score, the most central one among equals."""
    wins = _winning_cells(current, mask)
    for i in range(WIDTH):  # winning at once is the fastest possible win
        column = COLUMN_ORDER[i]
        if not mask & _top_mask(column):
            move = (mask + (np.uint64(1) << np.uint64(column * H1))) & _column_mask(column)
            if move & wins:
                return column, (CELLS + 1 - plies) // 2
    best_column, best_score = -1, -1000
    for i in range(WIDTH):
        column = COLUMN_ORDER[i]
        if mask & _top_mask(column):
            continue
        move = (mask + (np.uint64(1) << np.uint64(column * H1))) & _column_mask(column)
        if plies + 1 == CELLS:
            score = 0
        elif best_column < 0:
            score = -_solve(current ^ mask, mask | move, plies + 1, keys, values, nodes, order)
        else:
            # Only "is it better than the best so far?" matters: one null-window search answers
            # it, and the exact score is needed only when it is better.
            child = _negamax(current ^ mask, mask | move, plies + 1, -best_score - 1, -best_score,
                             keys, values, nodes, order) if not _can_win_next(current ^ mask, mask | move) else 1000
            if -child <= best_score:
                continue
            score = -_solve(current ^ mask, mask | move, plies + 1, keys, values, nodes, order)
        if score > best_score:
            best_column, best_score = column, score
    return best_column, best_score


def parse_moves(moves: str) -> tuple[int, int, int]:
    """(current, mask, plies) after Pons' move string (1-based digits); ValueError if illegal."""
    current = mask = 0
    for plies, char in enumerate(moves.strip()):
        column = ord(char) - ord("1")
        if not 0 <= column < WIDTH or mask >> (HEIGHT - 1 + column * H1) & 1:
            raise ValueError(f"illegal move {char!r} at ply {plies} of {moves!r}")
        current ^= mask
        mask |= mask + (1 << (column * H1))
    return current, mask, len(moves.strip())


class Solver:
    """A Pons solver with its own transposition table (9 bytes an entry), reused across calls."""

    def __init__(self, table_size: int = TABLE_SIZE) -> None:
        if table_size < 1:
            raise ValueError("the table needs at least one entry")
        self.keys = np.zeros(table_size, dtype=np.uint64)
        self.values = np.zeros(table_size, dtype=np.int8)
        self._nodes = np.zeros(1, dtype=np.int64)
        self._order = np.zeros((CELLS, WIDTH), dtype=np.int64)  # move ordering scratch, a row per ply

    @property
    def nodes(self) -> int:
        """Nodes searched since this solver was made (or ``reset``)."""
        return int(self._nodes[0])

    def reset(self) -> None:
        """Forget the transposition table and the node count."""
        self.keys[:] = 0
        self.values[:] = 0
        self._nodes[0] = 0

    def score_moves_bitboards(self, current: int, mask: int, plies: int) -> list[int | None]:
        out = np.zeros(WIDTH, dtype=np.int64)
        _score_moves(np.uint64(current), np.uint64(mask), plies, self.keys, self.values, self._nodes, self._order, out)
        return [None if s == -1000 else int(s) for s in out]

    def score_moves(self, moves: str) -> list[int | None]:
        """Exact score of every column after ``moves`` (Pons' notation); None for a full column."""
        return self.score_moves_bitboards(*parse_moves(moves))

    def best_move_bitboards(self, current: int, mask: int, plies: int) -> tuple[int, int]:
        column, score = _best_move(np.uint64(current), np.uint64(mask), plies, self.keys, self.values, self._nodes, self._order)
        return int(column), int(score)

    def best_move(self, moves: str) -> tuple[int, int]:
        """(0-based column, exact score) of the best move, the most central among equals."""
        return self.best_move_bitboards(*parse_moves(moves))

    def outcome_bitboards(self, current: int | np.uint64, mask: int | np.uint64, plies: int, at_least: int = -1) -> int:
        """1 (win), 0 (draw) or -1 (loss) for the player to move in a position not already won.

        Two null-window searches at most (is it a win? is it a loss?) instead of the exact score's
        many; with ``at_least`` (an outcome known not to be beaten, e.g. from a parent's value) the
        searches it settles are skipped. Driven from Python: a cached compiled caller of the
        recursive ``_negamax`` crashed when numba loaded it back from its cache.
        """
        current, mask = np.uint64(current), np.uint64(mask)
        if at_least >= 1 or _can_win_next(current, mask):
            return 1
        if _negamax(current, mask, plies, 0, 1, self.keys, self.values, self._nodes, self._order) > 0:
            return 1
        if at_least == 0:
            return 0
        return -1 if _negamax(current, mask, plies, -1, 0, self.keys, self.values, self._nodes, self._order) < 0 else 0

    def outcome_with_move_bitboards(self, current: int | np.uint64, mask: int | np.uint64, plies: int,
                                    at_least: int = -1) -> tuple[int, int | None]:
        """(outcome, a column keeping it or None): the null-window questions of :meth:`outcome_bitboards`,
        asked here at the root one column at a time, in ``_negamax``'s own order (threats created, centre
        first on ties), so the column that answers "yes" is known at no extra cost: the root's loop is the
        same search. None where no question found it: a win known from ``at_least`` (nothing was asked), a
        draw known from ``at_least = 0`` once "is it a win?" says no, and a loss (every column loses)."""
        current, mask = np.uint64(current), np.uint64(mask)
        wins = _winning_cells(current, mask) & _possible(mask)
        if wins:
            return 1, next(int(c) for c in COLUMN_ORDER if wins & _column_mask(c))
        if at_least >= 1:
            return 1, None
        columns = self._root_order(current, mask)
        if not columns:
            return -1, None
        if plies >= CELLS - 2:
            return 0, columns[0][0]
        # Is it a win? Some column leaves the opponent below 0. Else, is it a draw? Some column leaves it at 0.
        column = self._keeping(current, mask, plies, columns, 1)
        if column is not None:
            return 1, column
        if at_least == 0:
            return 0, None
        column = self._keeping(current, mask, plies, columns, 0)
        return (-1, None) if column is None else (0, column)

    def move_keeping_bitboards(self, current: int | np.uint64, mask: int | np.uint64, plies: int, outcome: int) -> int:
        """A column keeping a win (``outcome`` 1) or a draw (0) known beforehand: the one question that
        finds it, column by column at the root (as :meth:`outcome_with_move_bitboards` asks it)."""
        current, mask = np.uint64(current), np.uint64(mask)
        wins = _winning_cells(current, mask) & _possible(mask)
        if wins and outcome == 1:
            return next(int(c) for c in COLUMN_ORDER if wins & _column_mask(c))
        columns = self._root_order(current, mask)
        column = columns[0][0] if columns and plies >= CELLS - 2 else self._keeping(current, mask, plies, columns, outcome)
        if column is None:
            raise ValueError(f"no column keeps the outcome {outcome}: the outcome is wrong")
        return column

    def _root_order(self, current, mask) -> list[tuple[int, np.uint64]]:
        """(column, move bit) of the columns that do not lose at once, in ``_negamax``'s order."""
        candidates = _non_losing_moves(current, mask)
        keyed = []
        for rank, column in enumerate(COLUMN_ORDER):
            move = candidates & _column_mask(column)
            if move:
                keyed.append((_popcount(_winning_cells(current | move, mask)) * 8 + 7 - rank, int(column), move))
        keyed.sort(reverse=True)
        return [(column, move) for _, column, move in keyed]

    def _keeping(self, current, mask, plies: int, columns: list[tuple[int, np.uint64]], target: int) -> int | None:
        """The first column whose position leaves the opponent at most ``-target`` (the root's null-window
        question "is the score at least ``target``?", one child at a time), or None."""
        for column, move in columns:
            child = -_negamax(current ^ mask, mask | move, plies + 1, -target, -target + 1,
                              self.keys, self.values, self._nodes, self._order)
            if child >= target:
                return column
        return None

    def outcome_and_move_bitboards(self, current: int | np.uint64, mask: int | np.uint64, plies: int, at_least: int = -1) -> tuple[int, int]:
        """(outcome, column): the outcome for the player to move and the most central move that keeps
        it, or column -1 for a lost position (every move keeps a loss); ``at_least`` as for
        :meth:`outcome_bitboards`."""
        outcome = self.outcome_bitboards(current, mask, plies, at_least)
        if outcome < 0:
            return outcome, -1
        current, mask = np.uint64(current), np.uint64(mask)
        wins = _winning_cells(current, mask)
        for column in COLUMN_ORDER:
            if mask & _top_mask(column):
                continue
            move = (mask + (np.uint64(1) << np.uint64(column * H1))) & _column_mask(column)
            if move & wins:
                return outcome, int(column)  # only a win can be kept by winning at once
            child_current, child_mask = current ^ mask, mask | move
            if plies + 1 == CELLS:
                return outcome, int(column)  # the last cell: a draw
            if _can_win_next(child_current, child_mask):
                continue  # the opponent wins at once
            # Kept if the child's value for the opponent is at most -outcome: one null window around it.
            if _negamax(child_current, child_mask, plies + 1, -outcome, -outcome + 1,
                        self.keys, self.values, self._nodes, self._order) <= -outcome:
                return outcome, int(column)
        raise AssertionError("no move keeps the outcome")

    def outcome(self, moves: str) -> int:
        """1 (win), 0 (draw) or -1 (loss) for the player to move after ``moves`` (game not over)."""
        return self.outcome_bitboards(*parse_moves(moves))

    def solve_steps(self, moves: str) -> Iterator[tuple[int, int]]:
        """The exact search of ``solve`` one null window at a time, the outcome class first: yields the
        bounds (low, high) proven so far after each window, the last time with low == high (the exact
        score). The first windows ask "is it a win?" and "is it a loss?", so a caller that is stopped
        early still keeps the class when that much was proven; then the window narrows as in ``solve``.
        """
        current, mask, plies = parse_moves(moves)
        current, mask = np.uint64(current), np.uint64(mask)
        if _can_win_next(current, mask):
            score = (CELLS + 1 - plies) // 2
            yield score, score
            return
        low, high = -((CELLS - plies) // 2), (CELLS + 1 - plies) // 2
        for middle in (0, -1):  # score > 0 (a win)? then score > -1 (not a loss)?
            if low <= middle < high:
                low, high = self._window(current, mask, plies, middle, low, high)
                yield low, high
        while low < high:
            low, high = self._window(current, mask, plies, _next_window(low, high), low, high)
            yield low, high

    def _window(self, current, mask, plies: int, middle: int, low: int, high: int) -> tuple[int, int]:
        """The bounds after one null-window search: is the score above ``middle``?"""
        result = int(_negamax(current, mask, plies, middle, middle + 1, self.keys, self.values, self._nodes, self._order))
        return (low, result) if result <= middle else (result, high)

    def solve(self, moves: str) -> int:
        """Exact score of the position after ``moves`` for the player to move (game not over)."""
        current, mask, plies = parse_moves(moves)
        return int(_solve(np.uint64(current), np.uint64(mask), plies, self.keys, self.values, self._nodes, self._order))
