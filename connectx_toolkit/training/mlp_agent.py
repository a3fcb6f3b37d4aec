"""Write a trained policy network (an MLP: a stack of linear layers) as an agent folder that plays with numpy alone.

    from connectx_toolkit.training.mlp_agent import write_mlp_agent
    write_mlp_agent("my_ppo_bot", [(w0, b0), (w1, b1), (w2, b2)], activation="tanh", layout="planes",
                    what="MaskablePPO, 200k steps against random")

OUT gets ``main.py`` and ``data/policy.npz``; ``connectx build OUT`` embeds both into one submission. Whatever
library trained the network (torch through stable-baselines3 or Ray RLlib, jax, ...), Kaggle's side needs only
the standard library and numpy: ``main.py`` reads the weights with ``load_resource("policy.npz")`` once, at
load (``np.load`` of the bytes, ``allow_pickle=False``), and each move is the forward pass in numpy over the
observation, the full columns masked, the highest logit played (a plain ``int``).

The network's input is the board from the side of the player to move, two planes of ``rows`` x ``columns``
(0/1): the mover's stones and the opponent's, row 0 the top row. ``layout`` says how they were flattened:
``"planes"`` is ``(2, rows, columns)`` (``training.single_env.ConnectXEnv``'s and ``training.batched``'s
observation), ``"channels_last"`` is ``(rows, columns, 2)`` (``training.self_play``'s, PettingZoo's
connect_four). Layers are ``(weight, bias)`` as torch's ``nn.Linear`` holds them: ``weight`` is
``(out, in)``, a layer computes ``x @ weight.T + bias``; the activation follows every layer but the last,
whose ``columns`` outputs are the logits. The arrays are stored as float32 (what torch trains in) and the
forward pass runs in float64.
"""

from __future__ import annotations

import io
import os
from typing import Sequence

import numpy as np

from connectx_toolkit.agents.core import Config
from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.training.agent_folder import why_not_writable

DEFAULT_CONFIG = Config()  # Kaggle's board: the default shape of a written agent

__all__ = ["ACTIVATIONS", "LAYOUTS", "MARKER", "POLICY_NAME", "policy_document", "read_policy", "write_mlp_agent"]

POLICY_NAME = "policy.npz"
ACTIVATIONS = ("tanh", "relu")
LAYOUTS = ("planes", "channels_last")
MARKER = "# Written by connectx_toolkit.training.mlp_agent"  # the first line of every main.py it writes

# The agent a folder gets. It repeats read_policy and the forward pass instead of importing this module: a
# submission embeds the agent's imports, and this module is the toolkit's, not an agent's.
MAIN_PY = '''{marker}: {what}.
"""A ConnectX agent that plays a trained policy network (an MLP) with numpy alone: the weights in
data/{name}, read once at load; each move the full columns are masked and the highest logit played.

Evaluate it with `connectx match <this folder> random`; build it into one submission (this code and the
weights, embedded) with `connectx build <this folder>`.
"""

import io

import numpy as np

from agents.core.resources import load_resource


def read_policy(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        count = int(archive["layers"])
        layers = [(archive[f"weight{{i}}"].astype(np.float64), archive[f"bias{{i}}"].astype(np.float64))
                  for i in range(count)]
        return int(archive["rows"]), int(archive["columns"]), str(archive["activation"]), str(archive["layout"]), layers


ROWS, COLUMNS, ACTIVATION, LAYOUT, LAYERS = read_policy(load_resource("{name}"))  # once, at load


def logits(board, mark):
    """The network's logits for the player ``mark`` to move on Kaggle's flat ``board``."""
    cells = np.asarray(board, dtype=np.int8).reshape(ROWS, COLUMNS)
    planes = np.stack([cells == mark, (cells != 0) & (cells != mark)]).astype(np.float64)
    x = (planes if LAYOUT == "planes" else planes.transpose(1, 2, 0)).reshape(-1)
    for i, (weight, bias) in enumerate(LAYERS):
        x = x @ weight.T + bias
        if i < len(LAYERS) - 1:
            x = np.tanh(x) if ACTIVATION == "tanh" else np.maximum(x, 0.0)
    return x


def agent(obs, config):
    if (config.rows, config.columns) != (ROWS, COLUMNS):
        raise ValueError(f"this policy was trained on {{ROWS}}x{{COLUMNS}}, not {{config.rows}}x{{config.columns}}")
    scores = logits(obs.board, obs.mark)
    scores[np.asarray(obs.board[:COLUMNS]) != 0] = -np.inf  # a full column: its top cell is taken
    return int(np.argmax(scores))
'''


