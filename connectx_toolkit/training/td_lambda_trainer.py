"""TD(λ) self-play in the self-play environment: the ``td_lambda`` agent's learner, trained in a PettingZoo AEC env.

The environment owns the game: whose turn it is, which columns are legal (its action mask), when the game ends
and who won (its rewards, Kaggle's +1/-1/0). The learner sees what a player sees, the observation's two planes
(its own stones, the opponent's), rebuilds the ``Position`` from them (``observed_position``) and keeps its
afterstate features (``agents.td_lambda.Features``) and its update (``TDLambda``).

Both players share one weight vector; each has its own eligibility trace over its own afterstates (the positions
right after its moves). A player's previous afterstate is moved toward the value of its next one, and, when the
env ends the game, toward the reward the env gives it. Moves are ε-greedy: with probability ε a uniformly random
legal column (from the action mask), else the highest-valued one (through the agent's tactical filter too with
``tactics``; by default not, so that the values themselves must learn what an open threat costs). Same
settings, same seed -> the same weights, bit for bit: the env draws nothing, every choice comes from one
``random.Random(seed)``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.td_lambda import Features, TDLambda, choose, features_for
from connectx_toolkit.training import self_play

# The environment factory: called as make_env(rows=, columns=, inarow=), it returns a PettingZoo AEC env with
# connect_four_v3's conventions; the project's own (any board, Kaggle's rewards) by default.
EnvFactory = Callable[..., Any]
DEFAULT_ENV: EnvFactory = self_play.env


@dataclass
class TrainingSettings:
    episodes: int
    seed: int = 1
    alpha: float = 0.003
    alpha_end: float | None = 0.0005  # step size decays linearly from alpha to alpha_end (None: constant)
    lam: float = 0.7
    gamma: float = 1.0
    epsilon: float = 0.2
    tactics: bool = False  # self-play moves judged by values alone, so blunders teach the threat weights
    config: Config = field(default_factory=Config)

    def record(self) -> dict[str, Any]:
        """How the weights were trained, for the weights file's ``training`` field."""
        return {"episodes": self.episodes, "seed": self.seed, "alpha": self.alpha, "alpha_end": self.alpha_end,
                "lambda": self.lam, "gamma": self.gamma, "epsilon": self.epsilon, "tactics": self.tactics}


def initial_weights(features: Features) -> np.ndarray:
    """The weights training starts from (zeros: the untrained agent plays on its tactical filter alone)."""
    return np.zeros(features.size)


class Observer:
    """Rebuilds the position a player sees from its observation planes (row 0 is the top row, as Kaggle's)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        g = Position(config).geometry
        # Python ints: a board over 64 cells has bits past int64's.
        self.bits = [g.bit(c, config.rows - 1 - r) for r in range(config.rows) for c in range(config.columns)]

    def __call__(self, observation: np.ndarray) -> Position:
        planes = np.asarray(observation)
        expected = (self.config.rows, self.config.columns, 2)
        if planes.shape != expected:
            raise ValueError(f"observation of shape {planes.shape}, {expected} expected")
        bits = self.bits
        own = sum(bits[i] for i in np.flatnonzero(planes[:, :, 0]))
        other = sum(bits[i] for i in np.flatnonzero(planes[:, :, 1]))
        mask = own | other
        return Position(self.config, own, mask, mask.bit_count())


def observed_position(observation: np.ndarray, config: Config) -> Position:
    """The position with the player to move's stones in plane 0 and the opponent's in plane 1."""
    return Observer(config)(observation)


def legal_columns(action_mask: np.ndarray) -> list[int]:
    return [int(c) for c in np.flatnonzero(action_mask)]


def self_play_episode(
    env: Any, learners: list[TDLambda], features: Features, observe: Observer, settings: TrainingSettings,
    rng: random.Random,
) -> float:
    """One self-play game in ``env`` with TD(λ) updates; returns the first player's reward."""
    weights = learners[0].weights  # shared by both learners
    previous: list[np.ndarray | None] = [None, None]
    rewards: dict[int, float] = {}
    last_mover, last_won = 0, False
    for learner in learners:
        learner.reset()
    env.reset()
    seats = {name: seat for seat, name in enumerate(env.possible_agents)}
    for name in env.agent_iter():
        seat = seats[name]
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:  # the env's verdict, told to each player in turn
            rewards[seat] = float(reward)
            env.step(None)
            continue
        position = observe(observation["observation"])
        legal = legal_columns(observation["action_mask"])
        if rng.random() < settings.epsilon:
            column = rng.choice(legal)
        else:
            column = choose(position, weights, features, settings.tactics, rng)
        env.step(column)
        last_mover, last_won = seat, position.is_winning_move(column)
        if last_won or position.moves + 1 == position.config.cells:
            continue  # the game is over: the env's reward is the target, not a value
        x, before = features(position.played(column)), previous[seat]
        if before is not None:
            learners[seat].update(before, settings.gamma * float(weights @ x))
        previous[seat] = x
    expected = (1.0, -1.0) if last_won else (0.0, 0.0)
    if (rewards.get(last_mover), rewards.get(1 - last_mover)) != expected:
        raise RuntimeError(f"the env's rewards {rewards} disagree with the game core ({'a win' if last_won else 'a draw'}"
                           f" by seat {last_mover} on the last move)")
    # The player who ended the game first, then the other (the order the updates of a shared vector depend on).
    for seat in (last_mover, 1 - last_mover):
        x = previous[seat]
        if x is not None:
            learners[seat].update(x, rewards[seat])
    return rewards[0]


