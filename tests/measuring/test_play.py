"""How an agent is asked the benchmark's positions (accuracy/play.py): every position of a source game in order,
in the agent's own process on Kaggle's clock, the game's column played; forfeits with their reasons."""

import os

from connectx_toolkit.measuring.benchmark import Benchmark, SourceGame
from connectx_toolkit.measuring.play import game_task, play_benchmark
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.settings import PlaySettings
from connectx_toolkit.outcomes import Outcome
from tests.helpers import FIXTURES

AGENTS = os.path.join(FIXTURES, "eval_agents")
FAST = PlaySettings(workers=2)


def answers(agent, benchmark, settings=FAST):
    spec = resolve_agent(agent)
    return play_benchmark([spec], benchmark, settings)[0]


def test_every_position_is_answered_by_the_agent_to_move(small):
    found = answers(os.path.join(AGENTS, "leftmost.py"), small)
    assert [(a.position.game, a.position.ply) for a in found] == [(p.game, p.ply) for p in small.positions]
    for answer in found:  # leftmost: the first column that is not full, whoever moves
        assert answer.forfeit is None
        assert answer.column == next(c for c, s in enumerate(answer.position.scores) if s is not None)
        assert answer.seconds is not None and answer.seconds >= 0


def test_the_task_forces_the_game_up_to_its_last_labelled_position(small):
    game = small.games[0]
    task = game_task(resolve_agent("greedy"), game, FAST)
    assert task.opening == game.moves[:game.last_ply]
    assert task.seats[0] is task.seats[1]  # the agent in both seats
    assert not task.swapped and task.act_timeout == 2 and task.overage == 60


def test_an_agent_that_sets_itself_up_on_its_first_call_is_asked_as_a_game_asks_it(small):
    # It raises NameError when its first call is not at step 0 or 1: asked from the empty board, it never does,
    # and it answers every position as its stateless twin would (it plays the last opponent stone's column).
    found = answers(os.path.join(AGENTS, "sets_up_at_step_0_or_1.py"), small)
    assert [a.forfeit for a in found if a.forfeit] == []
    assert len(found) == len(small.positions)


def test_a_raise_is_an_error_at_its_position_and_the_rest_of_its_game_is_not_reached(small):
    game = small.games[0]
    cut = Benchmark((game,), {}, "one game")
    found = answers(os.path.join(AGENTS, "raises.py"), cut)
    first = found[0]
    assert first.forfeit == Outcome.ERROR
    assert all(a.forfeit == Outcome.ERROR and not a.accurate for a in found)
    # the game ended at ply 0 (the agent's first call): its labelled positions (from ply 20) were never reached
    assert "not reached: the game ended at ply 0" in first.reason and "raises.py" in first.reason


def test_answers_kaggle_refuses_are_invalid_at_their_position_only(small):
    found = answers(os.path.join(AGENTS, "numpy_int.py"), small)
    assert all(a.forfeit == Outcome.INVALID for a in found)
    forced = [a for a in found if a.position.ply < small.games[a.position.game].last_ply]
    assert forced and all("not a plain int" in a.reason for a in forced)
    assert all(a.verdict == "invalid" and not a.accurate for a in found)


def test_a_column_off_the_board_is_invalid_with_the_column_named(small):
    found = answers(os.path.join(AGENTS, "returns_99.py"), Benchmark(small.games[:1], {}, "one game"))
    assert found[0].forfeit == Outcome.INVALID and "99" in found[0].reason


def test_two_agents_in_one_run_answer_the_same_positions(small):
    specs = [resolve_agent("greedy"), resolve_agent("random")]
    found = play_benchmark(specs, small, FAST)
    assert [answers[0].agent for answers in found] == ["greedy", "random"]
    keys = [[(a.position.game, a.position.ply) for a in answers] for answers in found]
    assert keys[0] == keys[1] == [(p.game, p.ply) for p in small.positions]


def test_an_empty_benchmark_asks_nothing():
    assert play_benchmark([resolve_agent("greedy")], Benchmark((SourceGame(0, (3,)),)), FAST) == [[]]