def policy_document(layers: Sequence[tuple[np.ndarray, np.ndarray]], *, activation: str, layout: str,
                    rows: int, columns: int) -> bytes:
    """The bytes of ``data/policy.npz``: the layers (float32), their count, the board, the activation, the layout.
    Raises ValueError when the layers do not chain from ``2 * rows * columns`` inputs to ``columns`` logits."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    if not layers:
        raise ValueError("an MLP needs at least one layer")
    arrays: dict[str, np.ndarray] = {}
    width = 2 * rows * columns
    for i, (weight, bias) in enumerate(layers):
        weight, bias = np.asarray(weight, dtype=np.float32), np.asarray(bias, dtype=np.float32)
        if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
            raise ValueError(f"layer {i}: weight {weight.shape} and bias {bias.shape} do not take {width} inputs "
                             f"(a weight is (out, in), as torch's nn.Linear holds it)")
        arrays[f"weight{i}"], arrays[f"bias{i}"] = weight, bias
        width = weight.shape[0]
    if width != columns:
        raise ValueError(f"the last layer has {width} outputs; the policy needs one logit per column, {columns}")
    buffer = io.BytesIO()
    arrays.update(layers=np.array(len(layers)), rows=np.array(rows), columns=np.array(columns),
                  activation=np.array(activation), layout=np.array(layout))
    np.savez_compressed(buffer, **arrays)  # pyright: ignore[reportArgumentType]  numpy's stub lets a name be allow_pickle
    return buffer.getvalue()


def read_policy(data: bytes) -> tuple[int, int, str, str, list[tuple[np.ndarray, np.ndarray]]]:
    """``(rows, columns, activation, layout, layers)`` from the bytes of a ``policy.npz`` (main.py's own reader)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        count = int(archive["layers"])
        layers = [(archive[f"weight{i}"].astype(np.float64), archive[f"bias{i}"].astype(np.float64))
                  for i in range(count)]
        return (int(archive["rows"]), int(archive["columns"]), str(archive["activation"]), str(archive["layout"]),
                layers)


def write_mlp_agent(out: str | os.PathLike, layers: Sequence[tuple[np.ndarray, np.ndarray]], *,
                    activation: str = "tanh", layout: str = "planes", rows: int = DEFAULT_CONFIG.rows,
                    columns: int = DEFAULT_CONFIG.columns,
                    what: str = "a policy network") -> tuple[str, str]:
    """Write ``OUT/main.py`` and ``OUT/data/policy.npz``; their paths. OUT may be new, empty, or a folder this
    function wrote (its main.py starts with ``MARKER``); anything else raises ValueError and nothing is written."""
    out = os.fspath(out)
    document = policy_document(layers, activation=activation, layout=layout, rows=rows, columns=columns)
    problem = why_not_writable(out, MARKER, __name__)
    if problem:
        raise ValueError(f"{out}: {problem}")
    main = os.path.join(out, "main.py")
    data = os.path.join(out, "data", POLICY_NAME)
    os.makedirs(os.path.dirname(data), exist_ok=True)
    text = MAIN_PY.format(marker=MARKER, what=" ".join(what.split()), name=POLICY_NAME)
    write_atomically(data, document)
    write_atomically(main, text)
    return main, data
