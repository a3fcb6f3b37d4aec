import json
import random

import numpy as np
import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import td_lambda
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.td_lambda import TDLambda, choose, features_for, weights_for
from connectx_toolkit.training.td_lambda_trainer import win_rate
from tools import train_td_lambda as trainer


def line_features(position: Position) -> dict[str, float]:
    features = features_for(position.config)
    x = features(position)
    return {n: v for n, v in zip(features.names, x) if n.startswith(("me_", "them_")) and "_open" not in n
            and "_cells_" not in n and v}


def test_feature_vector_layout_on_6x7():
    features = features_for(Config())
    # bias, mover_first, 2 x (6 rows + 7 columns + 6 diagonals + 6 anti-diagonals of >= 4 cells),
    # 2 x (open 3/2/1 windows + threat cells by parity), them_can_win_now, me_double_threat
    assert features.size == 2 + 2 * 25 + 2 * 5 + 2 == 64
    assert len(set(features.names)) == features.size


def test_line_fractions_on_a_hand_made_position():
    # X in columns 4 and 3 on the bottom row, O on top of X in column 4: X just moved.
    position = Position.from_string("443")
    x = dict(zip(features_for(position.config).names, features_for(position.config)(position)))
    assert x["bias"] == 1.0 and x["mover_first"] == 1.0
    assert line_features(position) == pytest.approx({
        "me_row0": 2 / 7, "me_col2": 1 / 6, "me_col3": 1 / 6,
        "me_diag4": 1 / 5,  # (2,0)..(6,4): 5 cells
        "me_diag5": 1 / 4,  # (3,0)..(6,3): 4 cells
        "me_anti0": 1 / 4,  # (0,3)..(3,0): 4 cells; (2,0) lies on a 3-cell anti-diagonal, not a feature
        "them_row1": 1 / 7, "them_col3": 1 / 6,
        "them_diag4": 1 / 5,  # (3,1) is on the diagonal from (2,0)
        "them_anti1": 1 / 5,  # (0,4)..(4,0)
    })


def test_threat_features_count_open_windows_and_playable_wins():
    position = Position.from_moves([1, 1, 2, 2, 3])  # X: (1,0) (2,0) (3,0); O: (1,1) (2,1); O to move
    features = features_for(position.config)
    x = dict(zip(features.names, features(position)))
    assert x["me_open3"] == pytest.approx(0.2)  # windows columns 0-3 and 1-4 hold three X and no O
    assert x["me_double_threat"] == 1.0  # columns 0 and 4 both win at once
    assert x["them_can_win_now"] == 0.0
    assert x["them_open2"] == pytest.approx(0.1 * 2)  # row 1: windows columns 0-3 and 1-4


def test_td_update_moves_value_toward_target_by_alpha_delta_norm():
    learner = TDLambda(np.zeros(2), alpha=0.1, gamma=1.0, lam=0.5)
    x = np.array([1.0, 0.5])
    delta = learner.update(x, target=1.0)
    assert delta == pytest.approx(1.0)
    # Linear value, fresh trace: the step is alpha * delta * |x|^2 = 0.1 * 1 * 1.25.
    assert learner.value(x) == pytest.approx(0.125)
    delta = learner.update(x, target=1.0)  # trace is now (1 + γλ) x = 1.5 x
    assert delta == pytest.approx(0.875)
    assert learner.value(x) == pytest.approx(0.125 + 0.1 * 0.875 * 1.5 * 1.25)


def test_eligibility_traces_decay_by_gamma_lambda():
    learner = TDLambda(np.zeros(3), alpha=0.5, gamma=0.9, lam=0.5)
    x1, x2, x3 = np.eye(3)
    learner.update(x1, target=0.0)  # δ = 0: only the trace changes
    learner.update(x2, target=0.0)
    assert learner.trace == pytest.approx(0.45 * x1 + x2)
    # A surprise at the third state reaches the earlier ones in proportion to their trace.
    learner.update(x3, target=1.0)
    assert learner.weights == pytest.approx(0.5 * 1.0 * np.array([0.45**2, 0.45, 1.0]))
    learner.reset()
    assert not learner.trace.any()


@pytest.mark.parametrize("weights_kind", ["zero", "shipped"])
def test_takes_a_win_and_blocks_a_loss(weights_kind):
    features = features_for(Config())
    weights = np.zeros(features.size) if weights_kind == "zero" else weights_for(Config())
    assert choose(Position.from_string("121212"), weights, features) == 0  # X wins in column 1
    assert choose(Position.from_string("12131"), weights, features) == 0  # O must block column 1


