"""Iterative deepening under a deadline: search depth 1, 2, 3, ... and keep the deepest finished answer."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..core.clock import MoveClock


# The next depth costs several times the last one; starting it with less time left than this
# multiple of the last depth's time would only waste the time it is sure not to finish in.
GROWTH = 3.0


def first_at_front(moves: list[Any], first: Any) -> list[Any]:
    """``moves`` with ``first`` (if among them) moved to the front: the last depth's best is searched first."""
    if first in moves:
        moves.remove(first)
        moves.insert(0, first)
    return moves


class OutOfTime(Exception):
    """Raised by a search when its deadline passes; the unfinished depth is discarded."""


def deepen(
    search: Callable[[int, Sequence[Any]], tuple[list[Any], float]],
    fallback: list[Any],
    deadline: MoveClock,
    max_depth: int,
    decided: Callable[[float], bool] = lambda value: False,
) -> tuple[list[Any], int]:
    """Run ``search(depth, previous_best)`` for depth = 1 .. ``max_depth`` while time allows.

    ``search`` returns the best actions at that depth and their value, or raises ``OutOfTime``.
    Returns the deepest finished depth's best actions and that depth; ``fallback`` and 0 if not even
    depth 1 finished. Stops early once ``decided(value)`` says deeper search cannot change the result.
    """
    best, reached = fallback, 0
    for depth in range(1, max_depth + 1):
        started = deadline.elapsed()
        try:
            best, value = search(depth, best)
        except OutOfTime:
            break
        reached = depth
        if decided(value) or (deadline.elapsed() - started) * GROWTH > deadline.remaining():
            break
    return best, reached
