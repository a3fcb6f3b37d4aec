"""From training to the ladder, one path: TD(λ) self-play in the AEC env, ``connectx-train``'s agent folder, the
builder's one file (code and weights embedded, the weights decoded once at load), Kaggle's loader, games.

The default suite trains a few hundred episodes at most; the full path (the shipped weights' 20000 episodes, the
gate against random, the score against the untrained agent) is ``-m slow``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from connectx_toolkit.agents import td_lambda
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.td_lambda import features_for, weights_for
from connectx_toolkit.building import build
from connectx_toolkit.building.sources import ROOT
from connectx_toolkit.cli import train as train_cli
from connectx_toolkit.training.td_lambda_trainer import DEFAULT_ENV, TrainingSettings, observed_position, train
from tests.helpers import played_without_forfeit, kaggle_load_script
from tools.sample_positions import undecided_position


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    assert not str(tmp_path).startswith(ROOT)
    return tmp_path


def test_the_observation_rebuilds_the_cores_position_and_the_env_ends_games_as_the_core_does():
    rng = random.Random(4)
    env = DEFAULT_ENV(rows=6, columns=7, inarow=4)
    for game in range(12):
        env.reset()
        position, verdict = Position(Config()), None
        for name in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                assert verdict is not None  # the env ended the game when the core did
                winner, = [seat for seat, won in enumerate(verdict) if won] or [None]
                seat = env.possible_agents.index(name)
                assert reward == (0 if winner is None else 1 if seat == winner else -1)
                env.step(None)
                continue
            assert verdict is None
            seen = observed_position(observation["observation"], Config())
            assert (seen.current, seen.mask, seen.moves) == (position.current, position.mask, position.moves)
            assert list(np.flatnonzero(observation["action_mask"])) == position.legal_moves()
            column = rng.choice(position.legal_moves())
            won = position.is_winning_move(column)
            mover = position.moves % 2
            position.play(column)
            env.step(column)
            if won or position.is_full():
                verdict = (won and mover == 0, won and mover == 1)
        assert verdict is not None
    env.close()


def test_training_is_reproducible_from_its_seed():
    first = train(TrainingSettings(episodes=30, seed=7))
    second = train(TrainingSettings(episodes=30, seed=7))
    other = train(TrainingSettings(episodes=30, seed=8))
    assert np.array_equal(first, second)
    assert not np.array_equal(first, other)


def test_self_play_learns_that_an_open_opponent_win_is_bad():
    weights = train(TrainingSettings(episodes=300, seed=5, tactics=False, epsilon=0.3))
    names = features_for(Config()).names
    assert weights[names.index("them_can_win_now")] < -0.2
    assert weights[names.index("me_open3")] > 0


@pytest.mark.parametrize("argv, message", [
    (["--episodes", "-1"], "--episodes must be at least 0"),
    (["--episodes", "ten"], "argument --episodes: 'ten' is not an integer"),
    (["--untrained", "--episodes", "5"], "--untrained writes the weights training starts from: it takes no --episodes"),
    (["--rows", "0"], "rows must be an integer >= 1, got 0"),
    (["--evaluate", "-3"], "--evaluate must be at least 0"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(outside, capsys, argv, message):
    assert train_cli.main([*argv, "--out", str(outside / "bot"), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"connectx-train: error: {message}\n" and captured.out == ""
    assert not (outside / "bot").exists()


def test_a_folder_of_ones_own_is_never_overwritten(outside, capsys):
    (outside / "mine").mkdir()
    (outside / "mine" / "main.py").write_text("def agent(obs, config):\n    return 3\n")
    (outside / "file").write_text("x")
    assert train_cli.main(["--untrained", "--out", str(outside / "mine")]) == 2
    assert train_cli.main(["--untrained", "--out", str(outside / "file")]) == 2
    assert train_cli.main(["--untrained"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"connectx-train: error: --out {outside / 'mine'}: its main.py was not written by connectx-train; "
                   "choose another folder",
                   f"connectx-train: error: --out {outside / 'file'}: exists and is not a folder",
                   "connectx-train: error: --out DIR is required"]  # (--resume DIR needs none)
    assert (outside / "mine" / "main.py").read_text().endswith("return 3\n")
    assert train_cli.main(["--untrained", "--out", str(outside / "bot")]) == 0
    assert train_cli.main(["--untrained", "--out", str(outside / "bot")]) == 0  # its own folder: replaced


def test_untrained_writes_the_weights_training_starts_from(outside, capsys):
    assert train_cli.main(["--untrained", "--out", str(outside / "bot")]) == 0
    trained = td_lambda.read_weights((outside / "bot" / "data" / train_cli.WEIGHTS_NAME).read_bytes())
    assert trained.config == Config() and not trained.weights.any()
    assert json.loads((outside / "bot" / "data" / train_cli.WEIGHTS_NAME).read_text())["training"]["episodes"] == 0
    assert capsys.readouterr().out.startswith(f"wrote {outside / 'bot' / 'main.py'}\n")  # no training, no time


def test_read_weights_refuses_what_is_not_a_weights_file():
    with pytest.raises(ValueError, match="not a TD\\(λ\\) weights file"):
        td_lambda.read_weights(b"{}")
    document = json.loads(td_lambda.weights_document(weights_for(Config()), features_for(Config()), {}))
    document["features"] = document["features"][:-1]
    with pytest.raises(ValueError, match="another feature set"):
        td_lambda.read_weights(json.dumps(document).encode())


KAGGLE_LOAD = kaggle_load_script("json.loads = json.JSONDecoder.decode")  # every move made after the weights' decoder broke


def sampled_positions(count: int) -> list[Position]:
    rng = random.Random(21)
    return [undecided_position(rng, Config(), plies) for plies in [0, 2, 5, 8, 11, 14, 17, 20] * (count // 8)]


def test_short_end_to_end_train_build_load_as_kaggle_and_play(outside, capsys):
    bot = outside / "my_td_bot"
    assert train_cli.main(["--episodes", "60", "--seed", "3", "--out", str(bot), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("trained 60 self-play episodes in ") and f"wrote {bot / 'main.py'}" in out
    trained = td_lambda.read_weights((bot / "data" / train_cli.WEIGHTS_NAME).read_bytes())
    assert np.array_equal(trained.weights, train(TrainingSettings(episodes=60, seed=3)))

    report = build(str(bot), out=str(outside / "submission.py"))  # validated by Kaggle's loader, as connectx-build
    assert train_cli.WEIGHTS_NAME in report.data and "agents.td_lambda" in report.modules
    positions = sampled_positions(16)
    cases = outside / "cases.json"
    cases.write_text(json.dumps([{"board": p.to_board(1 + p.moves % 2), "mark": 1 + p.moves % 2} for p in positions]))
    run = subprocess.run([sys.executable, "-I", "-c", KAGGLE_LOAD, str(outside / "submission.py"), str(cases)],
                         cwd=outside, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    expected = [td_lambda.choose(p, trained.weights, features_for(Config())) for p in positions]
    assert json.loads(run.stdout.splitlines()[-1]) == expected  # the embedded weights, not the shipped ones

    from connectx_toolkit.evaluation.api import play_match

    summary = play_match(str(outside / "submission.py"), "random", games=4, workers=1, progress=False)
    assert played_without_forfeit(summary, 4)


@pytest.mark.slow
def test_full_path_trains_the_shipped_weights_passes_the_gate_and_beats_its_untrained_self(outside, capsys):
    """The path docs/training.md shows (a few CPU minutes): 20000 episodes of seed 1 are the shipped weights, bit
    for bit; the built file PASSes the gate against random and beats the untrained agent, its interval above 1/2."""
    from connectx_toolkit.cli import evaluate
    from connectx_toolkit.evaluation.api import play_match

    bot, untrained = outside / "my_td_bot", outside / "my_td_bot_untrained"
    assert train_cli.main(["--episodes", "20000", "--seed", "1", "--out", str(bot), "--quiet"]) == 0
    assert train_cli.main(["--untrained", "--out", str(untrained)]) == 0
    shipped = json.loads(td_lambda.load_resource("td_lambda_6x7.json"))
    assert json.loads((bot / "data" / train_cli.WEIGHTS_NAME).read_text())["weights"] == shipped["weights"]
    capsys.readouterr()

    built = outside / "submission.py"
    build(str(bot), out=str(built))
    assert evaluate.main(["--gate", str(built), "--baseline", "random", "--workers", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "PASS"

    summary = play_match(str(built), str(untrained), games=100, workers=2, progress=False)
    trained_agent = summary["agents"][0]
    assert played_without_forfeit(summary, 100)
    assert trained_agent["score_ci"][0] > 0.5, trained_agent
