"""connectx_toolkit/training/batched.py: the batched env agrees with the core's Position move by move, its
greedy opponent with agents/greedy.py, its rules with Kaggle's referee; seeding, autoreset, other board sizes."""

from __future__ import annotations

import random

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from connectx_toolkit.agents import greedy
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.training.batched import (
    BatchedConnectX, BatchedSelfPlay, BitGeometry, greedy_moves, random_moves,
)

CONFIGS = [Config(), Config(5, 6, 3), Config(7, 8, 5), Config(4, 5, 4), Config(3, 3, 2)]


def planes_of(position: Position, learner_mark: int) -> np.ndarray:
    """The learner's planes for ``position`` (mark 1 moved first)."""
    board = np.array(position.to_board(1 if position.moves % 2 == 0 else 2)).reshape(
        position.geometry.rows, position.geometry.columns)
    return np.stack([board == learner_mark, board == 3 - learner_mark]).astype(np.int8)


def learner_columns(mask: np.ndarray, rng: np.random.Generator, illegal_share: float) -> np.ndarray:
    mask = mask.astype(bool)
    """A random legal column per board; with probability ``illegal_share`` an illegal one: a full column
    where there is one, else one past the last."""
    legal = np.argmax(np.where(mask, rng.random(mask.shape), -1), axis=1)
    full = np.where((~mask).any(axis=1), np.argmax(np.where(~mask, rng.random(mask.shape), -1), axis=1),
                    mask.shape[1])
    return np.where(rng.random(mask.shape[0]) < illegal_share, full, legal)


def the_new_stone(before: np.ndarray, after: np.ndarray) -> int:
    """The column of the one stone the opponent added between two planes (asserted to be one)."""
    added = np.argwhere(after[1] != before[1])
    assert len(added) == 1 and (after[0] == before[0]).all(), (before, after)
    return int(added[0][1])


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.rows}x{c.columns}x{c.inarow}")
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_every_transition_is_the_core_s(config, opponent):
    """Each board's steps replayed on Position: the learner's stone, the opponent's reply (a legal move, as
    greedy would choose when greedy), win / loss / draw / illegal and their rewards, the autoreset."""
    n, steps = 64, 60
    env = BatchedConnectX(n, opponent, **config.as_dict())
    obs, infos = env.reset(seed=7)
    rng = np.random.default_rng(3)
    positions, marks = [], infos["mark"].copy()
    for i in range(n):
        position = Position(config)
        if marks[i] == 2:
            position.play(the_new_stone(planes_of(position, 2), obs[i]))
        positions.append(position)
        assert (obs[i] == planes_of(position, marks[i])).all()
    seen = {"win": 0, "loss": 0, "draw": 0, "illegal": 0}
    for _ in range(steps):
        actions = learner_columns(infos["action_mask"], rng, 0.03)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert not truncated.any()
        for i in range(n):
            position, mark, column = positions[i], marks[i], int(actions[i])
            assert (infos["action_mask"][i] == (obs[i][:, 0] == 0).all(axis=0)).all()
            if not position.can_play(column):
                outcome, expected = "illegal", -1
            else:
                position.play(column)
                if position.last_player_won():
                    outcome, expected = "win", 1
                elif position.is_full():
                    outcome, expected = "draw", 0
                else:
                    before = planes_of(position, mark)
                    final = infos["final_obs"][i] if terminated[i] else obs[i]
                    reply = the_new_stone(before, final)
                    assert position.can_play(reply)
                    if opponent == "greedy":
                        assert reply in greedy_candidates(position)
                    position.play(reply)
                    if position.last_player_won():
                        outcome, expected = "loss", -1
                    elif position.is_full():
                        outcome, expected = "draw", 0
                    else:
                        outcome, expected = None, 0
            assert rewards[i] == expected, (i, outcome)
            assert bool(terminated[i]) == (outcome is not None), (i, outcome)
            if outcome is None:
                assert (obs[i] == planes_of(position, mark)).all()
                continue
            seen[outcome] += 1
            assert infos["_final_obs"][i]
            assert (infos["final_obs"][i] == planes_of(position, mark)).all()
            marks[i] = infos["mark"][i]
            assert marks[i] == 3 - mark  # "alternate": the learner changes seat at every episode
            fresh = Position(config)
            if marks[i] == 2:
                fresh.play(the_new_stone(planes_of(fresh, 2), obs[i]))
            assert (obs[i] == planes_of(fresh, marks[i])).all()
            positions[i] = fresh
        if terminated.any():
            assert (infos["_final_obs"] == terminated).all()
    assert seen["illegal"] and seen["loss"], seen
    assert seen["win"] or opponent == "greedy", seen  # greedy blocks every line a random learner starts


