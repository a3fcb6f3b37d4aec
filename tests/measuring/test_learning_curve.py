"""The learning curve of a learner a user brings (``measuring.learning_curve``): the figures are the benchmark's
accuracy against perfect play, the batches are shaped as the project's envs observe, the curve's points fall when
due and are written in the n-tuple learner's format, and the framework adapters drive it (with fake models here:
no torch, stable-baselines3 or Ray; the real stable-baselines3 run is tests/training/test_accuracy_callbacks.py)."""

from __future__ import annotations

import csv
import random
import sys

import numpy as np
import pytest

from connectx_toolkit.agents.core import Position
from connectx_toolkit.analysis.positions import parse_position
from connectx_toolkit.measuring import learning_curve as lc
from connectx_toolkit.measuring.benchmark import load_benchmark
from connectx_toolkit.training import self_play
from connectx_toolkit.training.single_env import ConnectXEnv


def centre(position: Position) -> int:
    return min(position.legal_moves(), key=lambda column: abs(column - 3))


def test_the_figures_are_the_shares_of_moves_that_keep_the_outcome_on_all_and_critical_positions():
    benchmark = load_benchmark()
    kept = [centre(parse_position(p.moves)) in p.kept_columns for p in benchmark.positions]
    critical = [k for k, p in zip(kept, benchmark.positions) if p.critical]
    expected = {"all": round(sum(kept) / len(kept), 5), "critical": round(sum(critical) / len(critical), 5)}
    assert 0.5 < expected["all"] < 0.95 and expected["critical"] < expected["all"]  # neither perfect nor hopeless
    assert lc.accuracy_figures(centre, benchmark=benchmark) == expected
    assert lc.accuracy_figures(choose_all=lambda positions: [centre(p) for p in positions],
                               benchmark=benchmark) == expected


def test_an_illegal_column_is_a_wrong_answer_and_a_short_batch_is_refused():
    benchmark = load_benchmark().only(range(3))
    always_full = {"all": 0.0, "critical": 0.0}
    # column 9 is off the board: every answer is an invalid move, none accurate
    assert lc.accuracy_figures(lambda position: 9, benchmark=benchmark) == always_full
    with pytest.raises(ValueError, match="answered 1 columns"):
        lc.accuracy_figures(choose_all=lambda positions: [3], benchmark=benchmark)
    with pytest.raises(ValueError, match="one of them"):
        lc.accuracy_figures(benchmark=benchmark)


def test_the_batches_are_what_connectx_env_observes_in_both_layouts_and_both_seats():
    rng = random.Random(3)
    for obs_type, layout in (("planes", "planes"), ("kaggle", "kaggle")):
        moves: list[int] = []

        def opponent(obs, config):
            column = rng.choice([c for c in range(7) if obs.board[c] == 0])
            moves.append(column)
            return column

        env = ConnectXEnv(opponent=opponent, seat="alternate", obs_type=obs_type)
        seen = 0
        for episode in range(8):
            moves.clear()
            observation, info = env.reset(seed=episode)
            terminated = False
            while not terminated:
                position = Position.from_moves(moves)
                assert np.array_equal(lc.observations([position], layout)[0], observation)
                assert np.array_equal(lc.action_masks([position])[0], info["action_mask"])
                seen += 1
                column = rng.choice(np.flatnonzero(info["action_mask"]).tolist())
                moves.append(column)
                observation, _, terminated, _, info = env.step(column)
        assert seen > 50


