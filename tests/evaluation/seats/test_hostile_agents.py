"""Hostile agents can only lose their own games: the opponent's record is untouched, with or without --sandbox.

Each agent runs in its own process (the referee in the worker, outside both), so what an agent reaches
through its call stack, ``gc`` or ``sys.modules`` is its own process's memory, and what it writes to its
pipe is read as untrusted bytes for its own seat only. docs/sandbox.md lists what an agent can still do.
"""

from __future__ import annotations

import os

import pytest

from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.pool import run_games
from tests.helpers import taking_turns, REPO

ROOT = REPO
HOSTILE = os.path.join(ROOT, "tests", "fixtures", "hostile_agents")
FORFEITS = ("invalid", "error", "timeout")


@pytest.fixture(params=["plain", "sandbox"])
def sandboxed(request) -> bool:
    if request.param == "plain":
        return False
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    return True


HOSTILES = ["stack_editor", "module_replacer", "pipe_writer", "forked_child", "cell_writer"]


# Every hostile on both referees. The agent's process is the same on either (the referee stays in the worker), so
# the default run plays each hostile on one referee, the referees taking turns, with and without the sandbox; the
# other referee runs under -m slow.
@pytest.mark.parametrize(("hostile", "referee"),
                         taking_turns(HOSTILES, ("native", "kaggle"), id_of=lambda hostile, referee: f"{referee}-{hostile}"))
def test_a_hostile_agent_only_loses_its_own_games(hostile, referee, sandboxed):
    attacker = resolve_agent(os.path.join(HOSTILE, f"{hostile}.py"), sandbox=sandboxed)
    opponent = resolve_agent("greedy")
    tasks = schedule(attacker, opponent, 4, [[], [3], [3, 3], [2]], PlaySettings(seed=11))
    records = []
    run_games(tasks, on_record=records.append, settings=PlaySettings(workers=1, sandbox=sandboxed, referee=referee))
    assert sorted(record.game_id for record in records) == [0, 1, 2, 3]
    for record in records:
        seat = record.seats[1]
        assert record.outcome_of(1) not in FORFEITS, (record.statuses, record.error, record.note)
        assert record.statuses[seat] == "DONE" and record.error[seat] is None
        assert all(0 <= move < 7 for move in record.moves)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")  # the attacker pokes at pytest.mark too
def test_the_same_stack_attack_wins_when_both_agents_share_the_referees_process():
    """What the separate processes prevent: in one process the attacker reaches Kaggle's ``env``."""
    import runpy

    from connectx_toolkit.evaluation.seats.callable_player import CallablePlayer
    from connectx_toolkit.evaluation.referees.kaggle import play_kaggle

    attack = runpy.run_path(os.path.join(HOSTILE, "stack_editor.py"))["agent"]
    leftmost = runpy.run_path(os.path.join(ROOT, "tests", "fixtures", "eval_agents", "leftmost.py"))["agent"]
    played = play_kaggle([CallablePlayer(attack), CallablePlayer(leftmost)], {"rows": 6, "columns": 7, "inarow": 4})
    assert played.statuses == ["DONE", "INVALID"]
