"""The learning curve of a learner you bring (stable-baselines3, RLlib, your own loop): the curve
``connectx train --learner ntuple`` draws, measured the same way.

Every ``every`` learner steps the policy is asked every position of the shipped benchmark, in this process
(``measuring.in_process``: no agent process, no clock), and scored by ``measuring.scoring`` (its accuracy against
perfect play on all positions and on the critical ones: docs/accuracy.md). One row a point: the learner's
``steps``, this process's CPU minutes of training by then (the measurements' own time not counted) and the two
figures; ``learning_curve.csv`` and ``.png`` are rewritten whole at each point, in the n-tuple learner's format
(``training.curve``).

The framework-neutral part is ``LearningCurve``: give it the policy as ``choose(position) -> column`` or, faster
for a network, ``choose_all(positions) -> columns`` (one batch for the 2,346 positions; ``observations`` and
``action_masks`` give a batch the shape the project's envs observe). The adapters import their framework only
when called, so this module imports without torch, stable-baselines3 or Ray:

- ``sb3_callback(curve, observation="planes")``: a stable-baselines3 ``BaseCallback`` (a point at the start, one
  every ``curve.every`` of the model's ``num_timesteps``, between rollouts, and at the end), asking ``model.predict(..., deterministic=True)``, with
  the action masks when the model takes them (sb3-contrib's ``MaskablePPO``);
- ``rllib_callbacks(curve, choose_all_of)``: ``on_algorithm_init`` and ``on_train_result`` for RLlib's
  ``config.callbacks(**...)``, ``choose_all_of(algorithm)`` turning the algorithm into a ``choose_all``.

::

    curve = LearningCurve("my_run", every=50_000)
    model.learn(300_000, callback=sb3_callback(curve))      # my_run/learning_curve.csv and .png
"""

from __future__ import annotations

import inspect
import os
import time
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from connectx_toolkit.agents.core import Position
from connectx_toolkit.analysis.positions import parse_position
from connectx_toolkit.measuring.benchmark import ALL, CRITICAL, Benchmark, load_benchmark
from connectx_toolkit.measuring.in_process import answers_in_process
from connectx_toolkit.measuring.scoring import agent_accuracy
from connectx_toolkit.training import curve as curve_files

__all__ = ["LearningCurve", "OBSERVATIONS", "accuracy_figures", "action_masks", "lifetime_steps", "observations",
           "rllib_callbacks", "sb3_callback", "sb3_choose_all"]

Choose = Callable[[Position], int]
ChooseAll = Callable[[list[Position]], Sequence[int]]
OBSERVATIONS = ("planes", "channels_last", "kaggle")


def accuracy_figures(choose: Choose | None = None, *, choose_all: ChooseAll | None = None,
                     benchmark: Benchmark | None = None, agent: str = "policy") -> dict[str, float]:
    """The accuracy against perfect play of a policy (one of ``choose``, ``choose_all``) on ``benchmark`` (default:
    the shipped one): ``{"all": ..., "critical": ...}``, shares rounded to 5 places. A column that is not a legal
    move counts as a wrong answer (an invalid move, as in a game)."""
    if (choose is None) == (choose_all is None):
        raise ValueError("give the policy as choose or as choose_all, one of them")
    benchmark = benchmark or load_benchmark()
    if choose_all is not None:
        positions = [parse_position(position.moves) for position in benchmark.positions]
        columns = [int(column) for column in choose_all(positions)]
        if len(columns) != len(positions):
            raise ValueError(f"choose_all answered {len(columns)} columns for {len(positions)} positions")
        answered: Iterator[int] = iter(columns)
        choose = lambda position: next(answered)  # noqa: E731  answers_in_process asks in the benchmark's order
    assert choose is not None
    sets = agent_accuracy(answers_in_process(choose, benchmark, agent), worst=0)["sets"]
    return {ALL: round(sets[ALL]["accuracy"], 5), CRITICAL: round(sets[CRITICAL]["accuracy"], 5)}


