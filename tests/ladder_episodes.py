"""Ladder episodes for the tests, in Kaggle's shapes: games played here by Kaggle's own runner.

Each game is played on ``kaggle_environments``' ConnectX ``Environment`` by its ``Agent`` runner (the
code Kaggle runs: it loads a file as a submission, times each move against the act timeout and the
overage bank, catches an exception into the step's log); the replay is ``env.toJSON()`` with the ``info``
Kaggle's replays carry, and an agent's log is its column of ``env.logs``. The loop is ``env.run``'s, with
one difference: a seat's bank may start below 60 s, so that a timeout costs a fraction of a second.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENTS = os.path.join(ROOT, "tests", "fixtures", "ladder_agents")


@dataclass(frozen=True)
class PlayedGame:
    """One game: its replay (``env.toJSON()`` without an episode id yet) and each seat's log."""

    replay: dict
    logs: tuple[list, list]

    def replay_bytes(self, episode_id: int, names: tuple[str, str]) -> bytes:
        """The replay as Kaggle serves it for episode ``episode_id`` between teams ``names``."""
        replay = copy.deepcopy(self.replay)
        replay["id"] = f"episode-{episode_id}"
        replay["info"] = {"EpisodeId": episode_id, "LiveVideoPath": None, "TeamNames": list(names),
                          "Agents": [{"Name": name, "ThumbnailUrl": None} for name in names]}
        return json.dumps(replay).encode("utf-8")

    def log_bytes(self, seat: int) -> bytes:
        return json.dumps(self.logs[seat]).encode("utf-8")


def agent_file(name: str) -> str:
    return os.path.join(AGENTS, f"{name}.py")


def play(agents: tuple[str, str], banks: tuple[float, float] = (60.0, 60.0), seed: int = 1,
         environment: str = "connectx", configuration: dict | None = None) -> PlayedGame:
    """Play one game; an agent is a file in tests/fixtures/ladder_agents (by name) or a Kaggle built-in."""
    from kaggle_environments import make
    from kaggle_environments.agent import Agent

    random.seed(seed)  # Kaggle's "random" agent draws from the global generator
    env = make(environment, configuration=configuration or {})
    env.reset(2)
    for seat, bank in enumerate(banks):
        if "remainingOverageTime" in env.state[seat].observation:
            env.state[seat].observation.remainingOverageTime = bank
    runners = [Agent(agent if agent in env.agents else agent_file(agent), env) for agent in agents]
    while not env.done:
        actions, logs = [], []
        for seat, runner in enumerate(runners):
            state = env.state[seat]
            if state.status != "ACTIVE":
                actions.append(None)
                logs.append({})
                continue
            observation = copy.deepcopy(state.observation)
            if "board" in env.state[0].observation:  # ConnectX's board is shared: seat 0 holds it
                observation.board = list(env.state[0].observation.board)
            action, log = runner.act(observation)
            actions.append(action)
            logs.append(log)
        env.step(actions, logs)
    seat_logs = tuple([step[seat] if seat < len(step) else {} for step in env.logs] for seat in range(2))
    return PlayedGame(json.loads(json.dumps(env.toJSON())), seat_logs)


# The games of the tests' ladder: (our seat's agent, the opponent's), our seat, the outcome it gives us.
CATALOGUE = {
    "win_first": (("our_bot", "random"), 0, "win"),
    "win_second": (("random", "our_bot"), 1, "win"),
    "loss_first": (("our_bot", "negamax"), 0, "loss"),
    "loss_second": (("negamax", "our_bot"), 1, "loss"),
    "draw_first": (("draw_line", "draw_line"), 0, "draw"),
    "error_first": (("our_bot_crashes", "random"), 0, "error"),
    "timeout_second": (("random", "our_bot_sleeps"), 1, "timeout"),
}


@functools.lru_cache(maxsize=None)
def catalogue() -> dict[str, PlayedGame]:
    """Every game of CATALOGUE, played once per test session (about 4 s: negamax, and one 2 s move)."""
    games = {}
    for name, (agents, seat, _) in CATALOGUE.items():
        banks = (60.0, 0.0) if name == "timeout_second" else (60.0, 60.0)  # no bank: 2.05 s is a timeout
        games[name] = play(agents, banks)
    games["validation"] = play(("our_bot", "our_bot"))
    return games


@functools.lru_cache(maxsize=None)
def other_competition_game() -> PlayedGame:
    """A game of another Kaggle environment (rock, paper, scissors), for a submission that is not ConnectX's."""
    return play(("rock", "paper"), environment="rps", configuration={"episodeSteps": 5})
