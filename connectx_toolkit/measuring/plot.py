"""A PNG of accuracy by ply, one line per agent, the "all" set above and the "critical" set below.

Drawn from the agents' ``by_ply`` figures of the report (``measuring.scoring.agent_accuracy``), not from the
answers, so a report read back from its JSON draws the same plot. Where an agent's accuracy falls with the ply says what it lacks: early plies are
opening knowledge, late plies are tactics a deeper search would see.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from connectx_toolkit.measuring.benchmark import PHASES, SETS
from connectx_toolkit.atomic import write_figure

__all__ = ["save_accuracy_plot"]


def save_accuracy_plot(agents: Sequence[dict[str, Any]], path: str, source: str = "") -> str:
    """Write the plot of ``agents`` (the report's ``"agents"``) to ``path`` (whole or not at all) and return the
    path; ``source`` (the positions' file) goes in the title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, panels = plt.subplots(len(SETS), 1, figsize=(9, 6), dpi=110, sharex=True)
    try:
        for axes, name in zip(panels, SETS):
            for agent in agents:
                points = [(row["ply"], row[name]["accurate"] / row[name]["positions"])
                          for row in agent["by_ply"] if row[name]["positions"]]
                figures = agent["sets"][name]
                label = f"{agent['agent']}: {figures['accurate']} of {figures['positions']}"
                axes.plot([ply for ply, _ in points], [value for _, value in points], marker="o", markersize=3,
                          linewidth=1, label=label)
            for number, (phase, low, high) in enumerate(PHASES):
                if number % 2:
                    axes.axvspan(low - 0.5, high + 0.5, color="0.93", zorder=0)
                axes.text((low + high) / 2, 1.0, f"plies {phase}", ha="center", va="bottom",
                          transform=axes.get_xaxis_transform(), fontsize=8, color="0.35")
            axes.set_xlim(-0.5, PHASES[-1][2] + 0.5)
            axes.set_ylim(-0.02, 1.02)
            axes.set_ylabel(f"accuracy, {name} set")
            axes.legend(fontsize=8, loc="lower left")
        panels[-1].set_xlabel("ply (stones on the board before the move)")
        where = f" ({os.path.basename(source)})" if source else ""
        figure.suptitle(f"Moves that keep the outcome class, by ply{where}", fontsize=10)
        figure.tight_layout()
    except BaseException:
        plt.close(figure)
        raise
    return write_figure(figure, path)
