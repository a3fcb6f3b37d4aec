"""Opening suites and the results file behind evaluate.py."""

from __future__ import annotations

import json

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.openings import SUITE_6X7, OpeningError, generate, load_suite, read_suite, to_string
from connectx_toolkit.evaluation.referees.record import GameRecord
from connectx_toolkit.evaluation.reports.results import ResultsError, ResultsLog, read


def test_default_6x7_suite_is_the_shipped_file():
    with open(SUITE_6X7) as handle:
        lines = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    suite = load_suite(None, Config())
    assert [to_string(opening) for opening in suite] == lines


@pytest.mark.parametrize("shape", [(8, 9, 5), (6, 7, 3), (4, 4, 3), (10, 12, 4)])
def test_generated_suites_are_distinct_undecided_and_reproducible(shape):
    config = Config(*shape)
    suite = generate(config, 4, 50, seed=1)
    keys = set()
    for opening in suite:
        assert len(opening) == 4
        position = Position.from_moves(opening, config)
        assert not position.last_player_won() and not position.immediate_wins()
        keys.add(position.key())
    assert len(keys) == len(suite) >= 10
    assert generate(config, 4, 50, seed=1) == suite
    assert generate(config, 4, 50, seed=2) != suite


def test_tiny_boards_fall_back_to_shallower_openings():
    assert generate(Config(1, 1, 1), 4, 10, 0) == [[]]
    suite = generate(Config(2, 2, 2), 4, 10, 0)
    assert all(len(opening) < 4 for opening in suite)


def test_openings_file_with_comments_and_wide_boards(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\n4453\n\n11 1 2   # column eleven\n")
    assert read_suite(str(path), Config(6, 12, 4)) == [[3, 3, 4, 2], [10, 0, 1]]


@pytest.mark.parametrize("text, message", [("4444444\n", "not legal"), ("", "no opening"), ("1213121\n", "decided")])
def test_bad_openings_files_are_rejected_with_the_line(tmp_path, text, message):
    path = tmp_path / "openings.txt"
    path.write_text(text)
    with pytest.raises(OpeningError, match=message):
        read_suite(str(path), Config())


def test_schedule_pairs_openings_with_seats_swapped():
    a, b = resolve_agent("greedy"), resolve_agent("random")
    tasks = schedule(a, b, 10, [[0], [1], [2]], PlaySettings(seed=5))
    assert [t.game_id for t in tasks] == list(range(10))
    assert [t.swapped for t in tasks] == [False, True] * 5
    assert all(tasks[i].opening == tasks[i + 1].opening for i in range(0, 10, 2))
    assert len({tasks[i].opening for i in range(0, 6, 2)}) == 3
    assert tasks == schedule(a, b, 10, [[0], [1], [2]], PlaySettings(seed=5))  # resumable: a pure function
    assert tasks[0].seats == (a, b) and tasks[1].seats == (b, a)


def record(game_id: int) -> GameRecord:
    return GameRecord(game_id, ["a", "b"], [], [3], ["DONE", "DONE"], ["win", "loss"], [[0.1], []], {"rows": 6, "columns": 7, "inarow": 4}, 1)


def test_results_file_survives_a_torn_last_line(tmp_path):
    path = str(tmp_path / "r.jsonl")
    log = ResultsLog.create(path, {"agents": ["a", "b"]})
    log.append(record(0))
    log.append(record(1))
    log.close()
    with open(path, "a") as handle:
        handle.write('{"kind":"game","game_id":2,"agen')  # killed mid-write
    log, header, done = ResultsLog.resume(path)
    assert header["agents"] == ["a", "b"] and [r.game_id for r in done] == [0, 1]
    log.append(record(2))
    log.close()
    assert [r.game_id for r in read(path)[1]] == [0, 1, 2]
    with open(path) as handle:
        assert all(json.loads(line) for line in handle)
    with pytest.raises(ResultsError, match="already exists"):
        ResultsLog.create(path, {})


def test_a_file_that_is_not_a_results_file_is_refused(tmp_path):
    path = tmp_path / "other.jsonl"
    path.write_text('{"kind": "game"}\n')
    with pytest.raises(ResultsError, match="not a results file"):
        read(str(path))
