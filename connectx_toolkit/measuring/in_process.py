"""Accuracy of a move function on the game core, in this process: no agent process, no clock.

For what runs on the core anyway, as ``connectx train --evaluate``'s quick check and the TD(λ) learning curve
do: a function of the position (``choose(position) -> column``) is asked every labelled position directly, in
the benchmark's order. The judgement is the same as ``measuring.play``'s (``Answer``); what is not measured is
what only a process and Kaggle's clock show (loads, timeouts, crashes: an exception here is the caller's bug
and propagates). A deterministic function of the position gets the same answers either way.
"""

from __future__ import annotations

import time
from typing import Callable

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import Benchmark
from connectx_toolkit.agents.core import Position
from connectx_toolkit.analysis.positions import parse_position
from connectx_toolkit.outcomes import Outcome

__all__ = ["answers_in_process"]


def answers_in_process(choose: Callable[[Position], int], benchmark: Benchmark, agent: str = "agent") -> list[Answer]:
    """``choose``'s answer at every labelled position of ``benchmark``, timed with ``time.perf_counter``."""
    answers = []
    for position in benchmark.positions:
        board = parse_position(position.moves)
        started = time.perf_counter()
        column = choose(board)
        seconds = round(time.perf_counter() - started, 6)
        if position.legal(column):
            answers.append(Answer(agent, position, column, seconds))
        else:
            answers.append(Answer(agent, position, None, seconds, Outcome.INVALID,
                                  f"invalid move: returned {column!r}"))
    return answers
