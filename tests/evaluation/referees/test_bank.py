"""Kaggle's clock as its one owner in the toolkit (``evaluation.referees.bank``) states it, the referee, its
step records and the board applying it, and the agents' own clock (``agents/core/clock.py``, which cannot
import the toolkit) held to it. ``test_clock_differential.py`` holds the owner to Kaggle's Environment."""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectx_toolkit.agents.core import Config
from connectx_toolkit.agents.core.clock import act_timeout, move_deadline, overage
from connectx_toolkit.agents.solver_engine import time_manager as tm
from connectx_toolkit.evaluation.referees.bank import (
    Bank, bank_left, bank_spent, full_game_need, move_shares, overage_of, ply_profile, times_out,
)
from connectx_toolkit.evaluation.referees.native import play_native
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, Status, kaggle_configuration
from connectx_toolkit.evaluation.seats.callable_player import CallablePlayer
from tests.helpers import drawn_game

SHAPE = Config().as_dict()


def test_kaggles_figures():
    assert (DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE) == (2.0, 60.0)
    assert Bank().deadline == 62.0


def test_a_move_draws_only_its_time_beyond_the_act_timeout():
    assert overage_of(1.5, 2.0) == 0 and overage_of(2.0, 2.0) == 0
    assert overage_of(2.75, 2.0) == 0.75
    assert bank_spent([1.0, 2.5, 3.0, 0.1], 2.0) == 1.5
    assert bank_left([1.0, 2.5, 3.0, 0.1], 2.0, 60.0) == 58.5


def test_exactly_the_bank_is_not_a_timeout_and_strictly_more_is():
    # 2.5 - 2.0 and 0.5 are exact in binary: the boundary is the comparison's, not rounding's
    assert not times_out(2.5, 2.0, 0.5)
    assert times_out(2.5 + 1e-9, 2.0, 0.5)
    assert not times_out(0.0, 2.0, 0.0) and not times_out(2.0, 2.0, 0.0) and times_out(2.000001, 2.0, 0.0)
    bank = Bank(2.0, 0.5)
    assert not bank.times_out(2.5) and bank.times_out(2.5 + 1e-9)


def test_the_bank_of_one_episode():
    bank = Bank(2.0, 3.0)
    assert bank.charge(1.0) == 0 and bank.left == 3.0 and bank.deadline == 5.0
    assert bank.charge(4.0) == 2.0 and bank.left == 1.0 and bank.deadline == 3.0
    assert not bank.times_out(3.0) and bank.times_out(3.25)
    bank.charge(3.25)  # Kaggle draws the TIMEOUT move too: the bank goes below zero
    assert bank.left == -0.25


def test_move_shares_are_of_the_act_timeout_plus_the_bank_left():
    shares = list(move_shares([1.0, 4.0, 3.0, 3.5], 2.0, 3.0))
    assert shares == [(1.0, 0.2), (4.0, 0.8), (3.0, 1.0), (3.5, 1.75)]
    # A share of exactly 1 stands; above 1 is a TIMEOUT, as times_out rules
    left = 3.0
    for seconds, share in shares:
        assert (share > 1) == times_out(seconds, 2.0, left)
        left -= overage_of(seconds, 2.0)


def test_the_ply_profile_is_each_plys_median_overage_with_the_first_move_kept():
    # seat 0 moves at plies 0, 2, 4; seat 1 at 1, 3; a game's first move (its load) is kept: Kaggle pays it
    profile = ply_profile([(0, [9.0, 2.5, 1.0]), (1, [2.0, 5.0]), (0, [3.0, 4.5])], 2.0)
    assert profile == {0: 4.0, 1: 0.0, 2: 1.5, 3: 3.0, 4: 0.0}


def test_a_full_game_is_priced_ply_by_ply_not_from_the_opening_alone():
    # issue 54: 5.5 s a move while fewer than 10 stones are on the board, then instant, over a long game
    # (both seats' moves at every ply, as in a self-play episode): each seat's first 5 moves draw 3.5 s, 17.5 s in all
    profile = ply_profile([(0, [5.5] * 5 + [0.01] * 15), (1, [5.5] * 5 + [0.01] * 15)], 2.0)
    need = full_game_need(profile, 6, 7)
    assert need.seconds == pytest.approx(17.5) and need.moves == 21 and need.tail_s == 0.0
    # its short games against random alone (all opening moves): the plies no game reached are priced at the last
    # ones reached, so only a long game shows it gets cheap; the old median projection said 21 x 3.5 = 73.5 s
    short = full_game_need(ply_profile([(0, [5.5] * 4), (1, [5.5] * 4)], 2.0), 6, 7)
    assert short.seconds == pytest.approx(73.5) and short.past == 17
    # a steady 5 s a move: 21 x 3 s = 63 s, whatever the game's length
    steady = full_game_need(ply_profile([(0, [5.0] * 12), (1, [5.0] * 12)], 2.0), 6, 7)
    assert steady.seconds == pytest.approx(63.0) and steady.seat == 0
    assert full_game_need({}, 6, 7).seconds == 0.0


