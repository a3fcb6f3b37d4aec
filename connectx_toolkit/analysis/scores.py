"""The exact score of a 6x7 position, and of every column, as ``connectx solve`` prints them.

Scores are on Pascal Pons' scale for the player to move (:mod:`analysis.values`): 0 a draw, a win
``(43 - stones) // 2`` with the stones on the board before the winning one, the negative a loss. A
column's score is the score of playing it, for the player who plays it; the position's score is the best
column's. From the empty board the columns score -2 -1 0 1 0 -1 -2.

Where a value comes from, cheapest first:

0. a late position (22 stones or more; with every column, 21): the compiled solver, in this process, at once
   (a filter in the manner of Pons' solver: microseconds to milliseconds, less than any of what follows);
1. the rules: a win at once, a loss at once, a board that can only end in a draw (:func:`values.trivial_value`);
2. the scores of the opening book's 182,658 positions (:mod:`analysis.score_book`), which hold the early
   positions a search takes minutes on, and the on-disk cache of solved positions (:mod:`analysis.cache`);
3. one ply of look-ahead into those: a position every child of which the book or the cache knows (one the
   book's own move leads to, for instance) is the best of its children;
4. the outcome tables (plies 0-9: win, draw or loss, not the exact score), which bound the score;
5. a search: the compiled solver (numba), in a worker process kept from one position to the next, or the
   agent's Python exact search, with no limit by default, or ``budget`` CPU seconds per searched position.
   A search stopped at its budget leaves the bounds it proved (and the outcome tables' bounds): a
   :class:`~analysis.values.Value` that is not exact.

Positions on the opening book's lines are answered at once at any ply. Others from about ply 10 on take a
fraction of a second to a few seconds with the compiled solver; earlier ones off the book's lines can take
minutes each (a budget then gives their bounds, often the outcome class, instead).

>>> from connectx_toolkit.analysis.positions import parse_moves
>>> scorer = PositionScorer(SolveSettings(cache_path=None))
>>> [None if v is None else v.score for v in scorer.solve(parse_moves(""), every_column=True).columns]
[-2, -1, 0, 1, 0, -1, -2]
>>> scorer.solve(parse_moves("4444")).value.score
1
>>> scorer.close()
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.outcome_table import outcome_bounds

from connectx_toolkit.analysis.cache import PositionCache, default_cache_path
from connectx_toolkit.analysis.score_book import ScoreBook, load_score_book
from connectx_toolkit.analysis.settings import MAX_BUDGET
from connectx_toolkit.analysis.solving import WARM_UP, PositionSolver, compiled_solver_available
from connectx_toolkit.analysis.table import OutcomeTable
from connectx_toolkit.analysis.values import Value, score_range, trivial_value, win_score
from connectx_toolkit.analysis.workers import Job, SolverPool

if TYPE_CHECKING:
    from connectx_toolkit.analysis.fast_solver import Solver

__all__ = ["PositionScorer", "Solved", "SolveSettings"]

STANDARD = Config()
LONG_SEARCH_STONES = 10  # a search of fewer stones than this may take minutes (told to ``notice``)
# From this many stones on (20 empty cells or fewer), the compiled search of a position takes milliseconds at
# most (1,000 random positions: at 22 stones a median of 0.06 ms, a maximum of 25 ms; at 21 stones, 122 ms): the
# compiled solver answers it in this process at once, whatever the budget, in the manner of Pons' solver, with no
# worker, look-ahead, book or cache (each costs more than the search).
AT_ONCE_STONES = 22
LATE_TABLE_ENTRIES = (1 << 20) - 3  # a prime: 9 MB, plenty for positions of 20 empty cells or fewer
UNLIMITED_SECONDS = 7 * 86400.0  # the worker's budget when there is none (a wait longer than 24 days overflows poll)


@dataclass(frozen=True)
class SolveSettings:
    """How positions are solved; bad values raise ValueError with one line for the user.

    ``budget``: CPU seconds of search per searched position (with every column, per column), None for no
    limit. ``compiled``: the compiled solver when numba is installed (else the Python exact search).
    ``cache_path``: the SQLite file of solved positions (:mod:`analysis.cache`), None to keep them in memory
    only. ``outcome_table``: bound early positions by the outcome tables.
    """

    budget: float | None = None
    compiled: bool = True
    cache_path: str | None = default_cache_path()
    outcome_table: bool = True

    def __post_init__(self) -> None:
        if self.budget is not None and not (isinstance(self.budget, (int, float)) and 0 < self.budget <= MAX_BUDGET):
            raise ValueError(f"the budget must be a number of seconds > 0 and <= {MAX_BUDGET:g}, got {self.budget!r}")

    @property
    def engine(self) -> str:
        """"compiled" or "python": the search that runs (the compiled solver only when numba is installed)."""
        return "compiled" if self.compiled and compiled_solver_available() else "python"


@dataclass(frozen=True)
class Solved:
    """A position's value and, when asked for, each column's (None for a full column)."""

    value: Value
    columns: tuple[Value | None, ...] | None = None


class PositionScorer:
    """Solves 6x7 positions one after another, keeping its engine, cache and tables between them."""

    def __init__(self, settings: SolveSettings, notice: Callable[[str], None] | None = None) -> None:
        """``notice``, if given, is told (one line) before a search with no budget that may take minutes."""
        self.settings = settings
        self.notice = notice
        self.engine = settings.engine
        self.searched = 0  # positions sent to a search
        self._limit = math.inf if settings.budget is None else settings.budget
        self._book: ScoreBook | None = load_score_book()
        self._table = OutcomeTable() if settings.outcome_table else None
        try:
            self._cache = PositionCache(settings.cache_path)
        except OSError as error:
            raise ValueError(f"analysis cache {settings.cache_path!r} is not usable: {error}") from None
        self._solver: PositionSolver | None = None  # the Python search, made on its first use
        self._compiled_loaded = False
        self._pool: SolverPool | None = None  # the compiled search's worker, kept from one position to the next
        self._late_solver: Solver | None = None  # the compiled search of late positions, in this process

    def solve(self, moves: Sequence[int], every_column: bool = False) -> Solved:
        """What can be proven about the position after ``moves`` (0-based columns of a 6x7 game not over,
        as :func:`analysis.positions.parse_moves` gives them) within the settings: its value and, with
        ``every_column``, each column's."""
        moves = tuple(moves)
        try:
            position = Position.from_moves(moves, STANDARD)
        except ValueError as error:
            raise ValueError(f"not a 6x7 game: {error}") from None
        if position.last_player_won() or position.is_full():
            raise ValueError("the game is over: there is nothing to solve")
        if self.engine == "compiled" and position.moves + every_column >= AT_ONCE_STONES:
            return self._solved_at_once(moves, every_column)
        if every_column:
            solved = self._every_column(position, moves)
        else:
            value = self._settled(position)
            if self._worth_searching(position, value):
                value = self._search([(position, moves)])[0]
            solved = Solved(value)
        self._cache.commit()
        return solved

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        self._cache.close()

    def _every_column(self, position: Position, moves: tuple[int, ...]) -> Solved:
        columns: list[Value | None] = [None] * STANDARD.columns
        open_children: dict[int, tuple[Position, tuple[int, ...]]] = {}
        for column in position.legal_moves():
            if position.is_winning_move(column):
                columns[column] = Value.exact_score(win_score(position.moves), "trivial")
                continue
            child = position.played(column)
            value = self._settled(child)
            columns[column] = value.negated()
            if self._worth_searching(child, value):
                open_children[column] = (child, moves + (column,))
        if open_children:
            for column, value in zip(open_children, self._search(list(open_children.values()))):
                columns[column] = value.negated()
        known = [value for value in columns if value is not None]
        best = Value(max(v.low for v in known), max(v.high for v in known), "children",
                     timed_out=any(v.timed_out for v in known))
        return Solved(best.merged(self._settled(position)), tuple(columns))

    def _solved_at_once(self, moves: tuple[int, ...], every_column: bool) -> Solved:
        """A late position (``AT_ONCE_STONES``), searched here by the compiled solver: every column in one call."""
        if self._late_solver is None:
            from connectx_toolkit.analysis.fast_solver import Solver

            self._late_solver = Solver(LATE_TABLE_ENTRIES)
        text = "".join(str(column + 1) for column in moves)
        self.searched += 1
        if not every_column:
            return Solved(Value.exact_score(self._late_solver.solve(text), "compiled"))
        scores = self._late_solver.score_moves(text)
        columns = tuple(None if score is None else Value.exact_score(score, "compiled") for score in scores)
        return Solved(Value.exact_score(max(score for score in scores if score is not None), "compiled"), columns)

    def _load_compiled_code(self) -> None:
        """Load the compiled solver's machine code here, once: the forked workers then start with it (each
        would load it again, a second or so, on every kill at the budget)."""
        if not self._compiled_loaded:
            from connectx_toolkit.analysis.fast_solver import Solver

            Solver(table_size=1 << 10).solve(WARM_UP)
            self._compiled_loaded = True

    def _worth_searching(self, position: Position, value: Value) -> bool:
        """Not exact, and not left unsettled by an earlier search as long and as strong (the cache's rule)."""
        if value.exact:
            return False
        cached = self._cache.get(position.canonical_key(), self._limit, self.engine)
        return cached is None or cached.exact

    def _known(self, position: Position) -> Value | None:
        """The value the rules, the score book or the cache give at once (the cache's may be bounds)."""
        found = trivial_value(position)
        if found is not None:
            return found
        if self._book is not None:
            score = self._book.score(position)
            if score is not None:
                return Value.exact_score(score, "book")
        return self._cache.get(position.canonical_key(), self._limit, self.engine)

    def _settled(self, position: Position) -> Value:
        """Everything proven about ``position`` (not over) without a search: bounds, or the exact score."""
        found = self._known(position)
        if found is not None and found.exact:
            return found
        value = Value(*score_range(position.moves), "rules")
        if found is not None:
            value = value.merged(found)
        # Each child known bounds the position from below; every child known bounds it from above too.
        lows, highs, complete = [], [], True
        for column in position.legal_moves():
            child = position.played(column)
            child_value = self._known(child)  # a win at once was found by trivial_value above
            if child_value is None:
                complete = False
            else:
                lows.append(-child_value.high)
                highs.append(-child_value.low)
        if lows:
            value = value.merged(Value(max(lows), max(highs) if complete else value.high, "lookahead"))
        if self._table is not None and not value.exact:
            for bounds in self._table_bounds(position):
                value = value.merged(bounds)
        return value

    def _table_bounds(self, position: Position) -> list[Value]:
        """The outcome tables' bounds on ``position``: the analysis' ply-7 table (plies 0-7), the agent's
        ply-8 table (plies 8 and 9)."""
        found = []
        table = self._table.value(position) if self._table is not None else None
        if table is not None:
            found.append(table)
        outcomes = outcome_bounds(position)  # (low, high) on the outcome: -1, 0 or 1
        if outcomes is not None:
            low, high = score_range(position.moves)
            found.append(Value(low if outcomes[0] < 0 else outcomes[0], high if outcomes[1] > 0 else outcomes[1],
                               "table"))
        return found

    def _search(self, wanted: list[tuple[Position, tuple[int, ...]]]) -> list[Value]:
        """Search each (position, moves) in order, merged with what was proven without a search; cached."""
        stones = min(position.moves for position, _ in wanted)
        if self.notice is not None and self.settings.budget is None and stones < LONG_SEARCH_STONES:
            self.notice(f"searching {len(wanted)} position{'s' if len(wanted) > 1 else ''} off the opening book's "
                        f"lines from ply {stones}, with no time limit: this can take minutes")
        if self.engine == "compiled":
            # The compiled solver cannot watch a clock, nor a Ctrl-C: a worker process searches, killed at the
            # budget (with none, a Ctrl-C in this process still ends it at once). The worker lives on from one
            # position to the next, with its table: starting one (a fork, a table of 75 MB, the code's warm-up:
            # tens of milliseconds) cost more than most searches from ply 16 on.
            self._load_compiled_code()
            if self._pool is None:
                self._pool = SolverPool(1, True, self.settings.budget or UNLIMITED_SECONDS, keep_workers=True)
            jobs = [Job(position.canonical_key(), moves) for position, moves in wanted]
            answers: dict[int, Value] = {}
            self._pool.run([jobs], lambda job, value: answers.__setitem__(job.key, value), answers.__contains__)
            found = [answers[job.key] for job in jobs]
        else:
            if self._solver is None:  # the Python search watches its own clock, and a Ctrl-C
                self._solver = PositionSolver(compiled=False)
            found = [self._solver.solve(moves, self._limit) for _, moves in wanted]
        self.searched += len(wanted)
        values = [value.merged(self._settled(position)) for (position, _), value in zip(wanted, found)]
        for (position, _), value in zip(wanted, values):  # named after the search, the cache's rule of reuse
            self._cache.put(position.canonical_key(), Value(value.low, value.high, self.engine), self._limit)
        return values
