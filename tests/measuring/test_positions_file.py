"""``connectx accuracy --positions FILE``: the positions of a results file, a Kaggle episode JSON or a file of move
strings, each labelled with every column's exact score as the analysis' ``PositionScorer`` gives it; positions not
exact within the budget left out and counted; bad input one line naming the file (and the line)."""

from __future__ import annotations

import json
import time

import pytest

from connectx_toolkit.measuring.benchmark import Benchmark
from connectx_toolkit.measuring.positions_file import (DEFAULT_BUDGET, DEFAULT_EARLY_BUDGET, PositionsSettings,
                                                      read_positions)
from connectx_toolkit.analysis.positions import parse_moves
from connectx_toolkit.analysis.scores import PositionScorer, SolveSettings
from connectx_toolkit.errors import UsageError

# A game yellow wins at move 13 whose every position the score book, the rules or a one-ply look-ahead settle
# without a search (found by a walk over such lines): a whole game labelled in milliseconds.
GAME = "4444445636572"
LATE = "2552354651517435"  # 16 stones: solved in milliseconds
SETTINGS = PositionsSettings(budget=5.0, cache="none")


def scores(moves) -> tuple:
    """The labels the analysis gives: every column's exact score for the player to move."""
    scorer = PositionScorer(SolveSettings(budget=5.0, cache_path=None))
    try:
        columns = scorer.solve(tuple(moves), every_column=True).columns
    finally:
        scorer.close()
    assert all(value is None or value.exact for value in columns)
    return tuple(None if value is None else value.score for value in columns)


