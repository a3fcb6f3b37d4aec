"""The native referee's step records: compact in a record, rebuilt on demand into Kaggle's shape."""

from __future__ import annotations

import pickle
import random

from connectx_toolkit.evaluation.seats.callable_player import CallablePlayer
from connectx_toolkit.evaluation.referees.kaggle_steps import KaggleSteps
from connectx_toolkit.evaluation.referees.kaggle import play_kaggle
from connectx_toolkit.evaluation.referees.native import play_native

SHAPE = {"rows": 6, "columns": 7, "inarow": 4}


def random_player(seed: int, bad_at: int | None = None) -> CallablePlayer:
    rng = random.Random(seed)
    calls = 0

    def agent(obs, config):
        nonlocal calls
        calls += 1
        if calls == bad_at:
            return config.columns + 2  # out of range: INVALID, with the bad column as the step's action
        return rng.choice([c for c in range(config.columns) if obs.board[c] == 0])

    return CallablePlayer(agent)


def test_pickled_steps_are_compact_and_expand_to_the_same_records():
    played = play_native([random_player(1), random_player(2)], SHAPE, opening=(3, 3))
    steps = played.steps
    assert isinstance(steps, KaggleSteps)
    before = steps.expanded()
    data = pickle.dumps(steps)
    assert len(data) * 5 < len(pickle.dumps(before))  # what a worker sends is a fraction of the records
    again = pickle.loads(data)
    assert again._expanded is None and len(again) == len(before)
    assert again == before and again == steps and list(again) == before
    assert again[-1][0]["observation"]["board"] == before[-1][0]["observation"]["board"]


def test_a_forfeit_keeps_its_last_step_whole():
    """The last step is stored as played (here an INVALID column), not rebuilt as an ordinary move."""
    players = [random_player(3, bad_at=4), random_player(4)]
    native = play_native(players, SHAPE)
    kaggle = play_kaggle([random_player(3, bad_at=4), random_player(4)], SHAPE)
    assert native.statuses == kaggle.statuses == ["INVALID", "DONE"]
    last = native.steps[-1]
    assert last[0]["action"] == 9 and last[0]["reward"] is None and last[1]["reward"] == 0
    assert [[{k: v for k, v in seat.items() if k != "observation"} for seat in step] for step in native.steps] == \
        [[{k: v for k, v in dict(seat).items() if k != "observation"} for seat in step] for step in kaggle.steps]


def test_both_referees_are_called_through_one_signature():
    """The referees' call, its defaults and its set-up (``played.referee``, ``GameSetup``) have one home."""
    import inspect

    from connectx_toolkit.evaluation.referees import played

    assert play_native.__code__ is play_kaggle.__code__  # the one wrapper, around each referee's own game
    assert (play_native.__name__, play_kaggle.__name__) == ("play_native", "play_kaggle")
    assert list(inspect.signature(play_native).parameters) == [
        "players", "shape", "act_timeout", "overage", "opening", "episode_steps"]
    seen = []

    @played.referee
    def play_seen(players, setup):
        seen.append((players, setup))
        return "played"

    assert play_seen(["a", "b"], SHAPE, opening=[3, 3]) == "played"
    assert play_seen(["a", "b"], SHAPE, 1.5, 7.0, (), 40) == "played"
    assert seen == [(["a", "b"], played.GameSetup(SHAPE, played.DEFAULT_ACT_TIMEOUT, played.DEFAULT_OVERAGE, (3, 3),
                                                 played.EPISODE_STEPS)),
                    (["a", "b"], played.GameSetup(SHAPE, 1.5, 7.0, (), 40))]
    assert seen[0][1].configuration() == played.kaggle_configuration(SHAPE, played.DEFAULT_ACT_TIMEOUT)
