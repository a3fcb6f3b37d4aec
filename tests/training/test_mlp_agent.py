"""The numpy policy agent a trained MLP is exported to (``training.mlp_agent``; examples/train_sb3.py and
examples/train_rllib.py write it): random weights -> the agent folder -> the builder's one file -> Kaggle's loader
in a clean interpreter, its moves those of an independent forward pass, full columns never played, the weights
decoded once at load. No torch anywhere: the examples' own runs (torch, stable-baselines3, Ray) skip without them.
"""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from connectx_toolkit.agents.core import Config
from connectx_toolkit.building import build
from connectx_toolkit.building.sources import ROOT
from connectx_toolkit.training.mlp_agent import MARKER, POLICY_NAME, read_policy, write_mlp_agent
from tests.helpers import played_without_forfeit, kaggle_load_script
from tools.sample_positions import undecided_position

EXAMPLES = os.path.join(ROOT, "examples")
ROWS, COLUMNS = 6, 7


def random_layers(seed: int, hidden: tuple[int, ...] = (32, 16)) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    widths = [2 * ROWS * COLUMNS, *hidden, COLUMNS]
    return [(rng.normal(0, 1, (out, inp)).astype(np.float32), rng.normal(0, 0.5, out).astype(np.float32))
            for inp, out in zip(widths, widths[1:])]


def reference_move(layers, board: list[int], mark: int, activation: str = "tanh") -> int:
    """The forward pass written again, channel by channel, on the (2, rows, columns) planes."""
    cells = np.array(board).reshape(ROWS, COLUMNS)
    x = np.concatenate([(cells == mark).ravel(), ((cells != mark) & (cells != 0)).ravel()]).astype(np.float64)
    for i, (weight, bias) in enumerate(layers):
        x = weight.astype(np.float64) @ x + bias.astype(np.float64)
        if i < len(layers) - 1:
            x = np.tanh(x) if activation == "tanh" else np.maximum(x, 0)
    legal = [c for c in range(COLUMNS) if board[c] == 0]
    return max(legal, key=lambda c: x[c])


def as_channels_last(layers):
    """The same network for input flattened as (rows, columns, 2): the first layer's columns permuted."""
    (weight, bias), *rest = layers
    permuted = weight.reshape(-1, 2, ROWS, COLUMNS).transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)
    return [(permuted, bias), *rest]


def positions(count: int) -> list[tuple[list[int], int]]:
    rng = random.Random(8)
    found = []
    for plies in [0, 3, 9, 16, 22, 27, 31] * (count // 7 + 1):
        position = undecided_position(rng, Config(), plies)
        mark = 1 + position.moves % 2
        found.append((position.to_board(mark), mark))
    return found[:count]


KAGGLE_LOAD = kaggle_load_script("numpy.load")  # every move made after the weights' decoder broke


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    assert not str(tmp_path).startswith(ROOT)
    return tmp_path


def test_random_weights_build_load_as_kaggle_and_play_the_forward_pass(outside):
    layers = random_layers(1)
    bot = outside / "my_mlp_bot"
    main, data = write_mlp_agent(bot, layers, activation="tanh", layout="planes", what="random weights")
    assert Path(main).read_text().startswith(MARKER) and Path(data).name == POLICY_NAME

    report = build(str(bot), out=str(outside / "submission.py"))  # validated by Kaggle's loader, as connectx-build
    assert POLICY_NAME in report.data and report.external == ["numpy"]
    cases = positions(42)
    (outside / "cases.json").write_text(json.dumps([{"board": b, "mark": m} for b, m in cases]))
    run = subprocess.run([sys.executable, "-I", "-c", KAGGLE_LOAD, str(outside / "submission.py"),
                          str(outside / "cases.json")], cwd=outside, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[-1]) == [reference_move(layers, b, m) for b, m in cases]

    from connectx_toolkit.evaluation.api import play_match

    summary = play_match(str(outside / "submission.py"), "random", games=4, workers=1, progress=False)
    assert played_without_forfeit(summary, 4)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_both_layouts_and_activations_play_the_same_network(outside, activation):
    layers = random_layers(2)
    agents = {}
    for layout, network in [("planes", layers), ("channels_last", as_channels_last(layers))]:
        write_mlp_agent(outside / layout, network, activation=activation, layout=layout)
        agents[layout] = load_main(outside / layout)
    config = Config()
    for board, mark in positions(35):
        obs = Observation(board=board, mark=mark)
        expected = reference_move(layers, board, mark, activation)
        assert agents["planes"].agent(obs, config) == agents["channels_last"].agent(obs, config) == expected


def test_a_full_column_is_never_played_however_high_its_logit(outside):
    layers = random_layers(3, hidden=(8,))
    weight, bias = layers[-1]
    bias = bias.copy()
    bias[3] = 1e6  # column 3 wins every argmax
    write_mlp_agent(outside / "bot", [layers[0], (weight, bias)])
    agent = load_main(outside / "bot").agent
    board = [0] * (ROWS * COLUMNS)
    assert agent(Observation(board=board, mark=1), Config()) == 3
    for row in range(ROWS):
        board[row * COLUMNS + 3] = 1 + row % 2
    move = agent(Observation(board=board, mark=1), Config())
    assert move != 3 and board[move] == 0


def test_the_policy_file_round_trips_in_float32():
    layers = random_layers(4)
    main_reader = read_policy  # main.py repeats this reader; the built test above runs main.py's own copy
    from connectx_toolkit.training.mlp_agent import policy_document

    rows, columns, activation, layout, read = main_reader(policy_document(layers, activation="relu",
                                                                          layout="channels_last", rows=6, columns=7))
    assert (rows, columns, activation, layout) == (6, 7, "relu", "channels_last")
    assert all(np.array_equal(w, w0) and np.array_equal(b, b0) for (w, b), (w0, b0) in zip(read, layers))


@pytest.mark.parametrize("change, message", [
    (lambda ls: [(ls[0][0][:, :-1], ls[0][1])] + ls[1:], "layer 0: weight \\(32, 83\\) and bias \\(32,\\) do not take 84"),
    (lambda ls: ls[:-1], "the last layer has 16 outputs; the policy needs one logit per column, 7"),
    (lambda ls: [], "an MLP needs at least one layer"),
])
def test_layers_that_do_not_make_a_policy_are_refused(outside, change, message):
    with pytest.raises(ValueError, match=message):
        write_mlp_agent(outside / "bot", change(random_layers(5)))
    assert not (outside / "bot").exists()


def test_a_folder_of_ones_own_is_never_overwritten(outside):
    (outside / "mine").mkdir()
    (outside / "mine" / "main.py").write_text("def agent(obs, config):\n    return 3\n")
    with pytest.raises(ValueError, match="its main.py was not written by connectx_toolkit.training.mlp_agent"):
        write_mlp_agent(outside / "mine", random_layers(6))
    assert (outside / "mine" / "main.py").read_text().endswith("return 3\n")
    assert not (outside / "mine" / "data").exists()
    write_mlp_agent(outside / "bot", random_layers(6))
    write_mlp_agent(outside / "bot", random_layers(7))  # its own folder: replaced


@pytest.mark.parametrize("name", ["train_sb3.py", "train_rllib.py"])
def test_the_examples_parse_and_say_how_to_install_what_they_need(name):
    source = Path(EXAMPLES, name).read_text(encoding="utf-8")
    ast.parse(source, name)
    assert "pip install -r requirements-train.txt" in source


@pytest.mark.parametrize("name, needs", [("train_sb3.py", "sb3_contrib"), ("train_rllib.py", "ray.rllib")])
def test_an_example_without_its_library_is_one_line_not_a_traceback(name, needs):
    try:
        __import__(needs)
    except ImportError:
        pass
    else:
        pytest.skip(f"{needs} is installed here")
    run = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--out", "unused"], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": ROOT})
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().endswith("pip install -r requirements-train.txt (docs/training.md)")


