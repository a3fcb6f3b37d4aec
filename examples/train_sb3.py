#!/usr/bin/env python3
"""Train a MaskablePPO policy (stable-baselines3 + sb3-contrib) on ``ConnectXEnv`` and write it as an agent folder
that plays with numpy alone, ready for ``connectx-build``.

    pip install -r requirements-train.txt                   # torch, stable-baselines3, sb3-contrib (docs/training.md)
    python examples/train_sb3.py --out my_ppo_bot --timesteps 300000 --opponents random,greedy
    connectx-build my_ppo_bot -o submission.py
    connectx-evaluate --gate submission.py --baseline random

The learner plays ``training.single_env.ConnectXEnv`` (seats alternating) against the opponents given, one per
environment, round-robin. MaskablePPO takes the env's ``info["action_mask"]``, so the policy never samples a
full column. Afterwards the policy's MLP (the flattened (2, rows, columns) planes -> policy_net -> action_net
logits) is exported with ``connectx_toolkit.training.mlp_agent.write_mlp_agent``: OUT/main.py and
OUT/data/policy.npz, a numpy forward pass that masks the full columns; no torch on Kaggle's side. The script
then plays random games and checks that OUT/main.py picks the same column as the torch policy
(``predict(deterministic=True)`` with the mask) on every position seen.

The learning curve: every ``--curve-every`` learner steps (and at the start) the policy is asked every position of
the shipped benchmark (``connectx_toolkit.measuring.learning_curve.sb3_callback``: one deterministic, masked
``predict`` on the batch), and OUT/learning_curve.csv and .png get its accuracy against perfect play, all and
critical positions, by steps and CPU minutes: the curve ``connectx train --learner ntuple`` draws.

An example, not product code: nothing in connectx_toolkit imports it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
import time

import numpy as np

try:
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from stable_baselines3.common.vec_env import DummyVecEnv
except ImportError as error:
    sys.exit(f"train_sb3.py needs {error.name}: pip install -r requirements-train.txt (docs/training.md)")

from connectx_toolkit.measuring.learning_curve import LearningCurve, sb3_callback
from connectx_toolkit.training.agent_folder import why_not_writable
from connectx_toolkit.training.mlp_agent import MARKER, write_mlp_agent
from connectx_toolkit.training.single_env import ConnectXEnv


class ActionMasks(gymnasium.Wrapper):
    """The ``action_masks()`` method MaskablePPO asks every env for: the mask of the last reset or step."""

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self.mask = info["action_mask"].astype(bool)
        return observation, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.mask = info["action_mask"].astype(bool)
        return observation, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.mask


def make_env(opponent: str):
    return lambda: ActionMasks(ConnectXEnv(opponent=opponent, seat="alternate", obs_type="planes"))


def mlp_layers(model: MaskablePPO) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The policy's linear layers in order (policy_net's, then action_net) as numpy, and their activation."""
    policy = model.policy
    if type(policy.pi_features_extractor) is not FlattenExtractor:
        raise SystemExit("only the MlpPolicy's FlattenExtractor is exported")
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    activations = {type(m) for m in modules if not isinstance(m, torch.nn.Linear)}
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    if len(activations) > 1 or not activations <= set(names):
        raise SystemExit(f"only a Tanh or ReLU MLP is exported, not {activations}")
    layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
              for m in modules if isinstance(m, torch.nn.Linear)]
    return layers, names[activations.pop()] if activations else "tanh"


