"""The learning curve of a run, beside its weights: ``learning_curve.csv`` and ``learning_curve.png``.

One format for every learner: the n-tuple learner's runs (``training.ntuple``) and the learners a user brings
(``measuring.learning_curve``). Here, not in ``training.ntuple``: that package compiles with numba, which a
training environment of another library's (requirements-train.txt) need not have.

One row a curve point (``ntuple.trainer.train``'s ``state.curve``): the games played (``episodes``; a learner brought
from another library counts its ``steps`` instead: ``measuring.learning_curve``), the training's CPU minutes by
then (the measurements' own time not counted) and the figures the run's ``measure`` gave (the accuracy against
perfect play on all benchmark positions and on the critical ones, from ``connectx train``). The PNG draws them
against the games (or steps) and against the CPU minutes. ``write_runs_png`` draws several runs' curves in one
figure (``connectx train --runs``).
"""

from __future__ import annotations

import csv
import io
import os

from connectx_toolkit.atomic import write_atomically, write_figure

CSV_NAME, PNG_NAME = "learning_curve.csv", "learning_curve.png"
AXES = ("episodes", "steps", "cpu_minutes")
AXIS_LABELS = {"episodes": "self-play games", "steps": "learner steps", "cpu_minutes": "CPU minutes"}


def figure_names(curve: list[dict]) -> list[str]:
    names: list[str] = []
    for row in curve:
        names += [k for k in row if k not in AXES and k not in names]
    return names


def column_names(rows: list[dict]) -> list[str]:
    """Every key of the rows, in the order they first appear (a curve's: its axes, then its figures)."""
    names: list[str] = []
    for row in rows:
        names += [k for k in row if k not in names]
    return names


def along(curve: list[dict]) -> str:
    """The curve's first axis: "steps" when its rows count steps, else "episodes"."""
    return "steps" if any("steps" in row for row in curve) else "episodes"


def write_csv(curve: list[dict], folder: str, name: str = CSV_NAME) -> str:
    path = os.path.join(folder, name)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=column_names(curve), lineterminator="\n")
    writer.writeheader()
    writer.writerows(curve)
    write_atomically(path, text.getvalue())
    return path


def _figure(title: str):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    axes[0].set_ylabel("accuracy against perfect play (%)")
    figure.suptitle(title)
    return figure, axes


def write_png(curve: list[dict], folder: str, title: str = "n-tuple TD(λ) self-play", name: str = PNG_NAME) -> str:
    figure, axes = _figure(title)
    for axis, x in zip(axes, (along(curve), "cpu_minutes")):
        for figure_name in figure_names(curve):
            points = [(row[x], row[figure_name]) for row in curve if row.get(figure_name) is not None]
            axis.plot([p for p, _ in points], [100 * y for _, y in points], marker=".", label=figure_name)
        axis.set_xlabel(AXIS_LABELS[x])
        axis.grid(alpha=0.3)
    axes[0].legend(loc="lower right")
    figure.tight_layout()
    return write_figure(figure, os.path.join(folder, name))


def write_runs_png(curves: dict[str, list[dict]], path: str, title: str = "n-tuple TD(λ) self-play, runs") -> str:
    """Several runs' curves in one figure: a colour a run, its figures told apart by the line (all solid, critical
    dashed, any other dotted)."""
    figure, axes = _figure(title)
    styles = {"all": "-", "critical": "--"}
    for index, (run, curve) in enumerate(curves.items()):
        colour = f"C{index % 10}"
        for axis, x in zip(axes, (along(curve), "cpu_minutes")):
            for figure_name in figure_names(curve):
                points = [(row[x], row[figure_name]) for row in curve if row.get(figure_name) is not None]
                axis.plot([p for p, _ in points], [100 * y for _, y in points], styles.get(figure_name, ":"),
                          color=colour, marker=".", label=f"{run} {figure_name}")
    for axis, x in zip(axes, (along(next(iter(curves.values()), [])), "cpu_minutes")):
        axis.set_xlabel(AXIS_LABELS[x])
        axis.grid(alpha=0.3)
    axes[0].legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    return write_figure(figure, path)
