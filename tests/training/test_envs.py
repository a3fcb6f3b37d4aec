"""The training environments: gymnasium's and PettingZoo's own checks, seeding, seats, observations, the action
mask, Kaggle's ruling of illegal moves and forfeits, every kind of opponent, and other board sizes.

(Their transitions are compared with Kaggle's Environment in tests/training/test_differential.py.)
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the training envs need gymnasium (requirements.txt)")
pytest.importorskip("pettingzoo", reason="the self-play env needs pettingzoo (requirements.txt)")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from connectx_toolkit.agents.core import Config, Position  # noqa: E402
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent  # noqa: E402
from connectx_toolkit.training import self_play  # noqa: E402
from connectx_toolkit.training.opponents import IsolatedOpponent, RandomOpponent, make_opponent  # noqa: E402
from connectx_toolkit.training.single_env import ENV_ID, ConnectXEnv  # noqa: E402

SHAPES = [(6, 7, 4), (5, 6, 3), (7, 9, 5)]


def scripted(columns: list[int]):
    """An opponent callable that plays ``columns`` in order (Kaggle-shaped arguments)."""
    moves = iter(columns)

    def agent(obs, config):
        assert len(obs.board) == config.rows * config.columns and obs.mark in (1, 2)
        return next(moves)

    return agent


def play_random(env: ConnectXEnv, seed: int, episodes: int) -> list[tuple]:
    """Every transition of ``episodes`` episodes with a seeded random learner (legal columns only)."""
    rng = random.Random(seed)
    trace = []
    obs, info = env.reset(seed=seed)
    trace.append((obs.tobytes(), info["seat"]))
    for _ in range(episodes):
        while True:
            legal = np.flatnonzero(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(list(legal))))
            trace.append((obs.tobytes(), reward, terminated, truncated))
            if terminated:
                trace.append(tuple(info["statuses"]) + (info["winner"],))
                obs, info = env.reset()
                trace.append((obs.tobytes(), info["seat"]))
                break
    return trace


# -- gymnasium and PettingZoo's own checks ---------------------------------------------------------------------

@pytest.mark.parametrize("obs_type", ["planes", "kaggle"])
@pytest.mark.parametrize("seat", [0, 1, "alternate"])
@pytest.mark.parametrize("shape", SHAPES)
def test_check_env_passes(obs_type, seat, shape):
    rows, columns, inarow = shape
    env = gymnasium.make(ENV_ID, seat=seat, obs_type=obs_type, rows=rows, columns=columns, inarow=inarow,
                         render_mode="ansi").unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's checker warns about what it does not fail on
        check_env(env, skip_render_check=False)
    assert env.observation_space.shape == ((2, rows, columns) if obs_type == "planes" else (rows * columns,))
    assert env.action_space.n == columns


@pytest.mark.parametrize("shape", SHAPES)
def test_pettingzoo_api_test_passes(shape):
    rows, columns, inarow = shape
    api_test(self_play.env(rows=rows, columns=columns, inarow=inarow), num_cycles=300)
    api_test(self_play.raw_env(rows=rows, columns=columns, inarow=inarow), num_cycles=300)


# -- the single env ----------------------------------------------------------------------------------------------

def test_seeded_episodes_repeat_and_other_seeds_differ():
    first = play_random(ConnectXEnv(seat="alternate"), seed=3, episodes=20)
    again = play_random(ConnectXEnv(seat="alternate"), seed=3, episodes=20)
    other = play_random(ConnectXEnv(seat="alternate"), seed=4, episodes=20)
    assert first == again
    assert first != other


def test_the_random_opponent_draws_as_kaggles_random_agent_from_its_own_generator():
    """Kaggle's random agent is ``choice([c for c in range(columns) if obs.board[c] == EMPTY])``: the same draw."""
    from kaggle_environments.envs.connectx import connectx

    config = Config()
    opponent = RandomOpponent(config)
    opponent.reset(11)
    mirror = random.Random(11)
    position = Position(config)
    for _ in range(30):
        legal = position.legal_moves()
        if not legal:
            break
        expected = mirror.choice([c for c in range(7) if position.to_board()[c] == connectx.EMPTY])
        column = opponent.act(position.current, position.mask, position.moves, position.to_board(), 1)
        assert column == expected and column in legal
        position.play(column)


