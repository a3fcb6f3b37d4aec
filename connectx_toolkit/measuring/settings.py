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
    replace the benchmark, or several (a tuple; each reported in its own section), ``pons`` for Pons' six test
    sets (``measuring.pons``), labelled by the solver within ``budget`` CPU seconds a column (``early_budget``
    for positions of fewer than 8 stones: by default 0.05 s, and ``budget`` for Pons' sets), ``cache`` its
    SQLite file, on ``workers`` processes; ``sample``: a seeded sample of that many games of each file (seeded by
    ``seed``); ``benchmark``: another benchmark file than the shipped one; ``games``: only the first ``games`` of its
    games; ``worst``: how many worst positions the report names; ``answers`` and ``plot``: where the JSON Lines
    of every answer and the PNG of accuracy by ply go (None: beside each other under results/);
    ``progress``: a bar of the games played. How the games are played is :class:`PlaySettings` (Kaggle's clock,
    the workers, the sandbox, the memory cap, the referee)."""

    agents: tuple[Any, ...] = ()
    positions: str | tuple[str, ...] | None = None
    benchmark: str | None = None
    games: int | None = None
    worst: int = DEFAULT_WORST
    answers: str | None = None
    plot: str | None = None
    budget: float | None = None
    early_budget: float | None = None
    cache: str | None = None
    sample: int | None = None
    progress: bool = True

    @property
    def position_files(self) -> tuple[str, ...]:
        """The files ``positions`` names (``pons`` and ``pons:NAME`` resolved: ``measuring.pons``)."""
        from connectx_toolkit.measuring.pons import resolve_positions

        if self.positions is None:
            return ()
        return tuple(resolve_positions((self.positions,) if isinstance(self.positions, str) else self.positions))

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.agents:
            raise UsageError("accuracy needs at least one AGENT")
        if (self.rows, self.columns, self.inarow) != (STANDARD.rows, STANDARD.columns, STANDARD.inarow):
            raise UsageError(f"there are no perfect labels for {self.rows}x{self.columns} boards with {self.inarow} in a "
                             "row: accuracy against perfect play is measured on 6x7, four in a row (use `connectx match` "
                             "or `connectx league` to compare agents on other boards)")
        if isinstance(self.positions, (list, tuple)):
            if not self.positions or not all(isinstance(path, str) and path for path in self.positions):
                raise UsageError(f"--positions must name files, got {self.positions!r}")
            object.__setattr__(self, "positions", tuple(self.positions))
        elif self.positions is not None and not (isinstance(self.positions, str) and self.positions):
            raise UsageError(f"--positions must name a file, got {self.positions!r}")
        if self.positions is not None and self.benchmark is not None:
            raise UsageError("--positions and --benchmark cannot be combined: the positions are one or the other")
        if self.sample is not None:
            if not (type(self.sample) is int and self.sample >= 1):
                raise UsageError(f"--sample must be an integer >= 1, got {self.sample!r}")
            if self.positions is None:
                raise UsageError("--sample takes a seeded sample of --positions' games: give --positions FILE (or "
                                 "use -n N for the benchmark's first N games)")
            if self.games is not None:
                raise UsageError("--sample and --games cannot be combined: a seeded sample or the first N games")
        if self.early_budget is not None and not (isinstance(self.early_budget, (int, float))
                                                  and not isinstance(self.early_budget, bool) and self.early_budget > 0):
            raise UsageError(f"--analysis-early-budget must be a number of seconds > 0, got {self.early_budget!r}")
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
