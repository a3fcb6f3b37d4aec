"""The training environments against Kaggle's own Environment: the same moves, the same transitions.

Each game is a random sequence of moves played first on ``kaggle_environments.make("connectx", ...)``, stepping
``env.step`` with the acting seat's action: mostly a random legal column, about 10% of moves a full column once
one is full, 1% a column out of range (99 or -1), and for the learner's opponent 1% an exception (Kaggle's
ERROR). The same moves are then played through ``ConnectXEnv`` (the learner's actions as its steps, the
opponent's through a scripted callable, so both sides see the same game) and, for games without an exception,
through the self-play AEC env, on four board shapes; every transition is compared: the board, the rewards, the end of the game, the
statuses (DONE, INVALID, ERROR) and who was blamed.

Kaggle's stepping is slow (jsonschema on every step: ~50 random games/s here), so the default run plays 80
games (~2 s; they reach every line and branch of the envs and Kaggle's referee that 200 reach) and ``-m slow``
3000.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("gymnasium", reason="the training envs need gymnasium (requirements.txt)")
pytest.importorskip("pettingzoo", reason="the self-play env needs pettingzoo (requirements.txt)")

from kaggle_environments import make  # noqa: E402

from connectx_toolkit.training import self_play  # noqa: E402
from connectx_toolkit.training.single_env import ConnectXEnv  # noqa: E402

SHAPES = [(6, 7, 4), (5, 6, 3), (7, 9, 5), (4, 4, 4)]  # 4x4: random games that fill the board (draws)
FORFEITS = ("INVALID", "ERROR")
RAISE = "raise"


class Move:
    """One ply of a Kaggle game: who moved, what it answered, and Kaggle's state after it."""

    def __init__(self, seat, action, board, rewards, statuses, done):
        self.seat, self.action = seat, action
        self.board, self.rewards, self.statuses, self.done = board, rewards, statuses, done


def kaggle_game(env, rng: random.Random, columns: int, opponent: int) -> list[Move]:
    """A random game on Kaggle's Environment; ``opponent`` (a seat) may raise."""
    env.reset()
    moves = []
    while not env.done:
        seat = 0 if env.state[0].status == "ACTIVE" else 1
        board = env.state[0].observation.board
        full = [c for c in range(columns) if board[c] != 0]
        draw = rng.random()
        if seat == opponent and draw < 0.01:
            action = RAISE
        elif draw < 0.02:
            action = rng.choice([99, -1])
        elif full and draw < 0.12:
            action = rng.choice(full)
        else:
            action = rng.choice([c for c in range(columns) if board[c] == 0])
        actions = [0, 0]
        actions[seat] = ValueError("boom") if action == RAISE else action
        env.step(actions)
        state = env.state
        moves.append(Move(seat, action, list(state[0].observation.board), (state[0].reward, state[1].reward),
                          (state[0].status, state[1].status), env.done))
    return moves


def learner_reward(move: Move, learner: int) -> float:
    """What the learner's reward is for Kaggle's last state: Kaggle's, with a forfeit scored as the leaderboard
    scores it (-1 the offender, +1 the other)."""
    if move.statuses[learner] in FORFEITS:
        return -1.0
    if move.statuses[1 - learner] in FORFEITS:
        return 1.0
    return float(move.rewards[learner])


