"""The learning curve's stable-baselines3 callback on a real MaskablePPO (``measuring.learning_curve.sb3_callback``):
points at the start, every ``every`` steps and at the end; each the accuracy of the model's own masked,
deterministic choice, position by position; and the callback changes nothing the model learns.

Where requirements-train.txt (torch, stable-baselines3, sb3-contrib) is installed; skipped elsewhere, and an
integration check (tests/conftest.py): it trains twice. The adapters' logic is tested without the libraries in
tests/measuring/test_learning_curve.py.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib", reason="the sb3 callback's real run needs requirements-train.txt")

from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from connectx_toolkit.measuring import learning_curve as lc  # noqa: E402
from connectx_toolkit.measuring.benchmark import load_benchmark  # noqa: E402
from connectx_toolkit.training.single_env import ConnectXEnv  # noqa: E402
from examples.train_sb3 import ActionMasks  # noqa: E402


def model():
    envs = DummyVecEnv([lambda: ActionMasks(ConnectXEnv(opponent="random", seat="alternate")) for _ in range(2)])
    return sb3_contrib.MaskablePPO("MlpPolicy", envs, n_steps=64, batch_size=64, n_epochs=1, seed=3, device="cpu",
                                   policy_kwargs={"net_arch": [16]})


def parameters(trained) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in trained.policy.parameters()]


def test_a_maskable_ppo_run_gets_the_curve_of_its_own_choices_and_learns_the_same(tmp_path):
    benchmark = load_benchmark()
    curve = lc.LearningCurve(str(tmp_path / "ppo"), every=256, benchmark=benchmark)
    measured = model()
    measured.learn(total_timesteps=600, callback=lc.sb3_callback(curve, verbose=1))
    # rollouts of 2 envs x 64 steps, between which the policy is asked: 600 steps asked make 5 rollouts (640);
    # every 256 steps: at the start, at the rollouts that start at 256 and 512, and where training ended
    assert [row["steps"] for row in curve.rows] == [0, 256, 512, 640]

    def one_by_one(position):  # the model's choice, asked as a game would: one position, its mask
        action, _ = measured.predict(lc.observations([position])[0], deterministic=True,
                                     action_masks=lc.action_masks([position])[0].astype(bool))
        return int(action)

    last = curve.rows[-1]
    assert {"all": last["all"], "critical": last["critical"]} == lc.accuracy_figures(one_by_one, benchmark=benchmark)
    assert all(0 < row["all"] < 1 and row["cpu_minutes"] >= 0 for row in curve.rows)
    with open(tmp_path / "ppo" / "learning_curve.csv", newline="") as handle:
        assert [int(row["steps"]) for row in csv.DictReader(handle)] == [0, 256, 512, 640]
    assert (tmp_path / "ppo" / "learning_curve.png").exists()

    unmeasured = model()
    unmeasured.learn(total_timesteps=600)
    assert all(np.array_equal(a, b) for a, b in zip(parameters(measured), parameters(unmeasured)))