def test_seat_one_starts_after_the_opponents_first_move_and_alternate_takes_turns():
    env = ConnectXEnv(seat=1, opponent=scripted([3]))
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1 and info["mark"] == 2
    assert obs[0].sum() == 0 and obs[1].sum() == 1 and obs[1, 5, 3] == 1  # the opponent's stone, bottom of column 3
    alternating = ConnectXEnv(seat="alternate")
    seats = [alternating.reset(seed=1)[1]["seat"]] + [alternating.reset()[1]["seat"] for _ in range(3)]
    assert seats == [0, 1, 0, 1]
    assert alternating.reset(seed=1)[1]["seat"] == 0  # a seeded reset starts the alternation again


def test_kaggle_observation_and_planes_show_the_same_board():
    planes = ConnectXEnv(seat=1, opponent=scripted([3, 3, 4, 0]))
    flat = ConnectXEnv(seat=1, opponent=scripted([3, 3, 4, 0]), obs_type="kaggle")
    p, _ = planes.reset(seed=0)
    k, _ = flat.reset(seed=0)
    for action in (3, 2, 4):
        assert k.dtype == p.dtype == np.int8
        board = k.reshape(6, 7)
        assert np.array_equal(p[0], board == 2) and np.array_equal(p[1], board == 1)  # the learner is mark 2
        p, *_ = planes.step(action)
        k, *_ = flat.step(action)
    assert (k != 0).sum() == 7


def test_the_action_mask_follows_the_full_columns_and_a_full_column_is_an_invalid_loss():
    env = ConnectXEnv(opponent=scripted([0, 0, 0, 1, 1]))
    _, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [1] * 7 and info["action_mask"].dtype == np.int8
    for _ in range(3):
        _, reward, terminated, _, info = env.step(0)
        assert reward == 0 and not terminated
    assert info["action_mask"].tolist() == [0, 1, 1, 1, 1, 1, 1]
    obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["statuses"] == ("INVALID", "DONE") and info["blamed"] == 0
    assert info["kaggle_rewards"] == (None, 0) and info["reason"] == "Invalid column: 0"
    assert obs[0].sum() == 3  # the move was not played
    with pytest.raises(RuntimeError, match="reset"):
        env.step(1)


def test_a_win_a_loss_and_a_draw_are_scored_as_kaggle_scores_them():
    env = ConnectXEnv(opponent=scripted([6, 6, 6]))
    env.reset(seed=0)
    for _ in range(3):
        env.step(0)
    _, reward, terminated, _, info = env.step(0)
    assert (reward, terminated, info["statuses"], info["kaggle_rewards"], info["winner"]) == \
        (1.0, True, ("DONE", "DONE"), (1, -1), 0)
    env = ConnectXEnv(opponent=scripted([6, 6, 6, 6]))
    env.reset(seed=0)
    for action in (0, 1, 0):
        assert env.step(action)[1:3] == (0.0, False)
    _, reward, terminated, _, info = env.step(1)
    assert (reward, terminated, info["kaggle_rewards"], info["winner"]) == (-1.0, True, (-1, 1), 1)
    # no four in a row on a 2x2 board: a draw after four stones
    env = ConnectXEnv(opponent="random", rows=2, columns=2, inarow=4)
    _, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward == 0.0 and info["statuses"] == ("DONE", "DONE") and info["winner"] is None


def test_render_shows_the_board():
    env = ConnectXEnv(opponent=scripted([3]), render_mode="ansi")
    env.reset(seed=0)
    env.step(3)
    assert env.render() == "\n".join([". . . . . . ."] * 4 + [". . . O . . .", ". . . X . . .", "0 1 2 3 4 5 6"])


