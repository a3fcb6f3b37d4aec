#!/usr/bin/env python3
"""Train one PPO policy by self-play (both seats) on the project's PettingZoo env under Ray RLlib, and write it as an
agent folder that plays with numpy alone, ready for ``connectx-build``.

    pip install -r requirements-train.txt                   # torch, ray[rllib] (docs/training.md)
    python examples/train_rllib.py --out my_rllib_bot --iterations 30
    connectx-build my_rllib_bot -o submission.py
    connectx-evaluate --gate submission.py --baseline random

The env is ``training.self_play.env()`` behind RLlib's ``PettingZooEnv`` (the AEC turn order: one agent acts at a
time). Both agents, player_0 and player_1, map to one policy ("shared"): self-play with parameter sharing, each
seat learning from its own games. Action masking is RLlib's own example module, ``ActionMaskingTorchRLModule``:
the env's mask is applied to the logits (``log(mask)``) when sampling, in training and in inference, so the
policy never plays a full column and no illegal-move penalty is needed. That module wants an observation dict
``{"observations", "action_mask"}``; ``MaskedConnectX`` renames the env's ``observation``, flattens its
(rows, columns, 2) planes to one vector (the default MLP encoder takes a 1-D Box; a 3-D one would ask for a CNN
configuration) and makes both float32.

Afterwards the policy's MLP (the actor encoder's layers, then the pi head) is exported with
``connectx_toolkit.training.mlp_agent.write_mlp_agent`` (layout ``channels_last``: the env's planes), and the
script checks that OUT/main.py picks the column the RLModule's masked ``forward_inference`` argmax picks on
positions of random games.

The learning curve: after the iterations that cross each multiple of ``--curve-every`` env steps (and when the
algorithm is built, and at the end) the policy's masked greedy column is asked for every position of the shipped
benchmark in one batch (``connectx_toolkit.measuring.learning_curve.rllib_callbacks``), and OUT/learning_curve.csv
and .png get its accuracy against perfect play, all and critical positions, by steps and the driver's CPU minutes
(env runners' own CPU not counted): the curve ``connectx train --learner ntuple`` draws.

Scaling: ``--env-runners N`` samples on N Ray actors (one CPU each), the learner updates in the driver; on a
cluster (``ray start --head`` / ``ray start --address=...``, then ``--address auto``) the env runners spread over
its nodes, and ``.learners(num_learners=K, num_gpus_per_learner=1)`` trains on K GPUs. An example, not product
code: nothing in connectx_toolkit imports it.
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
    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env
except ImportError as error:
    sys.exit(f"train_rllib.py needs {error.name}: pip install -r requirements-train.txt (docs/training.md)")

from connectx_toolkit.measuring.learning_curve import LearningCurve, action_masks, observations, rllib_callbacks
from connectx_toolkit.training import self_play
from connectx_toolkit.training.agent_folder import why_not_writable
from connectx_toolkit.training.mlp_agent import MARKER, write_mlp_agent

ROWS, COLUMNS, INAROW = 6, 7, 4
POLICY = "shared"
ENV_NAME = "connectx_self_play"


class MaskedConnectX(PettingZooEnv):
    """The self-play env with the observation ``ActionMaskingTorchRLModule`` reads: {"observations": the planes
    flattened (rows, columns, 2), "action_mask"}, float32."""

    def __init__(self, config: dict | None = None):
        super().__init__(self_play.env(rows=ROWS, columns=COLUMNS, inarow=INAROW))
        space = gymnasium.spaces.Dict({
            "observations": gymnasium.spaces.Box(0.0, 1.0, (ROWS * COLUMNS * 2,), np.float32),
            "action_mask": gymnasium.spaces.Box(0.0, 1.0, (COLUMNS,), np.float32),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.observation_space = gymnasium.spaces.Dict(self.observation_spaces)

    @staticmethod
    def convert(observations: dict) -> dict:
        return {agent: {"observations": seen["observation"].reshape(-1).astype(np.float32),
                        "action_mask": seen["action_mask"].astype(np.float32)}
                for agent, seen in observations.items()}

    def reset(self, *, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return self.convert(observations), infos

    def step(self, action):
        observations, rewards, terminateds, truncateds, infos = super().step(action)
        return self.convert(observations), rewards, terminateds, truncateds, infos


def policy_modules(module) -> list:
    """The torch modules from the observation to the logits, in order: the actor's encoder, then the pi head."""
    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder  # separate, or shared with the value net
    return [m for part in (actor, module.pi) for m in part.modules()
            if isinstance(m, (torch.nn.Linear, torch.nn.Tanh, torch.nn.ReLU))]


