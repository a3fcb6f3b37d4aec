"""The pool's own failures: a worker that dies or hangs costs one game, and the games queued behind it
are played by its replacement — every task reported exactly once."""

from __future__ import annotations

import os
import time

from connectx_toolkit.evaluation.scheduling import runner
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.pool import QUEUED_PER_WORKER, run_games


def test_a_dying_or_hanging_worker_costs_one_game_and_its_queue_is_played(tmp_path, monkeypatch):
    assert QUEUED_PER_WORKER >= 2  # so that a game waits behind each failure
    tasks = schedule(resolve_agent("greedy"), resolve_agent("random"), 8, [[]], PlaySettings(seed=3))
    dies, hangs, dies_early = tasks[1].game_id, tasks[3].game_id, tasks[5].game_id
    flag = tmp_path / "died early once"
    play_task = runner.play_task

    def failing(task, monitor=None, hosts=None, referee="native"):
        if task.game_id == dies:  # in the middle of seat 1's move
            monitor.start(1, time.monotonic() + 30)
            os._exit(3)
        if task.game_id == hangs:  # the worker itself stops answering, past its move's deadline
            monitor.start(0, time.monotonic() + 0.2)
            time.sleep(60)
        if task.game_id == dies_early and not flag.exists():  # before any move: not the game's fault
            flag.write_text("")
            os._exit(4)
        return play_task(task, monitor, hosts, referee)

    monkeypatch.setattr(runner, "play_task", failing)
    records = []
    started = time.monotonic()
    run_games(tasks, on_record=records.append, grace=0.2, settings=PlaySettings(workers=1))
    assert time.monotonic() - started < 20
    assert sorted(record.game_id for record in records) == sorted(task.game_id for task in tasks)
    by_id = {record.game_id: record for record in records}
    assert by_id[dies].outcomes[1] == "error" and "worker process died (exit code 3)" in by_id[dies].note
    assert by_id[hangs].outcomes[0] == "timeout" and "killed" in by_id[hangs].note
    assert flag.exists() and by_id[dies_early].steps  # replayed, and played to its end this time
    for game_id in set(by_id) - {dies, hangs}:
        assert by_id[game_id].steps and not by_id[game_id].note, game_id


def test_every_backend_is_called_through_one_signature():
    """The backends' call, its defaults and its set-up (``pool.backend``) have one home: a backend gets its games
    only when there are some, next game last (``pop()``), with the default settings and grace when not given."""
    from connectx_toolkit.evaluation.scheduling import pool

    seen = []

    @pool.backend
    def play(pending, on_record, settings, grace):
        seen.append((list(pending), on_record, settings, grace))

    play(iter([]), on_record=print)
    assert seen == []
    play(iter(["first", "second", "third"]), on_record=print)
    play(["only"], on_record=print, settings=PlaySettings(workers=3), grace=2.0)
    assert seen == [(["third", "second", "first"], print, PlaySettings(), pool.GRACE_SECONDS),
                    (["only"], print, PlaySettings(workers=3), 2.0)]
    assert run_games.__code__ is play.__code__ and run_games.__name__ == "run_games"
