"""The n-tuple TD(λ) learner (``connectx train --learner ntuple``): Connect 4 (6x7) values learned by self-play.

One concept a module:
- ``tuples``: the fixed 8-tuples (70, and 70 more) and the board encoding (four cell states, the mirror image);
- ``rules``: the game's rules compiled with numba (the game core's bitboards; proven equal to Kaggle's by
  ``tests/training/test_ntuple_rules.py``);
- ``network``: the tables, the value, and the TD(λ) update with TCL step sizes;
- ``threats``: the threat tables' entries (each column's winning cells), compiled;
- ``selfplay``: whole self-play episodes in one compiled call, with their own seeded generator;
- ``trainer``: the settings and the run (chunks, curve points, checkpoints, Ctrl-C, a wall budget);
- ``checkpoints``: a run's whole state in one atomically written file; the learning curve's CSV and PNG are
  ``training.curve``'s.

The Python face::

    from connectx_toolkit.training import ntuple
    state = ntuple.new_state(ntuple.NTupleSettings(seed=1))
    ntuple.train(state, "my_run", episodes=200_000)        # checkpoints into my_run/ (which must exist)
    ntuple.write_weights(state, "my_run/data/ntuple_6x7.npz")   # the agent's weights (agents/ntuple_engine reads them)
    state = ntuple.load("my_run")                            # ... and later, from its checkpoint
"""

from __future__ import annotations

import numpy as np

from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.training.curve import write_csv, write_png

from .checkpoints import TrainingState, load, save
from .trainer import NTupleSettings, network, new_state, tables, threat_tables, train
from .tuples import tuple_set

__all__ = ["NTupleSettings", "TrainingState", "averaged_state", "averaged_weights_bytes", "load", "network",
           "new_state", "save", "tables", "threat_tables", "train", "weights_bytes", "write_csv", "write_png",
           "write_weights"]


def _learning_record(settings: dict) -> dict:
    """The settings the weights depend on: not how often the run measured or saved itself."""
    return {k: v for k, v in settings.items() if k not in ("curve_every", "checkpoint_seconds")}


def _file_sets(settings: dict) -> "list[int] | None":
    """The sets a weights file names for a run of ``settings``: one set, or the two sides' (the files before
    stages), name none, so their bytes stay as they were."""
    chosen = NTupleSettings.from_record(settings)
    return chosen.table_sets().tolist() if chosen.stages > 1 else None


def _tuples(settings: dict) -> "tuple[tuple[int, ...], ...]":
    """The tuples of a run of ``settings``."""
    return tuple_set(NTupleSettings.from_record(settings).tuples)


def weights_bytes(state: TrainingState) -> bytes:
    """The agent's weights file for ``state``'s network (``agents.ntuple_engine.network.write_network``: float16
    tables), with the episodes and the settings it was trained with."""
    from connectx_toolkit.agents.ntuple_engine.network import write_network

    # No time in it: the same run gives the same bytes (its CPU time is in the checkpoint and the curve).
    record = {"learner": "ntuple", "episodes": state.episodes, "settings": _learning_record(state.settings)}
    return write_network(_tuples(state.settings), tables(state), record, _file_sets(state.settings), threat_tables(state))


def averaged_state(states: "list[TrainingState]") -> TrainingState:
    """A state whose tables are the mean of several runs' (float64, as trained), with the first run's settings:
    one network whose value sums the runs' mean, an ensemble of the runs at the cost of one (``network``,
    ``tables``, ``threat_tables`` read it; it is not for training on). ValueError when the runs' tables are not
    laid out alike (other tuples, stages, side tables or threat tables)."""
    if not states:
        raise ValueError("no runs to average")
    chosen = [NTupleSettings.from_record(s.settings) for s in states]
    layouts = {(c.tuples, tuple(c.table_sets().tolist()), s.weights.size) for c, s in zip(chosen, states)}
    if len(layouts) > 1:
        raise ValueError("the runs' tables are laid out differently (tuples, stages, side tables, threat tables): they "
                         "cannot be averaged")
    mean = np.zeros_like(states[0].weights)
    for state in states:
        mean += state.weights
    mean /= len(states)
    return TrainingState(mean, np.zeros(0), np.zeros(0), states[0].generator.copy(), settings=dict(states[0].settings))


def averaged_weights_bytes(states: "list[TrainingState]", names: "list[str]", mean: TrainingState) -> bytes:
    """The agent's weights file for ``mean``, the runs ``states``' mean (``averaged_state``), its record naming
    each run's name, games and settings."""
    from connectx_toolkit.agents.ntuple_engine.network import write_network

    runs = [{"name": name, "episodes": state.episodes, "settings": _learning_record(state.settings)}
            for name, state in zip(names, states)]
    return write_network(_tuples(mean.settings), tables(mean), {"learner": "ntuple", "averaged": runs}, _file_sets(mean.settings),
                         threat_tables(mean))


def write_weights(state: TrainingState, path: str) -> str:
    """Write ``weights_bytes(state)`` to ``path`` whole; returns the path."""
    write_atomically(path, weights_bytes(state))
    return path
