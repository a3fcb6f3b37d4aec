"""A training run's checkpoint: everything the run needs to go on as if it had never stopped, in one file.

``checkpoint.npz`` in the run's folder holds the network's tables and its two TCL accumulators (float64, as
trained; only the entries training has touched), the generator's state, the episodes played, the CPU seconds they
took, the settings and the learning curve so far. It is written whole or not at all (``atomic.write_atomically``), so a run killed at any moment
(``kill -9`` included) leaves the previous checkpoint intact. The file is an npz
(``agents.ntuple_engine.network.npz_bytes``, stored, not compressed: it is written every few minutes).
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field

import numpy as np

from connectx_toolkit.agents.ntuple_engine.network import npz_bytes
from connectx_toolkit.atomic import write_atomically

CHECKPOINT_NAME = "checkpoint.npz"


def text_array(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def array_text(array: np.ndarray) -> str:
    return array.tobytes().decode("utf-8")


@dataclass
class TrainingState:
    """Where a run stands: the network's arrays (changed in place by training) and its counts."""

    weights: np.ndarray
    coherence_sum: np.ndarray
    coherence_size: np.ndarray
    generator: np.ndarray  # the kernels' generator state: one uint64
    episodes: int = 0
    cpu_seconds: float = 0.0  # training's CPU time so far (the curve's measurements not included)
    settings: dict = field(default_factory=dict)
    curve: list[dict] = field(default_factory=list)
    target: int | None = None  # the games in all the run was last asked for: a resume asked for none goes there


def save(state: TrainingState, folder: str) -> str:
    """Write ``folder``/checkpoint.npz whole; returns its path."""
    path = os.path.join(folder, CHECKPOINT_NAME)
    meta = {"episodes": state.episodes, "cpu_seconds": state.cpu_seconds, "settings": state.settings,
            "curve": state.curve, "target": state.target}
    # Only the entries training has touched (coherence_size > 0 from an entry's first change on): most never are.
    touched = np.flatnonzero(state.coherence_size)
    write_atomically(path, npz_bytes({
        "size": np.array([state.weights.size]), "touched": touched.astype(np.int64),
        "weights": state.weights[touched], "coherence_sum": state.coherence_sum[touched],
        "coherence_size": state.coherence_size[touched], "generator": state.generator,
        "meta": text_array(json.dumps(meta)),
    }, compress=False))
    return path


def _dense(size: int, touched: np.ndarray, values: np.ndarray) -> np.ndarray:
    array = np.zeros(size)
    array[touched] = values
    return array


def load(folder: str) -> TrainingState:
    """The checkpoint in ``folder``; FileNotFoundError when there is none, ValueError when it is not one."""
    path = os.path.join(folder, CHECKPOINT_NAME)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{folder}: no {CHECKPOINT_NAME} (not an n-tuple training run's folder)")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(array_text(data["meta"]))
            size, touched = int(data["size"][0]), data["touched"]
            return TrainingState(
                weights=_dense(size, touched, data["weights"]),
                coherence_sum=_dense(size, touched, data["coherence_sum"]),
                coherence_size=_dense(size, touched, data["coherence_size"]), generator=data["generator"].copy(),
                episodes=int(meta["episodes"]), cpu_seconds=float(meta["cpu_seconds"]),
                settings=dict(meta["settings"]), curve=list(meta["curve"]), target=meta.get("target"))
    except (OSError, KeyError, TypeError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a readable checkpoint ({error})") from None
