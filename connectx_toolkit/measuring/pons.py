"""Pascal Pons' six public test sets, the field's yardstick for Connect 4 players, shipped as data.

Each set is 1,000 positions in Pons' notation with the position's exact score (``MOVES SCORE`` a line), from his
blog's test protocol (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/), as AlphaZero.jl keeps
them (``games/connect-four/benchmark/``; ``data/pons/README.md`` says where they come from and under what
licence). A set is named by the stage of the game (stones played: *begin* at most 14, *middle* 15-28, *end* more)
and its difficulty (moves left with perfect play: *easy* fewer than 14, *medium* 14-28, *hard* more):
``Test_L<stage>_R<difficulty>``.

AlphaZero.jl measures a player on them by its **error rate**: a move is an error when another move has a strictly
better outcome (win, draw or loss with perfect play) — the complement of ``connectx accuracy``'s outcome accuracy
on every position of the set. Its published figures (:attr:`PonsSet.alphazero`, :attr:`PonsSet.minimax`) are read
from its plot (``docs/src/assets/img/connect-four/pons-benchmark-results.png``; its text gives no numbers): its
AlphaZero agent after 15 training iterations, and its depth-5 minimax baseline.

``connectx accuracy AGENT --positions pons`` asks all six (``pons:begin-hard`` one of them; see
:func:`resolve_positions`); :func:`pons_error_rates` measures a move function in this process (the n-tuple
network alone, for instance), with no agent process and no clock.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from connectx_toolkit.agents.core import Position

__all__ = ["PONS", "PONS_DIR", "PONS_SETS", "PonsSet", "pons_error_rates", "pons_set", "resolve_positions"]

PONS = "pons"  # --positions pons: the six sets; pons:NAME one of them
PONS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pons")


@dataclass(frozen=True)
class PonsSet:
    """One of the six sets: ``name`` (as ``pons:NAME`` names it), Pons' ``file`` name, ``title`` as AlphaZero.jl's
    plot calls it, and its published error rates in %: ``alphazero`` (its agent, iteration 15) and ``minimax``
    (its depth-5 minimax baseline), both read from its plot."""

    name: str
    file: str
    title: str
    alphazero: float
    minimax: float

    @property
    def path(self) -> str:
        return os.path.join(PONS_DIR, self.file)


# AlphaZero.jl's order (its plot's panels: easy, medium, hard; begin, middle, end within each).
PONS_SETS = (
    PonsSet("begin-easy", "Test_L1_R1", "Beginning - Easy", 0.0, 1.7),
    PonsSet("middle-easy", "Test_L2_R1", "Middle - Easy", 0.0, 0.7),
    PonsSet("end-easy", "Test_L3_R1", "End - Easy", 0.0, 1.4),
    PonsSet("begin-medium", "Test_L1_R2", "Beginning - Medium", 2.0, 7.3),
    PonsSet("middle-medium", "Test_L2_R2", "Middle - Medium", 2.8, 9.2),
    PonsSet("begin-hard", "Test_L1_R3", "Beginning - Hard", 7.0, 23.5),
)


def pons_set(path: str) -> PonsSet | None:
    """The shipped set at ``path`` (None for any other file)."""
    real = os.path.realpath(path)
    return next((found for found in PONS_SETS if os.path.realpath(found.path) == real), None)


def resolve_positions(names: Sequence[str]) -> list[str]:
    """The files ``--positions`` names: ``pons`` is the six shipped sets (in AlphaZero.jl's order), ``pons:NAME``
    one of them (``pons:begin-hard``, or by Pons' file name, ``pons:Test_L1_R3``); anything else is a path, as
    given (``./pons`` reads a file of that name). An unknown ``pons:`` name raises ``UsageError``."""
    from connectx_toolkit.errors import UsageError

    files: list[str] = []
    for name in names:
        if name == PONS:
            files += [found.path for found in PONS_SETS]
        elif name.startswith(PONS + ":"):
            wanted = name[len(PONS) + 1:]
            found = next((s for s in PONS_SETS if wanted.lower() in (s.name, s.file.lower())), None)
            if found is None:
                raise UsageError(f"--positions {name}: no such Pons set; one of "
                                 f"{', '.join(PONS + ':' + s.name for s in PONS_SETS)} (or {PONS} for all six)")
            files.append(found.path)
        else:
            files.append(name)
    twice = sorted({os.path.realpath(f) for f in files if sum(os.path.realpath(g) == os.path.realpath(f)
                                                              for g in files) > 1})
    if twice:
        raise UsageError(f"--positions names {twice[0]} twice: each file is one section of the report")
    return files


def pons_error_rates(choose: Callable[[Position], int], sets: Sequence[str] = tuple(s.name for s in PONS_SETS), *,
                     sample: int | None = None, seed: int = 0, budget: float | None = None, cache: str | None = None,
                     workers: int = 1, agent: str = "agent") -> dict[str, dict[str, Any]]:
    """The error rate of ``choose`` (a function of the position, as ``agents.ntuple_engine.search.choose`` with its
    network) on each of Pons' sets named in ``sets``, asked in this process (``measuring.in_process``: no agent
    process, no clock), in AlphaZero.jl's sense (a move is an error when another has a strictly better outcome).

    The positions are labelled as ``connectx accuracy --positions`` labels them (``measuring.positions_file``:
    ``budget`` CPU seconds a column, the analysis ``cache`` file, on ``workers`` processes; a seeded ``sample`` of
    that many positions a set, the same as ``--sample N --seed S`` takes), and kept in this process for the next
    call. Returns ``{set name: {"positions", "errors", "error_rate", "low", "high", "left_out", "of", "sample",
    "alphazero", "minimax"}}``: the rate with its Wilson 95 % interval, the positions not labelled exactly within
    the budget (left out), the set's size, the sample (None: the whole set) and AlphaZero.jl's figures in %."""
    from connectx_toolkit.evaluation.reports.stats import wilson_interval
    from connectx_toolkit.measuring.in_process import answers_in_process

    figures: dict[str, dict[str, Any]] = {}
    for name in sets:
        found = next((s for s in PONS_SETS if s.name == name), None)
        if found is None:
            raise ValueError(f"no Pons set {name!r}: one of {', '.join(s.name for s in PONS_SETS)}")
        benchmark = _labelled(found.path, sample, seed, budget, cache, workers)
        answers = answers_in_process(choose, benchmark, agent)
        errors = sum(not answer.accurate for answer in answers)
        interval = wilson_interval(errors, len(answers)) if answers else None
        metadata = benchmark.metadata
        figures[name] = {"positions": len(answers), "errors": errors,
                         "error_rate": None if interval is None else interval.value,
                         "low": None if interval is None else interval.low,
                         "high": None if interval is None else interval.high,
                         "left_out": metadata["left_out"], "of": metadata["file_games"],
                         "sample": metadata.get("sample"), "alphazero": found.alphazero, "minimax": found.minimax}
    return figures


_LABELLED: dict[tuple, Any] = {}


def _labelled(path: str, sample: int | None, seed: int, budget: float | None, cache: str | None, workers: int) -> Any:
    """The set at ``path`` labelled (once a process for the same arguments)."""
    from connectx_toolkit.measuring.positions_file import DEFAULT_BUDGET, PositionsSettings, read_positions

    key = (path, sample, seed, budget, cache)
    if key not in _LABELLED:
        budget = budget or DEFAULT_BUDGET
        settings = PositionsSettings(budget=budget, cache=cache, early_budget=budget)
        _LABELLED[key] = read_positions(path, settings, sample=sample, seed=seed, workers=workers)
    return _LABELLED[key]
