"""What an accuracy run is asked to do (``connectx accuracy`` and ``connectx_toolkit.measuring()``), checked once
for every door: a bad value is one ``UsageError`` line (exit 2 from the command line)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connectx_toolkit.agents.core import Config
from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.settings import PlaySettings

__all__ = ["AccuracySettings", "DEFAULT_WORST"]

DEFAULT_WORST = 10
STANDARD = Config()


@dataclass(frozen=True, kw_only=True)
class AccuracySettings(PlaySettings):
    """``agents``: anything a match takes (a module in agents/, a file, a folder, a bundle, a callable, a
    built-in). ``positions``: a results file, a Kaggle episode JSON or a file of move strings whose positions
    replace the benchmark (labelled by the solver within ``budget`` CPU seconds a column, ``cache`` its SQLite
    file); ``benchmark``: another benchmark file than the shipped one; ``games``: only the first ``games`` of its
    games; ``worst``: how many worst positions the report names; ``answers`` and ``plot``: where the JSON Lines
    of every answer and the PNG of accuracy by ply go (None: beside each other under results/);
    ``progress``: a bar of the games played. How the games are played is :class:`PlaySettings` (Kaggle's clock,
    the workers, the sandbox, the memory cap, the referee)."""

    agents: tuple[Any, ...] = ()
    positions: str | None = None
    benchmark: str | None = None
    games: int | None = None
    worst: int = DEFAULT_WORST
    answers: str | None = None
    plot: str | None = None
    budget: float | None = None
    cache: str | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.agents:
            raise UsageError("accuracy needs at least one AGENT")
        if (self.rows, self.columns, self.inarow) != (STANDARD.rows, STANDARD.columns, STANDARD.inarow):
            raise UsageError(f"there are no perfect labels for {self.rows}x{self.columns} boards with {self.inarow} in a "
                             "row: accuracy against perfect play is measured on 6x7, four in a row (use `connectx match` "
                             "or `connectx league` to compare agents on other boards)")
        if self.positions is not None and self.benchmark is not None:
            raise UsageError("--positions and --benchmark cannot be combined: the positions are one or the other")
        if self.games is not None and not (type(self.games) is int and self.games >= 1):
            raise UsageError(f"--games must be an integer >= 1, got {self.games!r}")
        if not (type(self.worst) is int and self.worst >= 0):
            raise UsageError(f"--worst must be an integer >= 0, got {self.worst!r}")
        if self.budget is not None and not (isinstance(self.budget, (int, float)) and self.budget > 0):
            raise UsageError(f"--analysis-budget must be a number of seconds > 0, got {self.budget!r}")
        names = [agent for agent in self.agents if isinstance(agent, str)]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise UsageError(f"agent {twice[0]} is given twice: each agent's answers are compared by its name")