def module_choose_all(module):
    """The RLModule as the learning curve's ``choose_all``: its masked greedy column (``forward_inference``'s
    logits, the mask applied by the module) on the positions' batch, observed as ``MaskedConnectX`` observes."""
    def choose_all(positions):
        batch = {Columns.OBS: {
            "observations": torch.tensor(observations(positions, "channels_last").reshape(len(positions), -1),
                                         dtype=torch.float32),
            "action_mask": torch.tensor(action_masks(positions), dtype=torch.float32)}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(dim=1).tolist()

    return choose_all


def report_point(row: dict) -> None:
    print(f"accuracy at {row['steps']:,} steps ({row['cpu_minutes']:.2f} CPU minutes of the driver): "
          f"{row['all']:.1%} all, {row['critical']:.1%} critical", flush=True)


def mlp_layers(module) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    modules = policy_modules(module)
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    activations = {names[type(m)] for m in modules if not isinstance(m, torch.nn.Linear)}
    if len(activations) > 1:
        raise SystemExit(f"one activation is exported, the network has {activations}")
    # The export applies the activation after every layer but the last: check that the network does too.
    kinds = ["linear" if isinstance(m, torch.nn.Linear) else "act" for m in modules]
    if kinds != ["linear", "act"] * (kinds.count("linear") - 1) + ["linear"]:
        raise SystemExit(f"an MLP of linear layers each followed by an activation but the last is exported, not {kinds}")
    layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
              for m in modules if isinstance(m, torch.nn.Linear)]
    return layers, activations.pop() if activations else "tanh"


class Struct:  # Kaggle's obs and config, as attributes
    def __init__(self, **fields):
        self.__dict__.update(fields)