def observations(positions: Sequence[Position], layout: str = "planes") -> np.ndarray:
    """The positions as the project's envs observe them, from the side of the player to move (int8):
    ``planes`` (N, 2, rows, columns), the mover's stones then the opponent's (``ConnectXEnv(obs_type="planes")``);
    ``channels_last`` (N, rows, columns, 2) (the self-play env's ``observation``); ``kaggle`` (N, rows * columns),
    Kaggle's board with marks 1 and 2, the mover's mark 1 after an even number of stones
    (``ConnectXEnv(obs_type="kaggle")``). Row 0 is the top row, as on Kaggle's board."""
    if layout not in OBSERVATIONS:
        raise ValueError(f"layout must be one of {', '.join(OBSERVATIONS)}, not {layout!r}")
    if not positions:
        return np.zeros((0,), np.int8)
    config = positions[0].config
    if layout == "kaggle":
        return np.array([position.to_board() for position in positions], np.int8)
    boards = np.array([position.to_board(1) for position in positions], np.int8).reshape(-1, config.rows,
                                                                                       config.columns)
    planes = np.stack([boards == 1, boards == 2], axis=1).astype(np.int8)
    return planes if layout == "planes" else planes.transpose(0, 2, 3, 1).copy()


def action_masks(positions: Sequence[Position]) -> np.ndarray:
    """(N, columns) int8: 1 for each column that is not full (``info["action_mask"]`` of the envs)."""
    if not positions:
        return np.zeros((0,), np.int8)
    columns = positions[0].config.columns
    return np.array([[position.can_play(c) for c in range(columns)] for position in positions], np.int8)


class LearningCurve:
    """A learning curve measured as a learner trains, written to ``folder``'s ``learning_curve.csv`` and ``.png``
    at every point. ``start()`` starts its CPU clock (the first ``point`` does, if not called); ``due(steps)``
    says whether a point is due (the first one, then one every ``every`` steps); ``point(steps, ...)`` measures
    and writes one and returns its row."""

    def __init__(self, folder: str, every: int, *, title: str = "accuracy against perfect play",
                 benchmark: Benchmark | None = None, clock: Callable[[], float] = time.process_time) -> None:
        if every < 1:
            raise ValueError(f"every must be at least 1 step, not {every}")
        self.folder = os.fspath(folder)
        self.every = every
        self.title = title
        self.benchmark = benchmark
        self.clock = clock
        self.rows: list[dict[str, Any]] = []
        self._started: float | None = None
        self._measuring = 0.0  # CPU seconds spent measuring, not training

    def start(self) -> None:
        self._started = self.clock()
        self._measuring = 0.0

    def due(self, steps: int) -> bool:
        if not self.rows:
            return True
        return steps // self.every > self.rows[-1]["steps"] // self.every

    def cpu_minutes(self) -> float:
        if self._started is None:
            return 0.0
        return (self.clock() - self._started - self._measuring) / 60.0

    def point(self, steps: int, choose: Choose | None = None, *, choose_all: ChooseAll | None = None) -> dict:
        """Measure the policy now (after ``steps`` learner steps), add the row, rewrite the CSV and PNG."""
        if self._started is None:
            self.start()
        trained = self.cpu_minutes()
        measuring = self.clock()
        if self.benchmark is None:
            self.benchmark = load_benchmark()
        figures = accuracy_figures(choose, choose_all=choose_all, benchmark=self.benchmark)
        row = {"steps": int(steps), "cpu_minutes": round(trained, 4), **figures}
        self.rows.append(row)
        os.makedirs(self.folder, exist_ok=True)
        curve_files.write_csv(self.rows, self.folder)
        curve_files.write_png(self.rows, self.folder, title=self.title)
        self._measuring += self.clock() - measuring
        return row


# -- stable-baselines3 -----------------------------------------------------------------------------------------

