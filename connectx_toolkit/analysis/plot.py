"""A PNG of the outcome-losing moves by ply, one bar series per agent, the ply bands shaded."""

from __future__ import annotations

from typing import Sequence

from connectx_toolkit.analysis.labelling import GameAnalysis
from connectx_toolkit.atomic import write_figure
from connectx_toolkit.analysis.summary import BANDS

__all__ = ["save_losing_moves_plot"]


def save_losing_moves_plot(analyses: Sequence[GameAnalysis], path: str) -> str:
    """Write the plot to ``path`` (whole or not at all) and return the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    names: list[str] = []
    for analysis in analyses:
        for name in analysis.game.agents:
            if name not in names:
                names.append(name)
    plies = list(range(BANDS[-1][1] + 1))
    counts = {name: [0] * len(plies) for name in names}
    moves = {name: 0 for name in names}
    for analysis in analyses:
        for label in analysis.moves:
            if label.agent is None:
                continue
            moves[label.agent] += 1
            if label.loses_outcome:
                counts[label.agent][label.ply] += 1
    figure, axes = plt.subplots(figsize=(9, 3.6), dpi=110)
    width = 0.8 / max(1, len(names))
    for index, name in enumerate(names):
        offsets = [ply - 0.4 + width * (index + 0.5) for ply in plies]
        total = sum(counts[name])
        axes.bar(offsets, counts[name], width, label=f"{name}: {total} of {moves[name]} moves")
    for number, (low, high) in enumerate(BANDS):
        if number % 2:
            axes.axvspan(low - 0.5, high + 0.5, color="0.93", zorder=0)
        axes.text((low + high) / 2, 1.0, f"plies {low}-{high}", ha="center", va="bottom",
                  transform=axes.get_xaxis_transform(), fontsize=8, color="0.35")
    axes.set_xlim(-0.5, plies[-1] + 0.5)
    axes.set_xlabel("ply (stones on the board before the move)")
    axes.set_ylabel("outcome-losing moves")
    locator = axes.yaxis.get_major_locator()
    if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
        locator.set_params(integer=True)
    axes.set_title(f"Moves that threw away a win or a draw, {len(analyses)} games", fontsize=10, pad=14)
    axes.legend(fontsize=8, loc="upper right")
    figure.tight_layout()
    return write_figure(figure, path)