def test_the_channels_last_batch_is_what_the_self_play_env_observes():
    env = self_play.env()
    rng = random.Random(4)
    moves: list[int] = []
    env.reset(seed=0)
    seen = 0
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        position = Position.from_moves(moves)
        assert np.array_equal(lc.observations([position], "channels_last")[0], observation["observation"])
        assert np.array_equal(lc.action_masks([position])[0], observation["action_mask"])
        seen += 1
        column = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        moves.append(column)
        env.step(column)
    assert seen >= 7


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_points_fall_when_due_count_training_cpu_only_and_are_written_as_the_ntuple_curve(tmp_path):
    benchmark = load_benchmark().only(range(4))
    clock = FakeClock()
    curve = lc.LearningCurve(str(tmp_path / "run"), every=1000, benchmark=benchmark, clock=clock)

    def slow_centre(positions):
        clock.now += 600.0  # ten minutes of measuring: not training's time
        return [centre(p) for p in positions]

    assert curve.due(0)
    curve.start()
    assert curve.point(0, choose_all=slow_centre)["cpu_minutes"] == 0.0
    assert not curve.due(999) and curve.due(1000)
    clock.now += 30.0  # half a minute of training
    row = curve.point(1004, choose_all=slow_centre)  # a vectorised step may overshoot its multiple
    assert row["steps"] == 1004 and row["cpu_minutes"] == 0.5
    assert not curve.due(1999) and curve.due(2000) and curve.due(5000)
    with open(tmp_path / "run" / "learning_curve.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["steps", "cpu_minutes", "all", "critical"]
    expected = lc.accuracy_figures(centre, benchmark=benchmark)
    assert [(int(r["steps"]), float(r["all"]), float(r["critical"])) for r in rows] == \
        [(0, expected["all"], expected["critical"]), (1004, expected["all"], expected["critical"])]
    assert (tmp_path / "run" / "learning_curve.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="every must be at least 1"):
        lc.LearningCurve(str(tmp_path), every=0)


class FakeModel:
    """stable-baselines3's ``predict`` as MaskablePPO has it (or PPO: ``masked=False``): the centre-most column
    the mask allows, from the planes batch."""

    def __init__(self, masked: bool) -> None:
        self.calls: list[tuple[tuple, bool]] = []
        if not masked:
            self.predict = self.predict_unmasked  # type: ignore[method-assign]

    def predict(self, observation, state=None, episode_start=None, deterministic=False, action_masks=None):
        return self._act(observation, action_masks, deterministic), None

    def predict_unmasked(self, observation, state=None, episode_start=None, deterministic=False):
        return self._act(observation, None, deterministic), None

    def _act(self, observation, masks, deterministic):
        self.calls.append((observation.shape, masks is not None and deterministic))
        order = [3, 2, 4, 1, 5, 0, 6]
        full = (observation[:, 0, 0, :] + observation[:, 1, 0, :]) > 0  # the top row taken: the column is full
        if masks is not None:
            assert np.array_equal(~masks, full)
        return np.array([next(c for c in order if not row[c]) for row in full])


@pytest.mark.parametrize("masked", [True, False])
def test_an_sb3_model_is_asked_one_deterministic_batch_with_masks_when_it_takes_them(masked):
    benchmark = load_benchmark()
    model = FakeModel(masked)
    assert lc.accuracy_figures(choose_all=lc.sb3_choose_all(model), benchmark=benchmark) == \
        lc.accuracy_figures(centre, benchmark=benchmark)
    assert model.calls == [((len(benchmark.positions), 2, 6, 7), masked)]


def test_the_sb3_callback_without_stable_baselines3_says_so(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    monkeypatch.setitem(sys.modules, "stable_baselines3.common.callbacks", None)
    with pytest.raises(ImportError):
        lc.sb3_callback(lc.LearningCurve(str(tmp_path), every=10))


class FakeAlgorithm:
    def __init__(self) -> None:
        self.asked = 0

    def choose_all(self, positions):
        self.asked += 1
        return [centre(p) for p in positions]


def test_the_rllib_hooks_point_at_the_start_and_each_multiple_of_sampled_steps(tmp_path):
    curve = lc.LearningCurve(str(tmp_path), every=4000, benchmark=load_benchmark().only(range(3)))
    reported = []
    hooks = lc.rllib_callbacks(curve, lambda algorithm: algorithm.choose_all, report=reported.append)
    algorithm = FakeAlgorithm()
    hooks["on_algorithm_init"](algorithm=algorithm, metrics_logger=None)
    for steps in (2000, 4005, 6000, 8100, 12500):
        hooks["on_train_result"](algorithm=algorithm, metrics_logger=None,
                                 result={"env_runners": {"num_env_steps_sampled_lifetime": steps}})
    assert [row["steps"] for row in curve.rows] == [0, 4005, 8100, 12500]
    assert reported == curve.rows and algorithm.asked == 4