def sb3_choose_all(model: Any, observation: str = "planes") -> ChooseAll:
    """A stable-baselines3 model as ``choose_all``: ``model.predict`` on the batch of observations (layout
    ``observation``, see ``observations``), deterministic, with ``action_masks`` when its ``predict`` takes them."""
    masked = "action_masks" in inspect.signature(model.predict).parameters

    def choose_all(positions: list[Position]) -> Sequence[int]:
        extra = {"action_masks": action_masks(positions).astype(bool)} if masked else {}
        actions, _ = model.predict(observations(positions, observation), deterministic=True, **extra)
        return [int(a) for a in np.asarray(actions).reshape(-1)]

    return choose_all


def sb3_callback(curve: LearningCurve, observation: str = "planes", verbose: int = 0) -> Any:
    """A stable-baselines3 ``BaseCallback`` drawing ``curve``: a point when training starts, at the first rollout's
    start at or past each multiple of ``curve.every`` of the model's ``num_timesteps`` (between rollouts the
    policy has learned from exactly those steps; so a point falls up to a rollout, ``n_steps * n_envs`` for PPO,
    past its multiple) and when training ends; the model asked through ``sb3_choose_all(model, observation)``.
    ``observation`` is how the model's env observes the board (``observations``' layouts)."""
    from stable_baselines3.common.callbacks import BaseCallback  # pyright: ignore[reportMissingImports]

    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, not {observation!r}")

    class AccuracyCallback(BaseCallback):
        # Between rollouts, where the policy has learned from exactly num_timesteps steps (an on-policy learner
        # updates after its rollout: a point during one would give the steps of an update not yet made).
        def _on_training_start(self) -> None:
            curve.start()

        def _on_rollout_start(self) -> None:
            if curve.due(self.num_timesteps):
                self._point()

        def _on_step(self) -> bool:
            return True

        def _on_training_end(self) -> None:  # the last point: the policy as training left it
            if not curve.rows or curve.rows[-1]["steps"] != self.num_timesteps:
                self._point()

        def _point(self) -> None:
            row = curve.point(self.num_timesteps, choose_all=sb3_choose_all(self.model, observation))
            if self.verbose:
                print(f"accuracy at {row['steps']:,} steps ({row['cpu_minutes']:.2f} CPU minutes): "
                      f"{row['all']:.1%} all, {row['critical']:.1%} critical", flush=True)

    return AccuracyCallback(verbose)


# -- RLlib ----------------------------------------------------------------------------------------------------

def lifetime_steps(result: dict) -> int:
    """The env steps an RLlib ``train()`` result says were sampled so far (new API stack)."""
    runners = result.get("env_runners", {})
    return int(runners.get("num_env_steps_sampled_lifetime", result.get("num_env_steps_sampled_lifetime", 0)))


def rllib_callbacks(curve: LearningCurve, choose_all_of: Callable[[Any], ChooseAll],
                    report: Callable[[dict], None] | None = None) -> dict[str, Callable[..., None]]:
    """RLlib hooks drawing ``curve``, for ``AlgorithmConfig.callbacks(**rllib_callbacks(...))``: a point when the
    algorithm is built (0 steps) and after each ``train()`` iteration that crosses a multiple of ``curve.every``
    env steps sampled (a point at most one iteration past it). ``choose_all_of(algorithm)`` gives the policy
    as ``choose_all`` (e.g. its RLModule's masked greedy action on ``observations(positions)``); ``report(row)`` is
    called with each new row. The hooks run in the driver; plain functions, so RLlib's copies of its config share
    this ``curve``. The CPU minutes are the driver's: env runners on other processes are not counted."""

    def point(algorithm: Any, steps: int) -> None:
        row = curve.point(steps, choose_all=choose_all_of(algorithm))
        if report is not None:
            report(row)

    def on_algorithm_init(*, algorithm: Any, **kwargs: Any) -> None:
        curve.start()
        point(algorithm, 0)

    def on_train_result(*, algorithm: Any, result: dict, **kwargs: Any) -> None:
        steps = lifetime_steps(result)
        if curve.due(steps):
            point(algorithm, steps)

    return {"on_algorithm_init": on_algorithm_init, "on_train_result": on_train_result}
