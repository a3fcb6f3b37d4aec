"""The learning curve of a run, beside its weights: ``learning_curve.csv`` and ``learning_curve.png``.

One row a curve point (``trainer.train``'s ``state.curve``): the games played, the training's CPU minutes by then
(the measurements' own time not counted) and the figures the run's ``measure`` gave (the accuracy against
perfect play on all benchmark positions and on the critical ones, from ``connectx train``). The PNG draws them
against the games and against the CPU minutes.
"""

from __future__ import annotations

import csv
import io
import os

from connectx_toolkit.atomic import write_atomically, write_figure

CSV_NAME, PNG_NAME = "learning_curve.csv", "learning_curve.png"
AXES = ("episodes", "cpu_minutes")


def figure_names(curve: list[dict]) -> list[str]:
    names: list[str] = []
    for row in curve:
        names += [k for k in row if k not in AXES and k not in names]
    return names


def write_csv(curve: list[dict], folder: str) -> str:
    path = os.path.join(folder, CSV_NAME)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=[*AXES, *figure_names(curve)], lineterminator="\n")
    writer.writeheader()
    writer.writerows(curve)
    write_atomically(path, text.getvalue())
    return path


def write_png(curve: list[dict], folder: str, title: str = "n-tuple TD(λ) self-play") -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for axis, along, label in ((axes[0], "episodes", "self-play games"), (axes[1], "cpu_minutes", "CPU minutes")):
        for name in figure_names(curve):
            points = [(row[along], row[name]) for row in curve if row.get(name) is not None]
            axis.plot([x for x, _ in points], [100 * y for _, y in points], marker=".", label=name)
        axis.set_xlabel(label)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy against perfect play (%)")
    axes[0].legend(loc="lower right")
    figure.suptitle(title)
    figure.tight_layout()
    return write_figure(figure, os.path.join(folder, PNG_NAME))
