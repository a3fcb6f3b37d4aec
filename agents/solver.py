"""solver: perfect Connect 4 in pure Python, and the same search with a heuristic on any other board.

Every move:
1. win at once if possible;
2. on the standard 6x7 board, play the opening book's move if the book knows the position; before
   ply 8 off the book's lines, the outcome book's move if the position is not lost (it keeps the win
   or the draw); at ply 8, the outcome table's move if it was packed with its moves;
3. keep the moves that do not let the opponent win at once; if only one is left, play it;
4. unless the position is too early to solve in time, ask the exact solver, with most of the time
   budget: is it a win? a draw? then the exact score (win soonest, lose latest). On 6x7 at plies
   8-9 the outcome table (:mod:`agents.solver_engine.outcome_table`) may know the outcome already,
   or a lower bound: then the solver only verifies a move that keeps it (one null-window question
   at the known value), and a position it proves lost is not hard;
5. if the exact solver ran out of time, search the moves it did not refute with iterative
   deepening and a heuristic evaluation until the budget is spent.
The time manager (:mod:`agents.solver_engine.time_manager`) sets the budget from ``actTimeout`` and the
overage bank: easy moves keep a short normal budget; a hard move (the exact search did not finish, more
than one move is still plausible and the position is not proven lost, or on 6x7 the books are silent
before the exact solver's range and the position is not proven lost, or elsewhere the heuristic search's
best move keeps changing) extends it to the act timeout less a margin plus a planned share of the bank.
The searches check the clock every few hundred nodes and always have a move ready; their tables persist
from one move of the game to the next.
"""

from __future__ import annotations

from .core import Config, Position
from .core.clock import MoveClock
from .solver_engine.opening_book import book_move, outcome_book_proves_lost, outcome_move
from .solver_engine.depth_search import DepthSearch
from .solver_engine.negamax import ExactSolver
from .solver_engine.outcome_table import outcome_bounds, table_move
from .solver_engine.time_manager import move_clock

EXACT_SHARE = 0.7  # of the budget, for the exact solver when the other search may be needed
# Try the exact solver once this few cells are left: on the standard board from ply 8 (earlier it
# never finishes in time, and the heuristic search is better off with the whole budget).
EXACT_EMPTY_CELLS_STANDARD = 34
EXACT_EMPTY_CELLS = 24

_engines: dict[Config, tuple[ExactSolver, DepthSearch]] = {}


def engines(config: Config) -> tuple[ExactSolver, DepthSearch]:
    """The searchers of one configuration; their tables persist for the whole game."""
    if config not in _engines:
        _engines[config] = (ExactSolver(config, table_capacity=1_000_000), DepthSearch(config))
    return _engines[config]


def most_central(position: Position, columns: list[int]) -> int:
    return min(columns, key=position.geometry.center_order.index)


def known_scores(position: Position) -> tuple[int, int] | None:
    """Bounds on the exact score of ``position`` that the outcome table proves, or None.

    A win is a score of at least 1, a draw 0, a loss at most -1; the other side stays open.
    """
    bounds = outcome_bounds(position)
    if bounds is None:
        return None
    low, high = bounds
    unbounded = position.geometry.rows * position.geometry.columns
    return (low if low >= 0 else -unbounded), (high if high <= 0 else unbounded)


def choose(position: Position, clock: MoveClock) -> int:
    """The column to play in ``position`` (not full, no line yet) within ``clock``'s budget.

    Easy moves keep the clock's normal budget; a hard one extends it (:meth:`MoveClock.extend`).
    """
    wins = position.immediate_wins()
    if wins:
        return most_central(position, wins)
    known = book_move(position)
    if known is None:
        known = outcome_move(position)  # early, off the book's lines: a move that keeps the outcome
    if known is None:
        known = table_move(position)  # at ply 8, from a table packed with its moves
    if known is not None:
        return known
    exact, deep = engines(position.config)
    columns = exact.non_losing_columns(position)
    if not columns:  # every move loses: block one threat and hope
        return most_central(position, position.opponent_threats() or position.legal_moves())
    if len(columns) == 1:
        return columns[0]
    empty_cells = position.geometry.rows * position.geometry.columns - position.moves
    if empty_cells <= (EXACT_EMPTY_CELLS_STANDARD if position.config.is_standard else EXACT_EMPTY_CELLS):
        bounds = known_scores(position)  # from the outcome table at plies 8-9: the search verifies, not solves
        lost = bounds is not None and bounds[1] < 0
        while True:  # once with the normal budget, once more if the move turns out hard
            analysis = exact.analyse(position, clock.phase_end(EXACT_SHARE), bounds)  # resumes from the table
            if analysis.best is not None and (analysis.finished or analysis.outcome_known()):
                return analysis.best
            columns = analysis.plausible()
            if len(columns) == 1:
                return columns[0]
            if lost:  # not hard: every move loses, so the bank is kept for later
                return deep.best_move(position, columns, clock.end)[0]
            if not clock.extensible:
                break
            clock.extend()  # hard: the exact search did not finish and the candidates' values disagree
    elif position.config.is_standard:
        if outcome_book_proves_lost(position):  # not hard: every move loses, so the bank is kept for later
            return deep.best_move(position, columns, clock.end)[0]
        clock.extend()  # hard: the books are silent in the early game
    column, _ = deep.best_move(position, columns, clock.end, hard_deadline=clock.hard_end)
    return column


def agent(obs, config):
    clock = move_clock(obs, config)
    return int(choose(Position.from_kaggle(obs, config), clock))