def check_single_env(moves: list[Move], shape: tuple[int, int, int], learner: int) -> None:
    rows, columns, inarow = shape
    replies = iter([m.action for m in moves if m.seat != learner])

    def opponent(obs, config):
        action = next(replies)
        if action == RAISE:
            raise ValueError("boom")
        return action

    env = ConnectXEnv(opponent=opponent, seat=learner, obs_type="kaggle", rows=rows, columns=columns, inarow=inarow)
    obs, info = env.reset(seed=0)
    index = 0
    if learner == 1:
        first = moves[0]
        assert obs.tolist() == first.board
        index = 1
        if first.done:  # the opponent forfeited its first move: the next step ends the episode
            assert info["reason"] is not None
            obs, reward, terminated, truncated, info = env.step(0)
            assert (reward, terminated, info["statuses"], info["kaggle_rewards"]) == \
                (learner_reward(first, learner), True, first.statuses, first.rewards)
            assert info["blamed"] == 0
            return
    while index < len(moves):
        mine = moves[index]
        assert mine.seat == learner
        # the learner's move, then the opponent's reply unless the learner's move ended the game
        last = mine if mine.done else moves[index + 1]
        index += 1 if mine.done else 2
        obs, reward, terminated, truncated, info = env.step(mine.action)
        assert obs.tolist() == last.board
        assert (reward, terminated, truncated) == (learner_reward(last, learner) if last.done else 0.0, last.done, False)
        if last.done:
            assert info["statuses"] == last.statuses and info["kaggle_rewards"] == last.rewards
            blamed = [seat for seat in (0, 1) if last.statuses[seat] in FORFEITS]
            assert info["blamed"] == (blamed[0] if blamed else None)
        else:
            assert last.statuses[learner] == "ACTIVE"
            assert info["action_mask"].tolist() == [int(last.board[c] == 0) for c in range(columns)]
    assert terminated and index == len(moves)


def check_self_play(moves: list[Move], shape: tuple[int, int, int]) -> None:
    rows, columns, inarow = shape
    env = self_play.raw_env(rows=rows, columns=columns, inarow=inarow)
    env.reset(seed=0)
    for move in moves:
        assert env.agent_selection == self_play.AGENTS[move.seat]
        assert env.observe(env.agent_selection)["action_mask"].tolist() == \
            [int(env.game.board[c] == 0) for c in range(columns)]
        env.step(move.action)
        planes = env.observe("player_0")["observation"]
        board = [1 if planes[r, c, 0] else 2 if planes[r, c, 1] else 0 for r in range(rows) for c in range(columns)]
        assert board == move.board
        assert all(env.terminations.values()) == move.done
        if move.done:
            offenders = [agent for seat, agent in enumerate(self_play.AGENTS) if move.statuses[seat] in FORFEITS]
            for seat, agent in enumerate(self_play.AGENTS):
                info = env.infos[agent]
                assert info["status"] == move.statuses[seat] and info["kaggle_reward"] == move.rewards[seat]
                assert env.rewards[agent] == learner_reward(move, seat)
                assert info["blamed"] == (offenders[0] if offenders else None)
        else:
            assert set(move.statuses) == {"ACTIVE", "INACTIVE"} and not any(env.rewards.values())


def compare(games: int, seed: int) -> dict[str, int]:
    """Play ``games`` random games per shape through Kaggle's Environment and both envs; what was covered."""
    covered = {"games": 0, "invalid": 0, "error": 0, "wins": 0, "draws": 0, "self_play": 0}
    for shape in SHAPES:
        rows, columns, inarow = shape
        env = make("connectx", configuration={"rows": rows, "columns": columns, "inarow": inarow})
        rng = random.Random(f"{seed}-{shape}")
        for game in range(games):
            learner = game % 2
            moves = kaggle_game(env, rng, columns, 1 - learner)
            check_single_env(moves, shape, learner)
            if all(m.action != RAISE for m in moves):
                check_self_play(moves, shape)
                covered["self_play"] += 1
            statuses = moves[-1].statuses
            covered["games"] += 1
            covered["invalid"] += "INVALID" in statuses
            covered["error"] += "ERROR" in statuses
            covered["wins"] += moves[-1].rewards in ((1, -1), (-1, 1))
            covered["draws"] += statuses == ("DONE", "DONE") and moves[-1].rewards == (0, 0)
    return covered


def test_the_envs_play_kaggles_transitions():
    covered = compare(games=20, seed=0)  # the shares of the 200 games this once played: 75 %, 10 %, 1.5 %, 15 %
    assert covered["games"] == 80 and covered["self_play"] > 60
    assert covered["invalid"] > 8 and covered["error"] > 1 and covered["wins"] > 12 and covered["draws"] > 0


@pytest.mark.slow
def test_the_envs_play_kaggles_transitions_on_thousands_of_games():
    covered = compare(games=750, seed=1)
    assert covered["games"] == 3000 and covered["draws"] > 10
