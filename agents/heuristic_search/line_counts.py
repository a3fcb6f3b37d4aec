"""How many k-cell windows each player still owns alone, by the number of stones in them.

A window (``agents.core.lines.windows``) that holds stones of both players can never become a line:
it is dead. Every line heuristic in the project is a weighted count of the live windows, so they
all start from this histogram.
"""

from __future__ import annotations

from typing import Sequence


def line_counts(own: int, opp: int, windows: Sequence[int], inarow: int) -> tuple[list[int], list[int]]:
    """Histograms ``(own_counts, opp_counts)`` over the windows.

    ``own_counts[n]`` (n >= 1) is the number of windows holding exactly ``n`` of ``own``'s stones and
    none of ``opp``'s; ``opp_counts[n]`` likewise for ``opp``. Index 0 of both is the number of empty
    windows (a window with no stones is "0 own stones, rest empty" for either player).
    """
    own_counts = [0] * (inarow + 1)
    opp_counts = [0] * (inarow + 1)
    for window in windows:
        mine = own & window
        theirs = opp & window
        if mine:
            if not theirs:
                own_counts[mine.bit_count()] += 1
        elif theirs:
            opp_counts[theirs.bit_count()] += 1
        else:
            own_counts[0] += 1
    opp_counts[0] = own_counts[0]
    return own_counts, opp_counts