def train(
    settings: TrainingSettings,
    make_env: EnvFactory = DEFAULT_ENV,
    after_episode: Callable[[int, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Train from ``initial_weights``; returns the weights. ``after_episode(done, weights)`` runs after every
    episode (a learning curve, a progress bar); it must not change the weights."""
    config = settings.config
    features = features_for(config)
    observe = Observer(config)
    rng = random.Random(settings.seed)
    weights = initial_weights(features)
    if not settings.episodes:
        return weights  # the untrained agent's: no game to play
    learners = [TDLambda(weights, settings.alpha, settings.gamma, settings.lam) for _ in range(2)]
    env = make_env(rows=config.rows, columns=config.columns, inarow=config.inarow)
    alpha_end = settings.alpha if settings.alpha_end is None else settings.alpha_end
    try:
        for episode in range(1, settings.episodes + 1):
            # A decaying step size lets late, noisy self-play games refine the weights, not throw them around.
            progress_fraction = (episode - 1) / max(1, settings.episodes - 1)
            for learner in learners:
                learner.alpha = settings.alpha + (alpha_end - settings.alpha) * progress_fraction
            self_play_episode(env, learners, features, observe, settings, rng)
            if after_episode is not None:
                after_episode(episode, weights)
    finally:
        env.close()
    return weights


# -- measuring (on the project's own game core: quick, and independent of the env) -------------------------

def random_move(position: Position, rng: random.Random) -> int:
    return rng.choice(position.legal_moves())


Opponent = Callable[[Position, random.Random], int]


def win_rate(
    weights: np.ndarray,
    features: Features,
    games: int,
    seed: int,
    tactics: bool = True,
    opponent: Opponent = random_move,
    opening_plies: int = 0,
) -> float:
    """Share of ``games`` won against ``opponent`` (uniformly random by default), alternating seats.

    The first ``opening_plies`` moves of every game are random, so that two deterministic players
    do not repeat one game.
    """
    rng = random.Random(seed)
    wins = 0
    for game in range(games):
        agent_seat = game % 2
        position = Position(features.config)
        while True:
            if position.moves < opening_plies:
                column = random_move(position, rng)
            elif position.moves % 2 == agent_seat:
                column = choose(position, weights, features, tactics)
            else:
                column = opponent(position, rng)
            won = position.is_winning_move(column)
            position.play(column)
            if won:
                wins += (position.moves - 1) % 2 == agent_seat
                break
            if position.is_full():
                break
    return wins / games