def greedy_candidates(position: Position) -> set[int]:
    """Every column agents/greedy.choose can return in ``position``."""
    if position.immediate_wins():
        return set(position.immediate_wins())
    if position.opponent_threats():
        return set(position.opponent_threats())
    moves = position.legal_moves()
    middle = (position.geometry.columns - 1) / 2
    nearest = min(abs(c - middle) for c in moves)
    return {c for c in moves if abs(c - middle) == nearest}


def random_position(config: Config, rng: random.Random) -> Position:
    """A position of a random game, cut at a random ply before it ended."""
    while True:
        position = Position(config)
        for _ in range(rng.randrange(config.cells)):
            column = rng.choice(position.legal_moves())
            if position.is_winning_move(column):
                break
            position.play(column)
        if not position.is_full():
            return position


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.rows}x{c.columns}x{c.inarow}")
def test_vectorised_greedy_picks_exactly_greedy_s_choices(config):
    """On many random positions, 64 copies of each: every pick is one agents/greedy.choose could make (win,
    else block, else the most central), and every such column is picked (ties broken at random)."""
    g, rng, np_rng = BitGeometry(config), random.Random(5), np.random.default_rng(5)
    copies = 64
    positions = [random_position(config, rng) for _ in range(150)]
    own = np.repeat(np.array([p.current for p in positions], dtype=np.uint64), copies)
    mask = np.repeat(np.array([p.mask for p in positions], dtype=np.uint64), copies)
    columns, bits = greedy_moves(g, own, mask ^ own, mask, np_rng)
    kinds = set()
    for k, position in enumerate(positions):
        picks = columns[k * copies:(k + 1) * copies]
        expected = greedy_candidates(position)
        assert set(picks.tolist()) == expected, (str(position), expected)
        assert all(greedy.choose(position, rng) in expected for _ in range(5))
        for column, bit in zip(picks[:3], bits[k * copies:k * copies + 3]):
            assert int(bit) == position.move_bit(int(column))
        kinds.add("win" if position.immediate_wins() else "block" if position.opponent_threats() else "centre")
    assert kinds == {"win", "block", "centre"}


def test_random_opponent_is_uniform_over_legal_columns():
    """Kaggle's random agent: every legal column equally likely, never a full one, even with one left."""
    config = Config()
    g = BitGeometry(config)
    one_left = Position.from_moves([c for c in range(6) for _ in range(6)], config)  # only column 6 is open
    two_left = Position.from_moves([0] * 6 + [3] * 6 + [6] * 6, config)
    for position, legal in [(one_left, {6}), (two_left, {1, 2, 4, 5})]:
        n = 40_000
        mask = np.full(n, position.mask, dtype=np.uint64)
        columns, bits = random_moves(g, mask, np.ones(n, dtype=bool), np.random.default_rng(1))
        counts = np.bincount(columns, minlength=7)
        assert set(np.flatnonzero(counts).tolist()) == legal
        assert (bits != 0).all()
        expected = n / len(legal)
        assert all(abs(counts[c] - expected) < 5 * expected ** 0.5 for c in legal), counts