def agreement(module, folder: str, positions: int, seed: int) -> tuple[int, int]:
    """(same, compared): OUT/main.py's column against the RLModule's masked greedy column on random games."""
    spec = importlib.util.spec_from_file_location("exported_policy", os.path.join(folder, "main.py"))
    assert spec is not None and spec.loader is not None
    exported = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exported)
    env = self_play.env(rows=ROWS, columns=COLUMNS, inarow=INAROW)
    rng = random.Random(seed)
    boards, marks, observations, masks = [], [], [], []
    env.reset(seed=seed)
    while len(boards) < positions:
        for agent in env.agent_iter():
            seen, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            mark = 1 + env.possible_agents.index(agent)
            planes = seen["observation"]  # (rows, columns, 2): the mover's stones, the opponent's
            boards.append((planes[:, :, 0] * mark + planes[:, :, 1] * (3 - mark)).reshape(-1).tolist())
            marks.append(mark)
            observations.append(planes.reshape(-1).astype(np.float32))
            masks.append(seen["action_mask"].astype(np.float32))
            env.step(rng.choice(np.flatnonzero(seen["action_mask"]).tolist()))
        env.reset()
    batch = {Columns.OBS: {"observations": torch.tensor(np.array(observations)),
                           "action_mask": torch.tensor(np.array(masks))}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    expected = logits.argmax(dim=1).tolist()
    config = Struct(rows=ROWS, columns=COLUMNS, inarow=INAROW)
    chosen = [exported.agent(Struct(board=b, mark=m), config) for b, m in zip(boards, marks)]
    return sum(a == b for a, b in zip(chosen, expected)), len(expected)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the agent folder to write (main.py, data/policy.npz)")
    parser.add_argument("--iterations", type=int, default=30, help="training iterations (default 30)")
    parser.add_argument("--batch", type=int, default=4000, help="agent steps per iteration (default 4000)")
    parser.add_argument("--env-runners", type=int, default=0,
                        help="Ray actors sampling games (default 0: sample in the driver)")
    parser.add_argument("--envs-per-runner", type=int, default=8, help="envs each runner steps (default 8)")
    parser.add_argument("--net", default="64,64", help="the hidden layers' widths (default 64,64)")
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: a local Ray)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", type=int, default=500, help="positions on which main.py must agree with RLlib")
    parser.add_argument("--curve-every", type=int, default=20_000, metavar="STEPS",
                        help="env steps between two points of the learning curve, OUT/learning_curve.csv and .png "
                             "(default 20000; 0: none)")
    args = parser.parse_args()
    if args.iterations < 1 or args.batch < 1 or args.env_runners < 0 or args.envs_per_runner < 1 \
            or args.curve_every < 0:
        parser.error("--iterations, --batch and --envs-per-runner must be at least 1, --env-runners and "
                     "--curve-every at least 0")
    problem = why_not_writable(args.out, MARKER, "connectx_toolkit.training.mlp_agent")
    if problem:  # before training, and before the curve writes into it
        parser.error(f"--out {args.out}: {problem}")
    hidden = [int(width) for width in args.net.split(",")]

    ray.init(address=args.address, include_dashboard=False, log_to_driver=False,
             **({} if args.address else {"num_cpus": max(2, args.env_runners + 1)}))
    register_env(ENV_NAME, lambda config: MaskedConnectX(config))
    config = (
        PPOConfig()
        .environment(ENV_NAME)
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent_id, *args, **kwargs: POLICY)
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=min(512, args.batch), num_epochs=4, lr=3e-4,
                  entropy_coeff=0.01, gamma=0.99)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"fcnet_hiddens": hidden, "fcnet_activation": "tanh", "head_fcnet_hiddens": [],
                          "vf_share_layers": False})}))
        .debugging(seed=args.seed)
    )
    curve = LearningCurve(args.out, args.curve_every, title="RLlib PPO, self-play") if args.curve_every else None
    if curve is not None:
        config = config.callbacks(**rllib_callbacks(curve, lambda algo: module_choose_all(algo.get_module(POLICY)),
                                                    report=report_point))
    algo = config.build_algo()
    start = time.perf_counter()
    steps = 0
    for iteration in range(1, args.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_env_steps_sampled_lifetime", steps))
        length = runners.get("episode_len_mean", float("nan"))
        print(f"iteration {iteration}: {steps} agent steps, mean game length {length:.1f} plies, "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    seconds = time.perf_counter() - start
    print(f"trained {args.iterations} iterations, {steps} agent steps in {seconds:.1f} s "
          f"({steps / seconds:.0f} agent steps/s), self-play, {args.env_runners} env runners, net {hidden}")

    module = algo.get_module(POLICY)
    if curve is not None:
        if curve.rows[-1]["steps"] != steps:  # the last point: the policy as training left it
            report_point(curve.point(steps, choose_all=module_choose_all(module)))
        print(f"learning curve: {os.path.join(args.out, 'learning_curve.csv')} and .png")
    layers, activation = mlp_layers(module)
    main_path, data_path = write_mlp_agent(
        args.out, layers, activation=activation, layout="channels_last", rows=ROWS, columns=COLUMNS,
        what=f"RLlib PPO, self-play, {steps} agent steps, seed {args.seed}")
    print(f"wrote {main_path}\n      {data_path} ({os.path.getsize(data_path):,} bytes)")
    status = 0
    if args.check:
        same, compared = agreement(module, args.out, args.check, args.seed + 1)
        print(f"numpy main.py agrees with the RLlib policy on {same}/{compared} positions")
        status = int(same != compared)
    algo.stop()
    ray.shutdown()
    if not status:
        print(f"build it: connectx-build {args.out} -o submission.py")
    return status


if __name__ == "__main__":
    sys.exit(main())
