"""``connectx board --position MOVES``: the board opens at a position (the worst positions ``connectx accuracy``
names), the human to move there, every column's exact value shown; an illegal, finished or off-board move
string, or one given with ``--game``, is one line and exit 2."""

from __future__ import annotations

import time

import pytest

from connectx_toolkit.agents.core import Config
from connectx_toolkit.analysis.positions import parse_moves
from connectx_toolkit.analysis.scores import PositionScorer, SolveSettings
from connectx_toolkit.board.game import BoardGame
from connectx_toolkit.board.server import BoardError, BoardOptions, BoardServer
from connectx_toolkit.cli import main as connectx
from connectx_toolkit.errors import UsageError
from tests.board.test_board import SAMPLE, make_session, wait_for

# 16 stones, column 5 full, yellow to move: solved in milliseconds (the opening book does not hold it)
LATE = "2552354651517435"


@pytest.mark.parametrize("fields, says", [
    ({"position": "44444447"}, "--position '44444447': move 7 is column 4, which is full"),
    ({"position": "1212121"}, "--position '1212121': the game is over: move 7 won it (four in a row)"),
    ({"position": "4a"}, "--position '4a': move 2 is 'a', not a column: columns are 1 to 7"),
    ({"position": "48"}, "--position '48': move 2 is '8', off the board: columns are 1 to 7"),
    ({"position": 44}, "--position must be a move string such as 4453, got 44"),
    ({"position": "44", "game": SAMPLE}, "--position and --game: the board opens at one or the other, not both"),
    ({"position": "44", "config": Config(5, 6, 4)},
     "--position: move strings are positions of the 6x7 board, four in a row, not 5x6: drop --rows/--columns/--inarow"),
    ({"position": "44", "config": Config(6, 7, 3)},
     "--position: move strings are positions of the 6x7 board, four in a row, not 6x7: drop --rows/--columns/--inarow"),
])
def test_a_position_the_board_cannot_open_is_one_line(fields, says):
    with pytest.raises(BoardError) as raised:
        BoardOptions(**fields)
    assert isinstance(raised.value, UsageError) and str(raised.value) == says


def test_the_position_is_parsed_as_the_analysis_parses_it():
    assert BoardOptions(position=LATE).start_moves == parse_moves(LATE)
    assert BoardOptions(position=" 4453 ", config=Config()).start_moves == (3, 3, 4, 2)
    assert BoardOptions(position="").start_moves == () and BoardOptions().start_moves == ()


def test_session_opens_at_the_position_with_the_human_to_move_and_goes_back_to_it():
    start = parse_moves(LATE)
    session = make_session("greedy", start=start)
    try:
        state = session.state()
        assert state["moves"] == list(start) and state["mode"] == "play" and state["state"] == "human"
        assert state["human_seat"] == state["to_move"] == 0 and state["start"] == LATE
        assert state["message"] == f"Position {LATE}: your move (yellow), click a column."
        assert state["board"][4] != 0  # column 5 is full
        session.undo()  # nothing played since the position: undo keeps it
        assert session.state()["moves"] == list(start)
        session.move(0)
        after = wait_for(session, "human")  # the agent answered from the position
        assert after["moves"][:len(start) + 1] == list(start) + [0] and len(after["moves"]) == len(start) + 2
        assert session.undo()["moves"] == list(start)  # back to the position, not before it
        session.move(6)
        wait_for(session, "human")
        assert session.new_game()["moves"] == list(start)  # "New game" starts the position again
    finally:
        session.close()


def test_session_with_the_red_stones_to_move_gives_the_human_red():
    session = make_session("greedy", start=(3,))
    try:
        state = session.state()
        assert state["human_seat"] == state["to_move"] == 1 and state["state"] == "human"
        assert state["message"] == "Position 4: your move (red), click a column."
    finally:
        session.close()


def test_board_opened_at_a_position_shows_every_columns_exact_score():
    # a budget no loaded machine runs out of (the default's ran out here beside other runs: every column "unknown")
    server = BoardServer(BoardOptions(agent="greedy", position=LATE, analysis_cache="none", workers=1,
                                      analysis_budget=300.0))
    try:
        session = server.session
        expected = PositionScorer(SolveSettings(cache_path=None)).solve(parse_moves(LATE), every_column=True)
        deadline = time.monotonic() + 600  # only a hang's limit
        while time.monotonic() < deadline:
            values = session.state()["values"]
            if all(column["value"] != "pending" for column in values["columns"]):
                break
            time.sleep(0.05)
        shown = [column["score"] for column in values["columns"]]
        assert shown == [None if value is None else value.score for value in expected.columns]
        assert values["columns"][4]["value"] == "full" and "yellow to move" in values["note"]
    finally:
        server.close()


@pytest.mark.parametrize("argv, says", [
    (["--position", "44444447"], "connectx board: error: --position '44444447': move 7 is column 4, which is full"),
    (["--position", "4444", "--game", SAMPLE],
     "connectx board: error: --position and --game: the board opens at one or the other, not both"),
    (["--position", "4444", "--rows", "5"], "connectx board: error: --position: move strings are positions of the "
                                            "6x7 board, four in a row, not 5x7: drop --rows/--columns/--inarow"),
])
def test_bad_position_on_the_command_line_is_one_line_and_exit_2(argv, says, capsys):
    code = connectx.main(["board", "greedy", "--no-browser", *argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.err.strip().splitlines() == [says] and captured.out == ""


def test_notebook_board_opens_at_the_position_inline_with_its_values_solved_ahead():
    from connectx_toolkit import open_board

    board = open_board(position=LATE, inline=True, progress=False, analysis_budget=30.0)
    expected = PositionScorer(SolveSettings(cache_path=None)).solve(parse_moves(LATE), every_column=True)
    [position] = board.data["positions"]  # the position alone: nothing before it is solved
    assert position["message"] == f"Position {LATE}: yellow to move." and board.data["start"] == LATE
    assert position["board"] == BoardGame(Config(), list(parse_moves(LATE))).board()
    assert [value["score"] for value in position["values"]] == [None if v is None else v.score for v in expected.columns]
    assert repr(board).endswith(f"position {LATE}") and f"Position {LATE}: yellow to move." in board.html()
    with pytest.raises(BoardError, match="move 7 is column 4, which is full"):
        open_board(position="44444447", inline=True, progress=False)