class Observation:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def load_main(folder: Path):
    """The folder's main.py imported as its own module (``agents`` from the checkout, load_resource from data/)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"mlp_main_{folder.name}_{id(folder)}", folder / "main.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def curve_steps(folder: Path) -> list[int]:
    import csv

    with open(folder / "learning_curve.csv", newline="") as handle:
        return [int(row["steps"]) for row in csv.DictReader(handle)]


def run_example(name: str, out: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--out", str(out), *argv],
                          capture_output=True, text=True, timeout=600, cwd=out.parent,
                          env={**os.environ, "PYTHONPATH": ROOT})


def test_the_sb3_example_trains_exports_and_its_numpy_agent_agrees_with_torch(outside):
    """A few seconds of MaskablePPO (where requirements-train.txt is installed; skipped in the main .venv)."""
    pytest.importorskip("sb3_contrib", reason="examples/train_sb3.py needs requirements-train.txt")
    run = run_example("train_sb3.py", outside / "ppo", "--timesteps", "2048", "--envs", "4", "--check", "200",
                      "--curve-every", "1024")
    assert run.returncode == 0, run.stderr
    assert "numpy main.py agrees with the torch policy on 200/200 positions" in run.stdout
    # its learning curve: at the start and between rollouts of 4 envs x 256 steps (measuring.learning_curve)
    assert curve_steps(outside / "ppo") == [0, 1024, 2048]
    build(str(outside / "ppo"), out=str(outside / "submission.py"))


@pytest.mark.slow
def test_the_rllib_example_trains_exports_and_its_numpy_agent_agrees_with_rllib(outside):
    """Two small iterations of RLlib self-play (a local Ray: ~20 s with its start)."""
    pytest.importorskip("ray.rllib", reason="examples/train_rllib.py needs requirements-train.txt")
    run = run_example("train_rllib.py", outside / "rllib", "--iterations", "2", "--batch", "500", "--check", "200",
                      "--curve-every", "400")
    assert run.returncode == 0, run.stderr
    steps = curve_steps(outside / "rllib")  # when built, then after each iteration (about 500 steps each)
    assert len(steps) == 3 and steps[0] == 0 and steps[1] < steps[2]
    assert "numpy main.py agrees with the RLlib policy on" in run.stdout
    same = run.stdout.split("agrees with the RLlib policy on ")[1].split()[0]
    assert same.split("/")[0] == same.split("/")[1]
    build(str(outside / "rllib"), out=str(outside / "submission.py"))