def load_agent_module(folder: str):
    """OUT/main.py as a module (``agents`` is the checkout's, on PYTHONPATH; load_resource reads OUT/data/)."""
    spec = importlib.util.spec_from_file_location("exported_policy", os.path.join(folder, "main.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Board:  # Kaggle's obs and config, as attributes
    def __init__(self, **fields):
        self.__dict__.update(fields)


def agreement(model: MaskablePPO, folder: str, positions: int, seed: int) -> tuple[int, int]:
    """(same, compared): the exported agent's column against the torch policy's on positions of random games."""
    exported = load_agent_module(folder)
    config = Board(rows=6, columns=7, inarow=4)
    env = ConnectXEnv(opponent="random", seat="alternate")
    rng = random.Random(seed)
    same = compared = 0
    observation, info = env.reset(seed=seed)
    mark = info["mark"]  # the learner's, for the whole episode (a step's info has only the mask)
    while compared < positions:
        mask = info["action_mask"].astype(bool)
        torch_column, _ = model.predict(observation, action_masks=mask, deterministic=True)
        board = (observation[0] * mark + observation[1] * (3 - mark)).reshape(-1).tolist()
        column = exported.agent(Board(board=board, mark=mark), config)
        same += int(column == int(torch_column))
        compared += 1
        observation, _, terminated, _, info = env.step(rng.choice(np.flatnonzero(mask).tolist()))
        if terminated:
            observation, info = env.reset()
            mark = info["mark"]
    return same, compared


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the agent folder to write (main.py, data/policy.npz)")
    parser.add_argument("--timesteps", type=int, default=300_000, help="learner steps to train on (default 300000)")
    parser.add_argument("--opponents", default="random,greedy",
                        help="comma-separated opponent specs (ConnectXEnv's), one env each, round-robin "
                             "(default random,greedy)")
    parser.add_argument("--envs", type=int, default=8, help="environments stepped together (default 8)")
    parser.add_argument("--net", default="64,64", help="the hidden layers' widths (default 64,64, SB3's own)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--check", type=int, default=500, help="positions on which main.py must agree with torch")
    parser.add_argument("--curve-every", type=int, default=50_000, metavar="STEPS",
                        help="learner steps between two points of the learning curve, OUT/learning_curve.csv and "
                             ".png (default 50000; 0: none)")
    args = parser.parse_args()
    if args.timesteps < 1 or args.envs < 1 or args.check < 0 or args.curve_every < 0:
        parser.error("--timesteps and --envs must be at least 1, --check and --curve-every at least 0")
    problem = why_not_writable(args.out, MARKER, "connectx_toolkit.training.mlp_agent")
    if problem:  # before training, and before the curve writes into it
        parser.error(f"--out {args.out}: {problem}")
    opponents = [name.strip() for name in args.opponents.split(",") if name.strip()]
    hidden = [int(width) for width in args.net.split(",")]

    torch.set_num_threads(args.threads)
    vec_env = DummyVecEnv([make_env(opponents[i % len(opponents)]) for i in range(args.envs)])
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=256, batch_size=512, n_epochs=4, gamma=0.99,
                        ent_coef=0.01, learning_rate=3e-4, policy_kwargs={"net_arch": hidden}, seed=args.seed,
                        device="cpu", verbose=0)
    curve = None
    if args.curve_every:
        curve = LearningCurve(args.out, args.curve_every, title=f"MaskablePPO against {', '.join(opponents)}")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps, callback=sb3_callback(curve, verbose=1) if curve else None)
    seconds = time.perf_counter() - start
    steps = model.num_timesteps
    print(f"trained {steps} learner steps in {seconds:.1f} s ({steps / seconds:.0f} steps/s) against "
          f"{', '.join(opponents)}, {args.envs} envs, net {hidden}, seed {args.seed}")
    if curve is not None:
        last = curve.rows[-1]
        print(f"learning curve: {os.path.join(args.out, 'learning_curve.csv')} and .png; at {last['steps']} steps "
              f"{last['all']:.1%} of all benchmark positions, {last['critical']:.1%} of the critical ones")

    layers, activation = mlp_layers(model)
    main_path, data_path = write_mlp_agent(
        args.out, layers, activation=activation, layout="planes",
        what=f"MaskablePPO, {steps} steps against {', '.join(opponents)}, seed {args.seed}")
    print(f"wrote {main_path}\n      {data_path} ({os.path.getsize(data_path):,} bytes)")
    if args.check:
        same, compared = agreement(model, args.out, args.check, args.seed + 1)
        print(f"numpy main.py agrees with the torch policy on {same}/{compared} positions")
        if same != compared:
            return 1
    print(f"build it: connectx-build {args.out} -o submission.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