def test_seeding_is_deterministic():
    def run(seed):
        env = BatchedConnectX(256, "greedy", seed=seed)
        obs, infos = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [obs]
        for _ in range(30):
            obs, rewards, terminated, _, infos = env.step(learner_columns(infos["action_mask"], rng, 0.01))
            trace += [obs, rewards, terminated]
        return trace

    first, again, other = run(11), run(11), run(12)
    assert all((a == b).all() for a, b in zip(first, again))
    assert not all((a == b).all() for a, b in zip(first, other))


def test_a_gymnasium_vector_env():
    env = BatchedConnectX(8, seat=0)
    assert isinstance(env, VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.num_envs == 8 and env.single_action_space.n == 7  # type: ignore[attr-defined]
    assert env.single_observation_space.shape == (2, 6, 7)
    assert env.observation_space.shape == (8, 2, 6, 7) and env.action_space.shape == (8,)
    obs, infos = env.reset(seed=0)
    assert obs in env.observation_space and not obs.any()  # seat 0: the learner moves first on every board
    assert infos["action_mask"].shape == (8, 7) and infos["action_mask"].all()
    for _ in range(25):
        actions = env.action_space.sample()
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert obs in env.observation_space and obs.dtype == np.int8
        assert rewards.shape == terminated.shape == truncated.shape == (8,)
    board_env = BatchedConnectX(8, obs_type="kaggle", seat=1, seed=0)
    obs, infos = board_env.reset(seed=0)
    assert obs in board_env.observation_space and obs.shape == (8, 42)
    assert (obs == 1).sum(axis=1).tolist() == [1] * 8 and (infos["mark"] == 2).all()  # the opponent opened


def test_an_illegal_column_loses_and_resets_at_once():
    env = BatchedConnectX(2, "random", seat=0, seed=3)
    env.reset(seed=3)
    obs, rewards, terminated, _, infos = env.step(np.array([7, -1]))  # outside the board: Kaggle's INVALID
    assert rewards.tolist() == [-1, -1] and terminated.all() and infos["illegal"].all()
    assert not obs.any() and not infos["final_obs"].any()


def test_a_kaggle_agent_as_opponent():
    """The slow path: any agent(obs, config), called with Kaggle's observation; an invalid answer forfeits."""
    seen = []

    def leftmost(obs, config):
        seen.append((obs.mark, config.columns, sum(1 for cell in obs.board if cell)))
        return next(c for c in range(config.columns) if obs.board[c] == 0)

    env = BatchedConnectX(4, leftmost, seat="alternate", seed=0)
    obs, infos = env.reset(seed=0)
    assert (obs[1, 1, 5, 0], obs[3, 1, 5, 0]) == (1, 1)  # boards 1 and 3: the agent (mark 1) opened in column 0
    obs, rewards, terminated, _, infos = env.step(np.array([3, 3, 3, 3]))
    assert {mark for mark, _, _ in seen} == {1, 2} and all(columns == 7 for _, columns, _ in seen)
    assert (obs[:, 1, 5, 0] == 1).all()
    forfeit = BatchedConnectX(2, lambda obs, config: 99, seat=0, seed=0)
    forfeit.reset()
    _, rewards, terminated, _, _ = forfeit.step(np.array([0, 1]))
    assert rewards.tolist() == [1, 1] and terminated.all()


def test_boards_beyond_64_bits_are_refused():
    with pytest.raises(ValueError, match="at most 64"):
        BatchedConnectX(4, rows=7, columns=9, inarow=5)
    BatchedConnectX(4, rows=7, columns=8, inarow=5)  # exactly 64 bits


@pytest.mark.parametrize("bad", [{"num_envs": 0}, {"opponent": "negamax"}, {"seat": 2},
                                 {"obs_type": "pixels"}])
def test_bad_arguments_are_refused(bad):
    arguments = {"num_envs": 4, **bad}
    with pytest.raises(ValueError):
        BatchedConnectX(**arguments)


# -- against Kaggle's referee ----------------------------------------------------------------------------
def kaggle_differential(sequences: int, seed: int) -> dict[str, int]:
    """Random games (3 % illegal columns: full ones, or outside the board) played ply by ply by
    BatchedSelfPlay and by kaggle_environments' ConnectX, compared at every ply: board, rewards, done,
    INVALID. Returns the plies compared and how the games ended."""
    kaggle_environments = pytest.importorskip("kaggle_environments")
    rng = np.random.default_rng(seed)
    counts = {"plies": 0, "win": 0, "draw": 0, "full column": 0, "outside": 0}
    for config in (Config(), Config(5, 6, 3), Config(4, 5, 4)):
        count = sequences // 3
        selfplay = BatchedSelfPlay(count, **config.as_dict(), obs_type="kaggle", seed=seed)
        obs, infos = selfplay.reset()
        games: list[list[tuple]] = [[] for _ in range(count)]
        running = np.ones(count, dtype=bool)
        while running.any():
            mask = infos["action_mask"]
            actions = learner_columns(mask, rng, 0.03)
            outside = rng.random(count) < 0.003
            actions = np.where(outside, rng.choice([-1, config.columns], count), actions)
            obs, rewards, terminated, _, infos = selfplay.step(actions)
            board = np.where(terminated[:, None], infos.get("final_obs", obs), obs)
            for i in np.flatnonzero(running):
                games[i].append((int(actions[i]), board[i].tolist(), float(rewards[i]), bool(terminated[i]),
                                 bool(infos["illegal"][i])))
            running &= ~terminated
        env = kaggle_environments.make("connectx", configuration=config.as_dict())
        for game in games:
            env.reset()
            for ply, (action, board, reward, done, illegal) in enumerate(game):
                mover = ply % 2
                state = env.step([action, action])
                invalid = state[mover].status not in ("ACTIVE", "INACTIVE", "DONE")
                kaggle_reward = -1 if state[mover].reward is None else state[mover].reward
                assert (state[0].observation.board, kaggle_reward, env.done, invalid) == (
                    board, reward, done, illegal), (config, game[:ply + 1])
                if done and not illegal:
                    assert state[1 - mover].reward == -reward
                counts["plies"] += 1
            action, _, reward, _, illegal = game[-1]
            ending = ("outside" if not 0 <= action < config.columns else "full column") if illegal else (
                "win" if reward else "draw")
            counts[ending] += 1
    return counts


def test_rules_match_kaggle_s_referee():
    # 90 games reach every ending and every line and branch of the batched env and Kaggle's referee that 240 reach
    counts = kaggle_differential(90, seed=1)
    assert counts["plies"] > 750 and min(counts.values()) > 0, counts  # 8.3 plies a game, as 240 games had


@pytest.mark.slow
def test_rules_match_kaggle_s_referee_at_length():
    counts = kaggle_differential(3000, seed=2)
    assert counts["plies"] > 25_000 and min(counts.values()) > 5, counts


def test_self_play_sides_and_rewards():
    selfplay = BatchedSelfPlay(1, seed=0)
    obs, infos = selfplay.reset()
    assert infos["mark"].tolist() == [1]
    for column in [0, 1, 0, 1, 0, 1]:
        obs, rewards, terminated, _, infos = selfplay.step([column])
        assert rewards.tolist() == [0] and not terminated.any()
    assert infos["mark"].tolist() == [1]
    assert obs[0, 0, 3:, 0].tolist() == [1, 1, 1] and obs[0, 1, 3:, 1].tolist() == [1, 1, 1]  # mover's stones first
    obs, rewards, terminated, _, infos = selfplay.step([0])
    assert rewards.tolist() == [1] and terminated.all() and not obs.any() and infos["mark"].tolist() == [1]
    assert infos["final_obs"][0, 1, 2:, 0].tolist() == [1, 1, 1, 1]  # seen by the next player: the other's stones
