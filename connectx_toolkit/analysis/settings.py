"""How an analysis runs: ``AnalysisSettings`` (the search budget, the cache of solved positions, where the
annotated replays and the plot go, the engines, the workers, the progress bar).

One value for every door (``connectx analyze``, ``connectx match --analyze``, ``connectx ladder``, the board,
the Python API); it checks its own fields when it is made and raises ``UsageError`` (one line) for bad input,
as ``PlaySettings`` does for the games.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectx_toolkit.agents.core import Config
from connectx_toolkit.errors import UsageError

__all__ = ["AnalysisSettings", "DEFAULT_BUDGETS", "MAX_BUDGET", "NO_CACHE", "check_board", "default_budget"]

# CPU seconds per position when no budget is given. With the outcome table, only positions from ply 8 on are
# searched; the compiled solver settles nearly all of them at once and the few hard ones (docs/analysis.md)
# within this budget. The Python search cannot settle many positions at plies 8-11 in any budget, and each of
# them costs the whole budget, so it gets less.
DEFAULT_BUDGETS = {"compiled": 30.0, "python": 6.0}
MAX_BUDGET = 3600.0
NO_CACHE = "none"  # the cache path that means: keep no cache


def default_budget(compiled: bool) -> float:
    return DEFAULT_BUDGETS["compiled" if compiled else "python"]


@dataclass(frozen=True, kw_only=True)
class AnalysisSettings:
    """Every field is the command line's option of the same meaning, with the same default:

    - ``budget``: CPU seconds of search per position (``--analysis-budget``; None: :func:`default_budget`);
    - ``cache``: the SQLite file of solved positions (``--analysis-cache``; None: the default file,
      ``"none"``: no cache);
    - ``directory``: where the annotated replays and the PNG go (``--analysis-dir``; None: next to the games);
    - ``compiled_solver``: use the compiled solver when numba is installed (``--no-compiled-solver``: False);
    - ``outcome_table``: take positions up to ply 7 from the solved table (``--no-outcome-table``: False);
    - ``workers``: solver processes (``--workers``; None: all cores);
    - ``progress``: a progress bar on stderr (``--no-progress``: False).
    """

    budget: float | None = None
    cache: str | None = None
    directory: str | None = None
    compiled_solver: bool = True
    outcome_table: bool = True
    workers: int | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        """Each field's rule, once for every door; raises ``UsageError``."""
        if self.budget is not None and not (_number(self.budget) and 0 < self.budget <= MAX_BUDGET):
            raise UsageError(f"--analysis-budget must be > 0 and <= {MAX_BUDGET:g}, got {self.budget!r}")
        if self.workers is not None and not (type(self.workers) is int and self.workers >= 1):
            raise UsageError(f"--workers must be an integer >= 1, got {self.workers!r}")
        for name in ("cache", "directory"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, str) and value):
                raise UsageError(f"--analysis-{'dir' if name == 'directory' else name} must be a path, got {value!r}")


def check_board(config: Config, what: str = "--analyze") -> None:
    """``UsageError`` unless ``config`` is the board exact labels exist for: 6x7, four in a row."""
    if not config.is_standard:
        raise UsageError(f"{what}: exact labels exist only for 6x7, four in a row; this run is "
                         f"{config.rows}x{config.columns}, {config.inarow} in a row (no analysis of other boards)")


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