# -- opponents ---------------------------------------------------------------------------------------------------

def finish(env: ConnectXEnv, seed: int) -> tuple[float, dict]:
    _, info = env.reset(seed=seed)
    while True:
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated:
            return reward, info


def test_the_greedy_opponent_blocks_and_is_seeded():
    env = ConnectXEnv(opponent="greedy")
    env.reset(seed=0)
    for _ in range(2):
        env.step(0)
    obs, *_ = env.step(0)
    assert obs[1, 2, 0] == 1  # greedy blocked the vertical three
    assert play_random(ConnectXEnv(opponent="greedy"), 5, 10) == play_random(ConnectXEnv(opponent="greedy"), 5, 10)


def test_a_module_of_agents_a_callable_and_a_file_play_through_the_kaggle_call(tmp_path):
    seen = []

    def watcher(obs, config):
        seen.append((obs.step, obs.mark, obs.remainingOverageTime, config.timeout, config.actTimeout))
        return [c for c in range(config.columns) if obs.board[c] == 0][-1]

    for opponent in ("greedy:agent", "minimax", watcher):
        reward, info = finish(ConnectXEnv(opponent=opponent), 0)
        assert info["blamed"] is None, info
    assert seen[:2] == [(1, 2, 60, 2, 2.0), (3, 2, 60, 2, 2.0)]
    bot = tmp_path / "bot.py"
    bot.write_text("def helper(board):\n    return board.index(0) % 7\n\ndef act(obs, config):\n"
                   "    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n")
    reward, info = finish(ConnectXEnv(opponent=str(bot), seat=1), 0)
    assert info["blamed"] is None and info["statuses"] == ("DONE", "DONE")
    with pytest.raises(AgentSpecError, match="unknown agent"):
        ConnectXEnv(opponent="no_such_agent_anywhere")


def test_an_isolated_file_plays_in_its_own_process(tmp_path):
    import os

    bot = tmp_path / "bot.py"
    bot.write_text("import os\n\ndef agent(obs, config):\n"
                   "    return [c for c in range(config.columns) if obs.board[c] == 0][0] if os.getpid() != %d "
                   "else 'in the env process'\n" % os.getpid())
    env = ConnectXEnv(opponent=str(bot), isolated=True)
    try:
        for seed in (0, 1):
            reward, info = finish(env, seed)
            assert info["blamed"] is None and info["statuses"] == ("DONE", "DONE")
    finally:
        env.close()
    _, info = finish(ConnectXEnv(opponent=str(bot)), 0)  # in this process, the same file answers a string
    assert info["statuses"] == ("DONE", "INVALID") and "in the env process" in info["reason"]


def test_an_isolated_opponent_past_its_bank_times_out(tmp_path):
    bot = tmp_path / "slow.py"
    bot.write_text("import time\n\ndef agent(obs, config):\n    time.sleep(5)\n    return 0\n")
    opponent = IsolatedOpponent(Config(), resolve_agent(str(bot)), act_timeout=0.05, overage=0.1)
    env = ConnectXEnv(opponent=opponent)
    try:
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step(3)
        assert (reward, terminated, info["statuses"], info["blamed"]) == (1.0, True, ("DONE", "TIMEOUT"), 1)
    finally:
        env.close()


def answering(answer):
    def agent(obs, config):
        return answer

    return agent


def test_an_opponent_that_raises_or_answers_badly_loses_as_on_kaggle():
    def raises(obs, config):
        if obs.step > 2:
            raise ValueError("boom")
        return 0

    env = ConnectXEnv(opponent=raises)
    env.reset(seed=0)
    env.step(3)
    _, reward, terminated, _, info = env.step(3)
    assert (reward, terminated, info["statuses"], info["kaggle_rewards"]) == (1.0, True, ("DONE", "ERROR"), (0, None))
    assert info["reason"] == "ValueError: boom" and info["blamed"] == 1
    for answer in (np.int64(3), True, "3", 3.0, 7, -1):
        env = ConnectXEnv(opponent=answering(answer))
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step(0)
        assert (reward, info["statuses"]) == (1.0, ("DONE", "INVALID")), answer
    env = ConnectXEnv(opponent=lambda obs: None)  # None is Kaggle's default action, column 0
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(3)
    assert not terminated and obs[1, 5, 0] == 1