def test_a_full_game_prices_a_gap_at_the_nearest_ply_reached():
    # only the first seat's plies reached: ply 2 costs as ply 0 (the lower on a tie); the second seat's ply 1 as 0,
    # 3 as 4, 5 as 4 (a tie), 7 and 9 as 6 and 8; past ply 10, the median of plies 4-10's: 0
    need = full_game_need({0: 1.0, 4: 3.0, 6: 0.0, 8: 0.0, 10: 0.0}, 6, 7)
    assert need.seat == 1 and need.seconds == pytest.approx(1.0 + 3.0 + 3.0) and need.tail_s == 0.0
    assert need.past == 16 and need.moves == 21  # plies 11 to 41


def scripted(durations: list[float], column: int = 0) -> tuple[CallablePlayer, list[float]]:
    """A seat whose moves take ``durations`` (then instant) on a scripted clock; it records the bank it sees."""
    now = [0.0]
    seen: list[float] = []

    def agent(obs, config):
        seen.append(obs.remainingOverageTime)
        now[0] += durations[len(seen) - 1] if len(seen) <= len(durations) else 0.0
        return [c for c in range(config.columns) if obs.board[c] == 0][column]

    return CallablePlayer(agent, clock=lambda: now[0]), seen


def test_the_native_referee_rules_and_records_by_the_owner():
    # Seat 0: 2.5 s (0.5 drawn), 3 s (1 drawn), then 3.5 s with 1.5 left (exactly the bank: stands), then
    # 2.1 s with nothing left: TIMEOUT on its 4th move
    durations = [2.5, 3.0, 3.5, 2.1]
    first, seen = scripted(durations)
    second, _ = scripted([], column=-1)
    played = play_native([first, second], SHAPE, 2.0, 3.0)
    assert played.statuses == [Status.TIMEOUT, Status.DONE]
    assert seen == [bank_left(durations[:n], 2.0, 3.0) for n in range(4)] == [3.0, 2.5, 1.5, 0.0]
    banks = [step[0]["observation"]["remainingOverageTime"] for step in played.steps]
    assert banks[-1] == bank_left(durations, 2.0, 3.0) < 0  # Kaggle draws the TIMEOUT move too
    assert banks[-3] == 0.0  # the expanded steps (KaggleSteps) draw the bank by the same rule


@lru_cache(maxsize=None)
@settings(max_examples=60, deadline=None)
@given(act=st.floats(0.5, 5.0), bank=st.floats(1.0, 120.0), overshoot=st.floats(0.0, 1.0), first_load=st.floats(0, 1))
def test_the_agents_clock_sees_the_owners_bank_and_its_plan_never_times_out(act, bank, overshoot, first_load):
    """Both seats think every move for the solver's hard budget (from ``agents.core.clock``'s reading of the
    observation and configuration) and overrun it by up to its safety margin, the first move by up to its
    first-move margin too (the load): the native referee, on the owner's rule, never rules TIMEOUT, and what
    the agent reads as its bank is the owner's bank after its earlier moves."""
    moves = tuple(drawn_game(3))
    now = [0.0]
    spent: list[list[float]] = [[], []]
    seen: list[list[float]] = [[], []]

    def seat(index: int):
        def agent(obs, config):
            act_seen, bank_seen = act_timeout(config), overage(obs)
            stones = sum(1 for cell in obs.board if cell)
            first = not spent[index]
            margin = tm.safety_margin(act_seen) + (first_load * tm.FIRST_MOVE_MARGIN if first else 0.0)
            took = tm.hard_budget(act_seen, bank_seen, stones, len(obs.board), first) + overshoot * margin
            seen[index].append(bank_seen)
            spent[index].append(took)
            now[0] += took
            return moves[stones]
        return CallablePlayer(agent, clock=lambda: now[0])

    played = play_native([seat(0), seat(1)], SHAPE, act, bank)
    assert played.statuses == [Status.DONE, Status.DONE] and len(played.moves) == 42
    for index in (0, 1):
        times = played.move_times[index]  # the durations the referee recorded (to the microsecond)
        assert times == pytest.approx(spent[index], abs=1e-6)
        for number, bank_seen in enumerate(seen[index]):
            assert bank_seen == pytest.approx(max(0.0, bank_left(times[:number], act, bank)), abs=1e-9)


@given(act=st.floats(0.0, 20.0), share=st.floats(0.0, 1.0), ceiling=st.floats(0.0, 30.0))
def test_move_deadline_never_plans_into_the_bank(act, share, ceiling):
    """``move_deadline`` (the alphabeta and minimax agents' budget) keeps every move within the act timeout
    that ``kaggle_configuration`` sends: by the owner's rule such a move draws nothing."""
    clock = move_deadline({"remainingOverageTime": 60.0}, kaggle_configuration(SHAPE, act), share, ceiling)
    assert overage_of(clock.end - clock.start, act) <= 1e-9
