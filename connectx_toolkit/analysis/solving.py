"""Solve one 6x7 position within a time budget, with the project's own solvers.

- the compiled solver (``analysis/fast_solver.py``, numba) when it is installed and not disabled:
  exact scores, fast; it cannot watch a clock, so the worker pool (:mod:`analysis.workers`) kills the
  process that runs it when the budget is spent. It searches one null window at a time, the outcome
  class first, and reports the bounds proven after each, so a killed search still leaves them;
- otherwise the agent's exact search (``ExactSolver.analyse`` in ``agents/solver_engine``), which stops at its
  deadline and returns what it proved: often the outcome class (it asks "is it a win? a draw?" first)
  even when the exact score took longer.

The budget is CPU time of the process that searches, not wall time: a position is solved, or not, the
same way on an idle machine and on a loaded one, so labels do not depend on what else is running.

Each engine keeps its transposition table from one position to the next, which is why the pool sends a
worker the positions of one game from the last to the first.
"""

from __future__ import annotations

import time
from typing import Callable

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.negamax import ExactSolver

from connectx_toolkit.analysis.values import Value, trivial_value

__all__ = ["PositionSolver", "compiled_solver_available"]

STANDARD = Config()
PYTHON_TABLE_ENTRIES = 1_000_000
WARM_UP = "2577713147446472141546176336233136"  # a quiet 34-stone position: solved at once


def compiled_solver_available() -> bool:
    """Is the compiled solver importable (numba installed)?"""
    try:
        import connectx_toolkit.analysis.fast_solver  # noqa: F401
    except ImportError:
        return False
    return True


class PositionSolver:
    """Exact values of 6x7 positions, one engine, tables kept between calls."""

    def __init__(self, compiled: bool) -> None:
        self.engine = "compiled" if compiled else "python"
        if compiled:
            from connectx_toolkit.analysis.fast_solver import Solver

            self._compiled = Solver()
            self._compiled.solve(WARM_UP)  # load the compiled code now, not on the first timed position
        else:
            self._exact = ExactSolver(STANDARD, table_capacity=PYTHON_TABLE_ENTRIES, clock=time.process_time)

    def solve(self, moves: tuple[int, ...], budget: float,
              report: Callable[[int, int], None] | None = None) -> Value:
        """What can be proven about the position after ``moves`` (not won) within ``budget`` CPU seconds.

        The compiled engine does not stop itself: it calls ``report(low, high)`` with the bounds proven
        after each null window, for the caller that stops it to keep.
        """
        position = Position.from_moves(moves, STANDARD)
        trivial = trivial_value(position)
        if trivial is not None:
            return trivial
        started = time.process_time()
        if self.engine == "compiled":
            for low, high in self._compiled.solve_steps("".join(str(c + 1) for c in moves)):
                if report is not None and low != high:
                    report(low, high)
            return Value.exact_score(low, "compiled", time.process_time() - started)
        result = self._exact.analyse(position, started + budget)
        seconds = time.process_time() - started
        return Value(result.low, result.high, "python", seconds, timed_out=result.low != result.high)
