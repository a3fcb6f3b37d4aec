"""The bitboard seed's line heuristic, generalised to any k: near-complete live lines, signed by owner.

A live window (no enemy stone in it) holding k-1 of a player's stones is worth 1/10, one holding
k-2 stones 1/100; the opponent's windows count the same with the opposite sign. On 6x7 this is the
seed's "three of a line 1/10, two of a line 1/100".
"""

from __future__ import annotations

from typing import Sequence

from .line_counts import line_counts

NEAR_LINE = 0.1  # k-1 stones in a live window
HALF_LINE = 0.01  # k-2 stones in a live window


def line_heuristic(own: int, opp: int, windows: Sequence[int], inarow: int) -> float:
    """Score of the stones ``own`` against ``opp``, from ``own``'s side (positive is good for ``own``)."""
    mine, theirs = line_counts(own, opp, windows, inarow)
    score = 0.0
    if inarow >= 2:
        score += NEAR_LINE * (mine[inarow - 1] - theirs[inarow - 1])
    if inarow >= 3:
        score += HALF_LINE * (mine[inarow - 2] - theirs[inarow - 2])
    return score