def test_an_opponent_that_forfeits_its_first_move_in_reset_loses_at_the_next_step():
    env = ConnectXEnv(opponent=lambda: 1 / 0, seat=1)
    obs, info = env.reset(seed=0)
    assert obs.sum() == 0 and info["reason"].startswith("ZeroDivisionError")
    obs, reward, terminated, _, info = env.step(3)
    assert (reward, terminated, info["statuses"], info["blamed"]) == (1.0, True, ("ERROR", "DONE"), 0)
    assert obs.sum() == 0  # the learner's action was not played


def test_kaggles_negamax_is_seeded_by_the_env():
    games = [play_random(ConnectXEnv(opponent="negamax", rows=5, columns=6, inarow=3), 2, 1) for _ in range(2)]
    assert games[0] == games[1]
    negamax = make_opponent("negamax", Config(5, 6, 3))
    firsts = []
    for seed in list(range(8)) * 2:
        negamax.reset(seed)
        firsts.append(negamax.act(0, 0, 0, [0] * 30, 1))
    assert firsts[:8] == firsts[8:] and len(set(firsts)) > 1  # its ties drawn from the seeded generator


def test_make_opponent_returns_an_opponent_as_it_is():
    opponent = RandomOpponent(Config())
    assert make_opponent(opponent) is opponent


# -- the self-play env -------------------------------------------------------------------------------------------

def test_self_play_scores_a_win_and_an_illegal_move_as_kaggle():
    env = self_play.raw_env()
    env.reset()
    for column in (0, 1, 0, 1, 0, 1):
        env.step(column)
    observation = env.observe("player_1")
    assert observation["observation"].shape == (6, 7, 2) and observation["observation"][5, 1, 0] == 1
    assert observation["action_mask"].sum() == 0  # not player_1's turn
    assert env.observe("player_0")["action_mask"].tolist() == [1] * 7
    env.step(0)
    assert env.rewards == {"player_0": 1, "player_1": -1} and all(env.terminations.values())
    assert env.infos["player_0"]["status"] == "DONE" and env.infos["player_1"]["kaggle_reward"] == -1

    env.reset()
    for _ in range(6):
        env.step(2)
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1, 0, 1, 1, 1, 1]
    env.step(2)  # player_0 into the full column
    assert env.rewards == {"player_0": -1, "player_1": 1}
    assert env.infos["player_0"] == {"status": "INVALID", "kaggle_reward": None, "blamed": "player_0",
                                     "reason": "Invalid column: 2"}
    assert env.infos["player_1"]["status"] == "DONE" and env.infos["player_1"]["kaggle_reward"] == 0
    _, reward, termination, _, _ = env.last()
    assert env.agent_selection == "player_1" and reward == 1 and termination


# -- a missing dependency ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("missing, module", [("gymnasium", "single_env"), ("pettingzoo", "self_play"),
                                             ("gymnasium", "batched")])
def test_a_missing_package_is_one_line_saying_how_to_install_it(missing, module):
    code = textwrap.dedent(f"""
        import sys
        sys.modules[{missing!r}] = None  # import {missing} raises ImportError
        import connectx_toolkit.training
        try:
            import connectx_toolkit.training.{module}
        except ImportError as error:
            print(type(error).__name__, error)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    line = result.stdout.strip()
    assert line.count("\n") == 0 and line.startswith("MissingDependency") and missing in line
    assert "pip install gymnasium==1.2.0 pettingzoo==1.27.0" in line
