"""The native referee is Kaggle's: the same games give the same moves, statuses, rewards and step records.

Both referees are driven in this process with plain callables (``CallablePlayer``), so that the test
compares the referees' logic alone and stays fast. Durations come from a scripted clock (Kaggle's
``Agent.act`` reads it too), so even the overage bank, TIMEOUT and the step records' timing fields must
agree exactly. ``tests/evaluation/seats/test_agent_process.py`` plays a few games end to end through agent processes.
"""

from __future__ import annotations

import random

import numpy
import pytest

from connectx_toolkit.evaluation.seats.callable_player import CallablePlayer
from connectx_toolkit.evaluation.scheduling.openings import SUITE_6X7, read_suite
from connectx_toolkit.evaluation.referees.kaggle_steps import KaggleSteps
from connectx_toolkit.evaluation.referees.played import Played
from connectx_toolkit.evaluation.referees.kaggle import play_kaggle
from connectx_toolkit.evaluation.referees.native import play_native
from connectx_toolkit.agents.core import Config


class ScriptedClock:
    """Time that only moves when an agent says it thought."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Big(int):
    """An int subclass: a JSON-schema integer to Kaggle."""


ODD_VALUES = [None, True, False, numpy.int64(3), numpy.int32(1), numpy.float64(2.0), numpy.float32(1.0), 3.0, 99.0,
              -1, -1.0, -0.0, 3.5, float("nan"), float("inf"), "3", "", [3], (3,), {"c": 3}, 2**70, -(2**70), 7, 6,
              Big(2), b"3"]


def _legal(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0]


def make_agent(kind: str, rng: random.Random, clock: ScriptedClock, act_timeout: float):
    """An agent of ``kind`` with its own seeded randomness and scripted thinking times."""
    odd_at = rng.randrange(0, 12)
    odd_value = rng.choice(ODD_VALUES)
    slow = rng.random() < 0.3

    def think():
        if slow:  # spend some of the bank, sometimes more than all of it
            clock.now += rng.choice([0.1, act_timeout, act_timeout + rng.uniform(0, 30), act_timeout + 61])
        else:
            clock.now += rng.choice([0.0, 1e-6, 0.000123456789])

    calls = 0

    def agent(obs, config):
        nonlocal calls
        calls += 1
        think()
        legal = _legal(obs, config)
        if kind == "odd" and calls == odd_at:
            return odd_value
        if kind == "raises" and calls == odd_at:
            raise rng.choice([ValueError("bad"), ZeroDivisionError("x"), KeyError(3), MemoryError()])
        if kind == "none_always":
            return None
        if kind == "first_column":
            return 0
        if not legal:
            return 0
        if kind == "sometimes_full" and rng.random() < 0.05:
            full = [c for c in range(config.columns) if c not in legal]
            return full[0] if full else legal[0]
        return rng.choice(legal)

    return agent


def seen_recorder(agent, seen):
    def wrapped(obs, config):
        seen.append((dict(obs), dict(config)))
        return agent(obs, config)

    return wrapped


def play_both(monkeypatch, seed: int, shape: dict[str, int], kinds: tuple[str, str], opening=(), act_timeout=2.0,
              overage=60.0, episode_steps=1000) -> tuple[Played, Played, list, list]:
    results, seen_by = [], []
    for play in (play_kaggle, play_native):
        clock = ScriptedClock()
        monkeypatch.setattr("kaggle_environments.agent.perf_counter", clock)
        seen: list = []
        players = []
        for seat, kind in enumerate(kinds):
            rng = random.Random(seed * 2 + seat)
            players.append(CallablePlayer(seen_recorder(make_agent(kind, rng, clock, act_timeout), seen), clock))
        results.append(play(players, shape, act_timeout, overage, opening, episode_steps))
        seen_by.append(seen)
    return results[0], results[1], seen_by[0], seen_by[1]


def plain(value):
    """Step records as plain data (Kaggle's are ``Struct``s), NaN-free."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, KaggleSteps)):
        return [plain(item) for item in value]
    return value


def assert_same(kaggle: Played, native: Played, seen_kaggle, seen_native, label: str) -> None:
    assert native.statuses == kaggle.statuses, label
    assert native.rewards == kaggle.rewards, label
    assert native.moves == kaggle.moves, label
    assert native.move_times == kaggle.move_times, label
    assert native.none_plies == kaggle.none_plies, label
    assert [e is None for e in native.errors] == [e is None for e in kaggle.errors], label
    assert plain(native.steps) == plain(kaggle.steps), label
    assert seen_native == seen_kaggle, label  # the observations and configurations the agents were given


KINDS = ("random", "random", "random", "odd", "raises", "sometimes_full", "none_always", "first_column")


def random_games_on_random_boards(monkeypatch, games: int) -> None:
    rng = random.Random(22)
    statuses: set[str] = set()
    for game in range(games):
        shape = {"rows": rng.randint(1, 7), "columns": rng.randint(1, 8), "inarow": rng.randint(1, 5)}
        kinds = (rng.choice(KINDS), rng.choice(KINDS))
        act_timeout = rng.choice([2.0, 2, 0.5, 5.0])
        overage = rng.choice([60.0, 60, 0.0, 3.5])
        episode_steps = rng.choice([1000, 1000, 1000, rng.randint(1, 12)])
        kaggle, native, seen_k, seen_n = play_both(monkeypatch, game, shape, kinds, (), act_timeout, overage,
                                                   episode_steps)
        assert_same(kaggle, native, seen_k, seen_n, f"game {game}: {shape} {kinds} {act_timeout} {overage} "
                                                    f"{episode_steps}")
        statuses.update(native.statuses)
    assert statuses == {"DONE", "INVALID", "ERROR", "TIMEOUT"}  # every rule was exercised


def test_random_games_on_random_boards(monkeypatch):
    """50 games: they reach every line and branch of both referees that 200 reach (measured with a line tracer),
    every status among them."""
    random_games_on_random_boards(monkeypatch, 50)


@pytest.mark.slow
def test_many_random_games_on_random_boards(monkeypatch):
    """The same games and 1,550 more (about a minute here, Kaggle's referee the slow one)."""
    random_games_on_random_boards(monkeypatch, 1600)


def test_every_odd_value_and_exception_in_each_seat(monkeypatch):
    shape = {"rows": 6, "columns": 7, "inarow": 4}
    count = 0
    for index, value in enumerate(ODD_VALUES + [ValueError("v"), RuntimeError("r")]):
        for seat in (0, 1):
            for ply in (0, 3):
                def odd(obs, config, value=value, calls=[0]):
                    calls[0] += 1
                    if calls[0] == ply // 2 + 1:
                        if isinstance(value, BaseException):
                            raise value
                        return value
                    return _legal(obs, config)[0]

                kinds = [odd, lambda obs, config: _legal(obs, config)[-1]]
                if seat:
                    kinds.reverse()
                played = []
                for play in (play_kaggle, play_native):
                    odd.__defaults__[1][0] = 0
                    played.append(play([CallablePlayer(agent) for agent in kinds], shape, 2.0, 60.0, ()))
                kaggle, native = played
                label = f"{value!r} seat {seat} ply {ply}"
                assert native.statuses == kaggle.statuses, label
                assert native.rewards == kaggle.rewards, label
                assert native.moves == kaggle.moves, label
                assert plain(native.steps) == plain(kaggle.steps) or _same_but_durations(native, kaggle), label
                count += 1
    assert count == 4 * (len(ODD_VALUES) + 2)


def _same_but_durations(native: Played, kaggle: Played) -> bool:
    """Equal step records once the banks (real clock) are set aside."""
    def strip(steps):
        out = plain(steps)
        for step in out:
            for agent in step:
                agent["observation"].pop("remainingOverageTime", None)
        return out

    return strip(native.steps) == strip(kaggle.steps)


def test_deterministic_agents_from_the_opening_suite(monkeypatch):
    deterministic_agents_from_the_opening_suite(monkeypatch, 10)


@pytest.mark.slow
def test_deterministic_agents_from_the_whole_opening_suite(monkeypatch):
    deterministic_agents_from_the_opening_suite(monkeypatch, 160)


def deterministic_agents_from_the_opening_suite(monkeypatch, count: int) -> None:
    from connectx_toolkit.agents.greedy import agent as greedy

    openings = read_suite(SUITE_6X7, Config())
    assert len(openings) >= count
    shape = {"rows": 6, "columns": 7, "inarow": 4}
    clock = ScriptedClock()
    monkeypatch.setattr("kaggle_environments.agent.perf_counter", clock)
    games = 0
    for opening in openings[:count]:
        for pair in ((greedy, _first_legal), (_first_legal, greedy)):
            played = []
            for play in (play_kaggle, play_native):
                random.seed(games)  # greedy breaks ties with the global generator
                played.append(play([CallablePlayer(agent, clock) for agent in pair], shape, 2.0, 60.0, opening))
            assert_same(played[0], played[1], [], [], f"opening {opening}")
            games += 1
    assert games == 2 * count


def _first_legal(obs, config):
    return _legal(obs, config)[0]


def test_the_configuration_timeout_follows_act_timeout(monkeypatch):
    kaggle, native, seen_k, seen_n = play_both(monkeypatch, 1, {"rows": 4, "columns": 4, "inarow": 3},
                                               ("random", "random"), (), 5.0)
    assert seen_n[0][1]["timeout"] == 5 and seen_n[0][1]["actTimeout"] == 5.0
    assert seen_n == seen_k


def test_an_opening_that_ends_the_game_is_refused():
    for play in (play_kaggle, play_native):
        with pytest.raises(ValueError):
            play([CallablePlayer(_first_legal)] * 2, {"rows": 6, "columns": 7, "inarow": 4}, 2.0, 60.0,
                 [0, 1, 0, 1, 0, 1, 0])


def test_openings_call_each_seat_at_its_forced_plies_on_both_referees(monkeypatch):
    """From an opening, each seat is called at each of its opening plies with the real observation (as Kaggle
    would call it in a game that reached them), on Kaggle's clock; the opening's column is played instead of
    its answer, and an error or a timeout there is that seat's forfeit. Both referees agree on all of it.
    80 games (~2 s): they reach every line and branch of both referees that 200 reach (a line tracer's count)."""
    forced_plies_on_both_referees(monkeypatch, 80)


@pytest.mark.slow
def test_openings_call_each_seat_at_its_forced_plies_in_many_games(monkeypatch):
    """The same games and 320 more."""
    forced_plies_on_both_referees(monkeypatch, 400)


def forced_plies_on_both_referees(monkeypatch, games: int) -> None:
    from connectx_toolkit.evaluation.scheduling.openings import generate

    rng = random.Random(40)
    forced_forfeits: set[str] = set()
    played_through = 0
    for game in range(games):  # both referees, Kaggle's the slow one
        shape = {"rows": rng.randint(3, 7), "columns": rng.randint(3, 8), "inarow": rng.randint(3, 5)}
        opening = rng.choice(generate(Config(shape["rows"], shape["columns"], shape["inarow"]), rng.randint(1, 8),
                                      4, game))
        kinds = (rng.choice(KINDS), rng.choice(KINDS))
        act_timeout, overage = rng.choice([2.0, 0.5]), rng.choice([60.0, 0.0, 3.5])
        kaggle, native, seen_k, seen_n = play_both(monkeypatch, game, shape, kinds, opening, act_timeout, overage)
        label = f"game {game}: {shape} {kinds} {opening} {act_timeout} {overage}"
        assert_same(kaggle, native, seen_k, seen_n, label)
        assert native.forced_answers == kaggle.forced_answers, label
        reached = min(len(opening), len(seen_n))  # every opening ply reached was a call at its own step
        assert [observation["step"] for observation, _ in seen_n[:reached]] == list(range(reached)), label
        assert native.moves[:len(opening)] == list(opening)[:len(native.moves)], label
        assert [len(answers) for answers in native.forced_answers] == [
            len(range(seat, min(len(opening), len(native.moves)), 2)) for seat in (0, 1)], label
        if len(native.moves) < len(opening):  # a seat forfeited while the opening was forced
            forced_forfeits.update(status for status in native.statuses if status != "DONE")
        else:
            played_through += 1
    assert forced_forfeits == {"ERROR", "TIMEOUT"}  # an invalid answer at a forced ply is not played, so no forfeit
    assert played_through > 0.6 * games  # most games get past their opening


def test_a_forced_ply_is_timed_and_charged_to_the_bank(monkeypatch):
    clock = ScriptedClock()

    def slow_then_fast(obs, config):
        clock.now += 5.0 if obs.step < 2 else 0.0  # 3 s of bank at each of its forced plies
        return _legal(obs, config)[-1]

    for play in (play_kaggle, play_native):
        monkeypatch.setattr("kaggle_environments.agent.perf_counter", clock)
        played = play([CallablePlayer(slow_then_fast, clock), CallablePlayer(slow_then_fast, clock)],
                      {"rows": 6, "columns": 7, "inarow": 4}, 2.0, 60.0, [3, 3, 2, 4])
        assert played.move_times[0][:2] == [5.0, 0.0] and played.move_times[1][:2] == [5.0, 0.0]
        assert played.steps[2][1]["observation"]["remainingOverageTime"] == 57.0
        assert played.forced_answers == [[6, 6], [6, 6]] and played.moves[:4] == [3, 3, 2, 4]
