"""Every window of ``inarow`` consecutive cells, as bitmasks: the raw material of line heuristics."""

from __future__ import annotations

from functools import lru_cache

from .config import Config
from .position import geometry


@lru_cache(maxsize=64)
def windows(config: Config) -> tuple[int, ...]:
    """All horizontal, vertical and diagonal windows of ``inarow`` cells that fit on the board."""
    g = geometry(config)
    k, rows, columns = config.inarow, config.rows, config.columns
    result = []
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        for c in range(columns):
            for r in range(rows):
                end_c, end_r = c + dc * (k - 1), r + dr * (k - 1)
                if not (0 <= end_c < columns and 0 <= end_r < rows):
                    continue
                mask = 0
                for i in range(k):
                    mask |= g.bit(c + dc * i, r + dr * i)
                result.append(mask)
    # With k == 1 each direction yields the same single cells: keep each window once.
    return tuple(dict.fromkeys(result))