def results_file(path, moves: str, config=None, game_id: int = 5) -> str:
    config = config or {"rows": 6, "columns": 7, "inarow": 4}
    header = {"kind": "run", "format": 1, "agents": ["alpha", "beta"], "games": 1, "config": config, "seed": 0,
              "act_timeout": 2.0, "overage": 60.0, "openings": 0, "sprt": None, "alpha": 0.05, "beta": 0.05,
              "suite": [[]]}
    columns = [int(char) - 1 for char in moves]
    record = {"kind": "game", "game_id": game_id, "agents": ["alpha", "beta"], "opening": [], "moves": columns,
              "statuses": ["DONE", "DONE"], "outcomes": ["win", "loss"],
              "move_times": [[0.001] * ((len(columns) + 1) // 2), [0.001] * (len(columns) // 2)],
              "config": config, "seed": 0, "swapped": False, "note": ""}
    path.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n")
    return str(path)


def check_whole_game(benchmark: Benchmark, game_id: int, agents: tuple[str, str]) -> None:
    [game] = benchmark.games
    moves = parse_moves(GAME[:-1]) + (int(GAME[-1]) - 1,)
    assert (game.id, game.moves, game.agents) == (game_id, moves, agents)
    # every position an agent moved at: the empty board to the one before the winning move
    assert [p.ply for p in game.positions] == list(range(len(GAME)))
    for position in game.positions:
        assert position.game == game_id and position.moves == GAME[:position.ply]
        assert position.scores == scores(moves[:position.ply]), position.moves
    assert benchmark.metadata["left_out"] == 0 and benchmark.metadata["positions"] == len(GAME)


def test_a_results_file_gives_every_position_of_its_games_labelled_as_the_analysis_labels_them(tmp_path):
    path = results_file(tmp_path / "run.jsonl", GAME)
    benchmark = read_positions(path, SETTINGS)
    check_whole_game(benchmark, 5, ("alpha", "beta"))
    assert benchmark.metadata["format"] == "results" and benchmark.source == path
    assert benchmark.positions[0].scores == (-2, -1, 0, 1, 0, -1, -2)  # the empty board, known by heart
    assert benchmark.positions[-1].best == 15  # yellow wins with its 7th stone: (43 - 12) // 2


def test_a_kaggle_episode_gives_the_same_positions_with_its_team_names(tmp_path):
    from connectx_toolkit.evaluation.reports.replays import replay_environment
    from connectx_toolkit.evaluation.referees.record import GameRecord

    record = GameRecord(game_id=0, agents=["alpha", "beta"], opening=[], moves=[int(c) - 1 for c in GAME],
                        statuses=["DONE", "DONE"], outcomes=["win", "loss"], move_times=[[], []],
                        config={"rows": 6, "columns": 7, "inarow": 4}, seed=0)
    episode = tmp_path / "episode.json"
    document = replay_environment(record).toJSON()
    document["info"]["EpisodeId"] = 71234567
    episode.write_text(json.dumps(document))
    benchmark = read_positions(str(episode), SETTINGS)
    check_whole_game(benchmark, 71234567, ("alpha", "beta"))
    assert benchmark.metadata["format"] == "episode"


def test_a_file_of_move_strings_gives_each_lines_position(tmp_path):
    path = tmp_path / "worst.txt"
    path.write_text(f"# the worst positions of last night's run\n\n{LATE}\n  {GAME[:-1]}  \n{LATE[:-1]} -3\n")
    benchmark = read_positions(str(path), SETTINGS)
    assert [game.id for game in benchmark.games] == [3, 4, 5]  # each line a game, named by its line number
    for game, text in zip(benchmark.games, (LATE, GAME[:-1], LATE[:-1])):
        [position] = game.positions  # only the line's own position: the agent is asked there
        assert game.moves == parse_moves(text) and game.agents == ("", "")
        assert (position.ply, position.moves, position.scores) == (len(text), text, scores(parse_moves(text)))
    assert benchmark.metadata["format"] == "moves" and benchmark.metadata["left_out"] == 0


def test_positions_not_exact_within_the_budget_are_left_out_and_counted(tmp_path):
    path = tmp_path / "early.txt"
    # 3 stones off the book's lines: a search of minutes; the game's positions need no search at all
    path.write_text(f"445\n{GAME[:-1]}\n")
    started = time.monotonic()
    benchmark = read_positions(str(path), PositionsSettings(cache="none"))  # the default budgets
    assert time.monotonic() - started < 30  # not 10 s a column: an early position gets DEFAULT_EARLY_BUDGET
    assert [game.id for game in benchmark.games] == [2] and benchmark.positions[0].moves == GAME[:-1]
    assert benchmark.metadata["left_out"] == 1 and benchmark.metadata["left_out_positions"] == ["445"]
    assert benchmark.metadata["positions"] == 1 and benchmark.metadata["budget"] == DEFAULT_BUDGET
    assert (benchmark.metadata["early_budget"], benchmark.metadata["early_stones"]) == (DEFAULT_EARLY_BUDGET, 8)


def test_a_late_position_not_exact_within_the_budget_is_left_out_too(tmp_path):
    path = tmp_path / "late.txt"
    path.write_text("4455\n" + "44444756\n")  # 4 and 8 stones, both needing seconds of search
    benchmark = read_positions(str(path), PositionsSettings(budget=0.001, early_budget=0.001, cache="none"))
    assert benchmark.games == () and benchmark.metadata["left_out_positions"] == ["4455", "44444756"]


def test_what_is_left_out_is_counted_by_reason_and_phase_beside_the_files_positions(tmp_path):
    path = tmp_path / "mixed.txt"
    # two early positions off the book's lines, one of 8 stones and one of 12 that take seconds of search, and one
    # of 24 stones (solved at once, whatever the budget) twice: a position two games reach is asked in each
    late = "444443437666633353767715"
    path.write_text(f"445\n4455\n44444756\n144451456721\n{late}\n{late}\n")
    benchmark = read_positions(str(path), PositionsSettings(budget=0.001, early_budget=0.001, cache="none"))
    metadata = benchmark.metadata
    assert [p.moves for p in benchmark.positions] == [late, late]
    assert (metadata["file_positions"], metadata["distinct_positions"], metadata["positions"]) == (6, 5, 2)
    assert metadata["left_out"] == 4 and metadata["left_out_positions"] == ["445", "4455", "44444756", "144451456721"]
    reasons = metadata["left_out_by_reason"]
    assert reasons["early"] == {"reason": "with fewer than 8 stones, not exact within the early budget, 0.001 s a column",
                                "positions": 2, "by_phase": {"0-11": 2, "12-23": 0, "24-41": 0}}
    assert reasons["budget"] == {"reason": "not exact within the budget, 0.001 s a column",
                                 "positions": 2, "by_phase": {"0-11": 1, "12-23": 1, "24-41": 0}}


def test_only_the_first_games_are_labelled_when_asked(tmp_path):
    path = tmp_path / "three.txt"
    path.write_text(f"445\n{LATE}\n{GAME[:-1]}\n")
    benchmark = read_positions(str(path), PositionsSettings(early_budget=0.001, cache="none"), games=2)
    assert [game.id for game in benchmark.games] == [2]
    assert (benchmark.metadata["file_positions"], benchmark.metadata["left_out_positions"]) == (2, ["445"])


def test_progress_is_told_after_each_position(tmp_path):
    path = results_file(tmp_path / "run.jsonl", GAME)
    told = []
    read_positions(path, SETTINGS, on_position=lambda done, total: told.append((done, total)))
    assert told == [(done, len(GAME)) for done in range(1, len(GAME) + 1)]


@pytest.mark.parametrize("text, says", [
    (f"# header\n{LATE}\n44444447\n", "{path}:3: move 7 is column 4, which is full"),
    ("\n\n1212121\n", "{path}:3: the game is over: move 7 won it (four in a row)"),
    ("4453\nhello\n", "{path}:2: move 1 is 'h', not a column: columns are 1 to 7"),
    ("4453 draw\n", "{path}:1: not a move string (columns 1 to 7, optionally a score after it): '4453 draw'"),
    ("# nothing but a comment\n\n", "{path}: no positions in it"),
    ('{"kind": "run", "format": 1\n', "not JSON"),
])
def test_bad_positions_are_one_line_naming_the_file_and_line(tmp_path, text, says):
    path = tmp_path / "positions.txt"
    path.write_text(text)
    with pytest.raises(UsageError) as raised:
        read_positions(str(path), SETTINGS)
    message = str(raised.value)
    assert "\n" not in message and says.format(path=path) in message


def test_an_unreadable_file_is_one_line_naming_it(tmp_path):
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(UsageError) as raised:
        read_positions(str(missing), SETTINGS)
    assert str(raised.value) == f"{missing}: cannot read the positions (No such file or directory)"
    binary = tmp_path / "weights.bin"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(UsageError, match=r"weights.bin: not positions \(not UTF-8 text\)"):
        read_positions(str(binary), SETTINGS)


@pytest.mark.parametrize("config, board", [
    ({"rows": 5, "columns": 6, "inarow": 4}, "5x6 boards, four in a row"),
    ({"rows": 6, "columns": 7, "inarow": 3}, "6x7 boards, 3 in a row"),
])
def test_games_on_another_board_have_no_perfect_labels(tmp_path, config, board):
    path = results_file(tmp_path / "run.jsonl", "1122", config=config)
    with pytest.raises(UsageError) as raised:
        read_positions(path, SETTINGS)
    assert str(raised.value) == f"{path}: positions on {board}, have no perfect labels: only 6x7 four in a row"
    episode = tmp_path / "episode.json"
    episode.write_text(json.dumps({"name": "connectx", "configuration": config, "steps": [[{}, {}]]}))
    with pytest.raises(UsageError) as raised:
        read_positions(str(episode), SETTINGS)
    assert str(raised.value) == f"{episode}: positions on {board}, have no perfect labels: only 6x7 four in a row"


@pytest.mark.parametrize("fields, says", [
    ({"budget": 0}, "--analysis-budget must be > 0 and <= 3600, got 0"),
    ({"budget": 4000}, "--analysis-budget must be > 0 and <= 3600, got 4000"),
    ({"budget": True}, "--analysis-budget must be > 0 and <= 3600, got True"),
    ({"budget": "10"}, "--analysis-budget must be > 0 and <= 3600, got '10'"),
    ({"cache": ""}, "--analysis-cache must be a path, got ''"),
    ({"early_budget": 0}, "early_budget must be > 0 and <= 3600, got 0"),
])
def test_settings_check_themselves(fields, says):
    with pytest.raises(UsageError) as raised:
        PositionsSettings(**fields)
    assert str(raised.value) == says


def test_settings_defaults():
    settings = PositionsSettings()
    assert settings.budget == DEFAULT_BUDGET == 10.0 and settings.cache is None
    assert settings.early_budget == DEFAULT_EARLY_BUDGET == 0.05
    assert PositionsSettings(cache="none").cache_path is None
    assert PositionsSettings(cache="/tmp/x.sqlite").cache_path == "/tmp/x.sqlite"


def test_labels_agree_with_an_independent_solver(tmp_path):
    """Positions from ply 24 on of tests/data/oracle_random.jsonl, whose scores bitbully (not the project's code)
    gave: read as move strings, they get the same scores."""
    import os

    from tests.helpers import REPO

    with open(os.path.join(REPO, "tests", "data", "oracle_random.jsonl")) as handle:
        oracle = [json.loads(line) for line in handle if line.startswith("{")]
    sample = [entry for entry in oracle if len(entry["moves"]) >= 24][::40][:10]
    path = tmp_path / "oracle.txt"
    path.write_text("".join(entry["moves"] + "\n" for entry in sample))
    benchmark = read_positions(str(path), SETTINGS)
    assert len(sample) >= 10 and benchmark.metadata["left_out"] == 0
    assert [p.moves for p in benchmark.positions] == [entry["moves"] for entry in sample]
    assert [list(p.scores) for p in benchmark.positions] == [entry["scores"] for entry in sample]


# Positions of Pons' Middle-Easy set (15-18 stones) with their scores: each labelled in milliseconds, each sending
# some of its columns to a search (so that a label can come from the cache or not).
SEARCHED = ["47611556754127222 12", "35531254275547623 -9", "175617344365477255 11", "137616613112365341 6",
            "45542744735462742 -11", "212532617775164141 10"]
AT_ONCE = ["7422341735647741166133573473242566 1", "5554224333234511764415115 4"]  # late: solved at once


def test_labelling_on_two_workers_gives_the_labels_of_one(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join([*SEARCHED, "445", *AT_ONCE]) + "\n")  # 445: left out at its early budget
    settings = PositionsSettings(budget=5.0, early_budget=0.001, cache="none")
    alone = read_positions(str(path), settings)
    told = []
    shared = read_positions(str(path), settings, workers=2, on_position=lambda done, total: told.append((done, total)))
    assert shared.games == alone.games and len(alone.positions) == 8
    assert shared.metadata == alone.metadata and alone.metadata["left_out_positions"] == ["445"]
    assert told == [(done, 9) for done in range(1, 10)]


def test_a_run_killed_midway_resumes_from_the_cache(tmp_path):
    """Each label goes into the cache as it is made: a run killed (SIGKILL, no clean-up) after its second position
    leaves those two labelled, and the next run on the same cache searches only the others."""
    import os
    import signal
    import subprocess
    import sys

    from tests.helpers import REPO

    path, rest = tmp_path / "set.txt", tmp_path / "rest.txt"
    path.write_text("\n".join(SEARCHED) + "\n")
    rest.write_text("\n".join(SEARCHED[2:]) + "\n")
    cache = str(tmp_path / "labels.sqlite")
    killed = subprocess.run([sys.executable, "-c", (
        "import os, signal, sys\n"
        "from connectx_toolkit.measuring.positions_file import PositionsSettings, read_positions\n"
        "def told(done, total):\n"
        "    if done == 2:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "read_positions(sys.argv[1], PositionsSettings(budget=5.0, cache=sys.argv[2]), on_position=told)\n"),
        str(path), cache], cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO), capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    whole = read_positions(str(path), PositionsSettings(budget=5.0, cache="none"))
    others = read_positions(str(rest), PositionsSettings(budget=5.0, cache="none"))
    resumed = read_positions(str(path), PositionsSettings(budget=5.0, cache=cache), workers=2)
    assert [p.scores for p in resumed.positions] == [p.scores for p in whole.positions]
    assert 0 < resumed.metadata["searched"] == others.metadata["searched"] < whole.metadata["searched"]
    again = read_positions(str(path), PositionsSettings(budget=5.0, cache=cache))
    assert again.metadata["searched"] == 0 and again.games == resumed.games  # every label from the cache now


def test_a_seeded_sample_of_the_files_games(tmp_path):
    import os
    import random

    from connectx_toolkit.measuring.pons import PONS_DIR

    with open(os.path.join(PONS_DIR, "Test_L3_R1")) as handle:  # End-Easy: labelled at once
        lines = handle.read().splitlines()[:10]
    path = tmp_path / "ten.txt"
    path.write_text("\n".join(lines) + "\n")
    settings = PositionsSettings(budget=5.0, cache="none")
    three = read_positions(str(path), settings, sample=3, seed=4)
    order = list(range(10))
    random.Random(4).shuffle(order)
    assert [game.id for game in three.games] == sorted(index + 1 for index in order[:3])  # line numbers, in order
    assert three.metadata["sample"] == {"size": 3, "of": 10, "seed": 4} and three.metadata["file_positions"] == 3
    assert read_positions(str(path), settings, sample=3, seed=4).games == three.games  # the same seed, the same
    five = read_positions(str(path), settings, sample=5, seed=4)
    assert {g.id for g in three.games} < {g.id for g in five.games}  # a larger sample holds the smaller one
    assert {g.id for g in read_positions(str(path), settings, sample=3, seed=5).games} != {g.id for g in three.games}
    whole = read_positions(str(path), settings, sample=10, seed=4)
    assert whole.metadata["sample"] is None and len(whole.games) == 10  # a sample of the whole file is the file


def test_the_score_a_line_gives_is_checked_against_the_label(tmp_path):
    wrong = SEARCHED[0].split()[0] + " 3"  # its score is 12
    path = tmp_path / "scored.txt"
    # LATE gives no score: nothing to check; 445 is left out (its early budget): no label to check
    path.write_text("\n".join([*SEARCHED[:2], wrong, LATE, "445 -2"]) + "\n")
    metadata = read_positions(str(path), PositionsSettings(budget=5.0, early_budget=0.001, cache="none")).metadata
    assert metadata["scores_checked"] == 3 and metadata["score_mismatches"] == [3] and metadata["left_out"] == 1
