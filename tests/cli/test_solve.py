"""``connectx solve``: exact scores of move strings, a filter in the manner of Pons' solver (cli/solve.py)."""

from __future__ import annotations

import doctest
import io
import json
import re
import select
import signal
import subprocess
import sys

import pytest

from connectx_toolkit.analysis import positions, scores
from connectx_toolkit.cli import solve
from tests.helpers import drawn_game, shared_oracle

NO_CACHE = ["--analysis-cache", "none"]
# Quick to settle: on the opening book's lines (any ply), or late enough for the search to take milliseconds.
POSITIONS = ["", "4", "44", "4444", "4453", "43637565665332", "4444422272567425", "4442474433273137762",
             "444443437666633353767715", "446544351266364663211137747"]


def solved(*argv: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    status = solve.main([*NO_CACHE, *argv], out)
    return status, out.getvalue().splitlines()


def columns_of(moves: str) -> list[int]:
    return [int(char) - 1 for char in moves]


def test_the_empty_board_scores_each_column_as_pons_solver():
    assert solved("--all", "") == (0, [" -2 -1 0 1 0 -1 -2"])
    assert solved("") == (0, [" 1"])


def test_every_column_agrees_with_bitbully():
    status, lines = solved("--all", *POSITIONS)
    assert status == 0
    for moves, line in zip(POSITIONS, lines, strict=True):
        expected = shared_oracle().column_scores(columns_of(moves))
        assert line == f"{moves} " + " ".join("-" if s is None else str(s) for s in expected)


def test_a_position_scores_its_best_column_as_bitbully():
    status, lines = solved(*POSITIONS)
    assert status == 0
    assert lines == [f"{moves} {shared_oracle().score(columns_of(moves))}" for moves in POSITIONS]


def test_a_full_column_is_marked():
    status, lines = solved("--all", "444444")
    assert status == 0
    assert lines[0].split()[1:][3] == "-"
    assert lines == ["444444 " + " ".join("-" if s is None else str(s)
                                          for s in shared_oracle().column_scores(columns_of("444444")))]


def test_illegal_and_finished_lines_say_why_and_the_next_line_is_answered():
    text = "1212121\n44444447\n4a\n48\n12121212\n4453\n"
    out = io.StringIO()
    status = solve.run(solve.build_parser().parse_args(NO_CACHE), out, io.StringIO(text))
    assert status == solve.EXIT_UNANSWERED
    assert out.getvalue().splitlines() == [
        "1212121 error: the game is over: move 7 won it (four in a row)",
        "44444447 error: move 7 is column 4, which is full",
        "4a error: move 2 is 'a', not a column: columns are 1 to 7",
        "48 error: move 2 is '8', off the board: columns are 1 to 7",
        "12121212 error: move 8 comes after the game was won by move 7",
        "4453 -2",
    ]


def test_a_full_board_is_a_finished_game():
    drawn = positions.move_string(drawn_game())
    assert len(drawn) == 42
    assert solved(drawn) == (1, [f"{drawn} error: the game is over: the board is full (a draw)"])
    assert solved(drawn[:-1]) == (0, [f"{drawn[:-1]} 0"])


def test_json_lines_shape():
    status, lines = solved("--json", "--all", "4453", "44444447")
    assert status == 1
    answer, error = (json.loads(line) for line in lines)
    assert answer == {"position": "4453", "score": -2, "bounds": [-2, -2],
                      "scores": [-5, -5, -2, -3, -4, -2, -2],
                      "column_bounds": [[-5, -5], [-5, -5], [-2, -2], [-3, -3], [-4, -4], [-2, -2], [-2, -2]]}
    assert error == {"position": "44444447", "error": "move 7 is column 4, which is full"}
    status, lines = solved("--json", "4453")
    assert json.loads(lines[0]) == {"position": "4453", "score": -2, "bounds": [-2, -2]}


def test_a_budget_too_short_prints_the_proven_bounds():
    # Ply 2 off the book's lines: minutes of search; 0.1 s proves only what the outcome table says (a win).
    status, lines = solved("--budget", "0.1", "--json", "11")
    answer = json.loads(lines[0])
    assert status == solve.EXIT_UNANSWERED
    assert answer["score"] is None
    low, high = answer["bounds"]
    assert 0 < low <= shared_oracle().score(columns_of("11")) <= high
    status, lines = solved("--budget", "0.1", "11")
    assert re.fullmatch(rf"11 {low}\.\.{high}", lines[0])


def test_stdin_is_answered_line_by_line_as_it_comes():
    process = subprocess.Popen([sys.executable, "-m", "connectx_toolkit.cli.solve", *NO_CACHE], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    assert process.stdin is not None and process.stdout is not None
    try:
        for moves, expected in (("4453", "4453 -2"), ("4444", "4444 1"), ("1212121", None)):
            process.stdin.write(moves + "\n")
            process.stdin.flush()  # the next line is not written before this one's answer arrives
            ready, _, _ = select.select([process.stdout], [], [], 60)
            assert ready, f"no answer to {moves!r} while stdin stays open"
            line = process.stdout.readline().rstrip("\n")
            assert line == expected or (expected is None and line.startswith(f"{moves} error: "))
        process.stdin.close()
        assert process.wait(60) == solve.EXIT_UNANSWERED
        assert process.stderr is not None and process.stderr.read() == ""
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("argv, message", [
    (["--budget", "0"], "argument --budget: '0' must be > 0 and <= 3600"),
    (["--budget", "soon"], "argument --budget: 'soon' is not a number of seconds"),
    (["--rows", "7"], "argument --rows: '7': exact scores exist only for 6x7, four in a row"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_usage_is_one_line_and_exit_2(capsys, argv, message):
    out = io.StringIO()
    assert solve.main([*argv, "4453"], out) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"connectx solve: error: {message}")
    assert error.count("\n") == 1
    assert out.getvalue() == ""


def test_an_unusable_cache_is_bad_usage(capsys, tmp_path):
    not_a_database = tmp_path / "cache.sqlite"
    not_a_database.write_text("not SQLite\n")
    assert solve.main(["--analysis-cache", str(not_a_database), "4453"], io.StringIO()) == 2
    assert capsys.readouterr().err.startswith(f"connectx solve: error: analysis cache {str(not_a_database)!r} is not usable")


def test_a_cache_file_keeps_the_searched_scores(tmp_path):
    args = solve.build_parser().parse_args(["--analysis-cache", str(tmp_path / "solved.sqlite")])
    off_the_book = columns_of("4145627754477725")  # ply 16: searched in milliseconds
    found = []
    for _ in range(2):
        scorer = scores.PositionScorer(solve.settings_of(args))
        try:
            columns = scorer.solve(off_the_book, every_column=True).columns or ()
            found.append(([None if value is None else value.score for value in columns], scorer.searched))
        finally:
            scorer.close()
    (first, searched), (again, searched_again) = found
    assert first == again == shared_oracle().column_scores(off_the_book)
    assert searched > 0 and searched_again == 0


@pytest.mark.parametrize("module", [positions, scores, solve], ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_a_long_search_is_announced_and_ctrl_c_ends_it_at_once():
    process = subprocess.Popen([sys.executable, "-m", "connectx_toolkit.cli.solve", *NO_CACHE, "12"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None and process.stdout is not None
    try:
        ready, _, _ = select.select([process.stderr], [], [], 60)
        assert ready, "no note before a search of minutes"
        assert process.stderr.readline() == (
            "connectx solve: note: '12': searching 1 position off the opening book's lines from ply 2, with no time "
            "limit: this can take minutes (--budget SECONDS bounds it)\n")
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 130  # not the minutes the search would take
        assert process.stderr.read() == "connectx solve: interrupted\n"
        assert process.stdout.read() == ""
    finally:
        process.kill()
        process.wait()


def test_the_python_search_gives_the_same_scores():
    off_the_book = ["5427457425174221622", "746556137122376655662144451"]  # searched in a fraction of a second
    status, lines = solved("--no-compiled-solver", "--all", *off_the_book)
    assert status == 0
    for moves, line in zip(off_the_book, lines, strict=True):
        expected = shared_oracle().column_scores(columns_of(moves))
        assert line == f"{moves} " + " ".join("-" if s is None else str(s) for s in expected)


def _counting_workers(monkeypatch) -> list[int]:
    """The number of analysis workers started, as a one-item list the test reads after solving."""
    from connectx_toolkit.analysis.workers import SolverPool

    started = [0]
    spawn = SolverPool._spawn

    def counted(pool):
        started[0] += 1
        return spawn(pool)

    monkeypatch.setattr(SolverPool, "_spawn", counted)
    return started


def test_one_worker_searches_position_after_position(monkeypatch):
    """Starting a worker (a fork, a table of 75 MB, the compiled code's warm-up) cost more than a position's search
    from ply 16 on: the scorer keeps its one worker from a position to the next."""
    pytest.importorskip("numba")
    started = _counting_workers(monkeypatch)
    off_the_book = ["4145627754477725", "41456277544777251", "414562775447772513"]  # plies 16-18: searched
    status, lines = solved("--all", *off_the_book)
    assert status == 0 and started[0] == 1
    for moves, line in zip(off_the_book, lines, strict=True):
        expected = shared_oracle().column_scores(columns_of(moves))
        assert line == f"{moves} " + " ".join("-" if s is None else str(s) for s in expected)


def test_a_late_position_is_solved_at_once_in_this_process(monkeypatch):
    """From 22 stones on (every column: from 21), the compiled search takes milliseconds at most, less than a word
    with a worker: no worker is started, whatever the budget, and the scores are exact."""
    pytest.importorskip("numba")
    started = _counting_workers(monkeypatch)
    late = ["444443437666633353767715", "446544351266364663211137747", "414562775447772513672"]  # plies 24, 27, 21
    for budget in ([], ["--budget", "0.5"]):
        status, lines = solved(*budget, "--all", *late)
        assert status == 0
        for moves, line in zip(late, lines, strict=True):
            expected = shared_oracle().column_scores(columns_of(moves))
            assert line == f"{moves} " + " ".join("-" if s is None else str(s) for s in expected)
        status, lines = solved(*budget, *late[:2])
        assert status == 0 and lines == [f"{moves} {shared_oracle().score(columns_of(moves))}" for moves in late[:2]]
    assert started[0] == 0
