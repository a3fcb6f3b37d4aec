"""The engine: one game on Kaggle's referee, isolated workers with hard deadlines, openings, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import run_match
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.runner import play_game
from tests.helpers import REPO

ROOT = REPO
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "eval_agents")


def spec(name: str):
    return resolve_agent(os.path.join(FIXTURES, f"{name}.py"))


def test_play_game_replays_the_opening_through_the_referee():
    record = play_game(resolve_agent("greedy"), resolve_agent("random"), [3, 3, 2], seed=7)
    assert record.moves[:3] == [3, 3, 2]
    # every ply was a timed call, the opening's included (its answers kept, the opening's columns played)
    assert len(record.move_times[0]) + len(record.move_times[1]) == len(record.moves)
    assert [len(answers) for answers in record.forced_answers] == [2, 1]
    # the referee's first recorded step after reset already shows the opening's first stone
    assert record.steps[1][0]["observation"]["board"][5 * 7 + 3] == 1
    final = Position.from_moves(record.moves, Config())
    assert record.steps[-1][0]["observation"]["board"] == final.to_board(1 if final.moves % 2 == 0 else 2)
    assert sorted(record.outcomes) in (["loss", "win"], ["draw", "draw"])


def test_play_game_counts_a_float_as_invalid_and_keeps_a_replayable_history():
    record = play_game(spec("returns_float"), resolve_agent("random"), [], seed=1)
    assert record.statuses == ["INVALID", "DONE"] and record.outcomes == ["invalid", "win"]
    assert "float 3.0" in record.note and "crashes" in record.note
    assert record.steps[-1][0]["status"] == "INVALID"
    kaggle = play_game(spec("returns_float"), resolve_agent("random"), [], seed=1, referee="kaggle")
    assert kaggle.statuses == ["INVALID", "DONE"] and "crashed the referee" in kaggle.note


def test_slow_agent_times_out_by_kaggles_own_rule():
    record = play_game(spec("slow"), resolve_agent("random"), [], act_timeout=0.5, overage=1.0)
    assert record.statuses[0] == "TIMEOUT" and record.outcomes == ["timeout", "win"]
    first, *_, last = record.move_times[0]
    assert first > 1.0  # paid from the bank
    # killed at its deadline (0.5 s + the 0.3 s left), not waited for (its second move would take a minute): no
    # upper bound tighter than that, as a busy machine may land the kill late
    assert 0.8 <= last < 30


@pytest.mark.parametrize("name, expected", [
    ("sleeps_forever", {"timeout"}), ("exits", {"error"}), ("allocates", {"timeout", "error"}),
    ("floods", {"timeout", "error"}),
])
def test_isolated_workers_forfeit_misbehaving_agents_and_go_on(name, expected):
    start = time.monotonic()
    records = run_match(spec(name), resolve_agent("random"), 2,
                        PlaySettings(act_timeout=0.5, overage=1.0, workers=2, memory_mb=512))
    assert [r.game_id for r in records] == [0, 1]
    assert all(r.outcome_of(0) in expected and r.outcome_of(1) == "win" for r in records)
    assert time.monotonic() - start < 20
    if name == "sleeps_forever":  # killed at act timeout + overage bank + grace
        assert all(1.5 <= r.times_of(0)[-1] < 5 for r in records)


def test_a_good_agent_is_unharmed_by_a_killed_neighbour():
    records = run_match(spec("exits"), resolve_agent("greedy"), 6, PlaySettings(workers=1))
    assert len(records) == 6 and all(r.outcome_of(1) == "win" for r in records)


def test_openings_make_deterministic_agents_play_distinct_games():
    leftmost = spec("leftmost")
    records = run_match(leftmost, leftmost, 40, PlaySettings(workers=2, seed=3))
    assert len(records) == 40
    assert len({tuple(r.moves) for r in records}) >= 20
    empty = run_match(leftmost, leftmost, 6, PlaySettings(workers=2, openings="0"))
    assert len({tuple(r.moves) for r in empty}) == 1  # the reason openings exist


def results_lines(path: str) -> list[dict]:
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.endswith("\n")]


@pytest.mark.parametrize("signum", [signal.SIGKILL, pytest.param(signal.SIGTERM, marks=pytest.mark.slow)])
def test_resume_after_kill_plays_every_game_exactly_once(tmp_path, signum):
    results = str(tmp_path / "run.jsonl")
    command = [sys.executable, "evaluate.py", os.path.join(FIXTURES, "pause.py"), "random", "-n", "12",
               "--workers", "2", "--json", "--results", results]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if os.path.exists(results) and len(results_lines(results)) >= 4:  # header + 3 games
            break
        time.sleep(0.05)
    process.send_signal(signum)
    process.communicate(timeout=30)
    before = [line["game_id"] for line in results_lines(results) if line["kind"] == "game"]
    assert 3 <= len(before) < 12
    resumed = subprocess.run([sys.executable, "evaluate.py", "--resume", results, "--json"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["games"] == 12
    ids = [line["game_id"] for line in results_lines(results) if line["kind"] == "game"]
    assert sorted(ids) == list(range(12))  # none lost, none played twice