def test_never_drops_a_stone_under_the_opponents_winning_cell():
    # O holds (0,1) (1,1) (2,1): a stone on (3,0) would let O win on (3,1). X to move, no wins now.
    position = Position.from_moves([0, 2, 1, 0, 5, 1, 6, 2])
    assert not position.immediate_wins() and not position.opponent_threats()
    assert position.winning_cells(own=False) == position.geometry.bit(3, 1)
    features = features_for(Config())
    for weights in (np.zeros(features.size), weights_for(Config())):  # zero weights alone would pick 3
        assert choose(position, weights, features) != 3


def test_shipped_weights_load_and_beat_random():
    features = features_for(Config())
    blob = td_lambda.load_resource("td_lambda_6x7.json")
    shipped = td_lambda.parse_weights(blob, features)
    assert shipped is not None and shipped.shape == (features.size,)
    assert np.array_equal(weights_for(Config()), shipped)
    assert not np.array_equal(shipped, features.default_weights())
    assert win_rate(shipped, features, games=40, seed=99) >= 0.9
    assert win_rate(shipped, features, games=40, seed=99, tactics=False) >= 0.8


def test_default_weights_beat_random_on_a_large_board():
    features = features_for(Config(10, 12, 5))
    assert win_rate(weights_for(Config(10, 12, 5)), features, games=10, seed=3) >= 0.9


@pytest.mark.parametrize("shape", [(6, 7, 4), (1, 1, 1), (3, 9, 5), (10, 12, 5), (4, 4, 9), (2, 3, 2)])
def test_agent_plays_legal_plain_ints_on_any_configuration(shape):
    rows, columns, inarow = shape
    config = Config(rows, columns, inarow)
    rng = random.Random(1)
    position = Position(config)
    while not position.is_full():
        board = position.to_board()
        mark = 1 if position.moves % 2 == 0 else 2
        move = td_lambda.agent(Struct(board=board, mark=mark), Struct(rows=rows, columns=columns, inarow=inarow))
        assert type(move) is int and position.can_play(move)
        won = position.is_winning_move(move)
        position.play(move)
        if won or position.is_full():
            break
        position.play(rng.choice(position.legal_moves()))
        if position.last_player_won():
            break


def test_cli_rejects_bad_input_with_one_line(tmp_path, capsys):
    assert trainer.main(["--episodes", "0", "--out", str(tmp_path / "w.json")]) == 2
    assert trainer.main(["--episodes", "5", "--rows", "0", "--out", str(tmp_path / "w.json")]) == 2
    assert trainer.main(["--episodes", "5", "--out", str(tmp_path / "missing" / "w.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("train_td_lambda: ") for line in err)
    assert not (tmp_path / "w.json").exists()


def test_cli_writes_weights_and_curve(tmp_path):
    out, curve = tmp_path / "w.json", tmp_path / "curve.png"
    args = ["--episodes", "6", "--seed", "2", "--eval-every", "3", "--eval-games", "4", "--quiet",
            "--out", str(out), "--curve", str(curve)]
    assert trainer.main(args) == 0
    data = json.loads(out.read_text())
    assert data["config"] == {"rows": 6, "columns": 7, "inarow": 4}
    assert [point[0] for point in data["training"]["curve"]] == [0, 3, 6]
    # beside the win rates, the accuracy on the shipped benchmark (all, critical): the curve's lower panel
    assert data["training"]["curve_columns"][4:] == ["accuracy_all", "accuracy_critical"]
    assert all(0 < point[5] < point[4] < 1 for point in data["training"]["curve"])
    assert td_lambda.parse_weights(out.read_bytes(), features_for(Config())) is not None
    assert curve.read_bytes().startswith(b"\x89PNG")


def test_built_submission_embeds_and_uses_the_shipped_weights():
    from connectx_toolkit.cli import build_submission
    text, _, resources = build_submission.build_text("td_lambda")
    assert "td_lambda_6x7.json" in resources
    namespace: dict = {}
    exec(compile(text, "submission.py", "exec"), namespace)
    embedded = namespace["_module"]("agents.td_lambda")
    embedded_config = namespace["_module"]("agents.core").Config()
    assert np.array_equal(embedded.weights_for(embedded_config), weights_for(Config()))
    board = Position.from_string("12131").to_board()
    assert namespace["agent"](Struct(board=board, mark=2), Struct(rows=6, columns=7, inarow=4)) == 0
