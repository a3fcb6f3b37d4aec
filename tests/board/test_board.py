"""The board without a browser: the game, the agent's seat and the referee's rulings, the session's buttons,
the token and Host checks, the exports read back, bad input (one line, exit 2) and Ctrl-C (exit 0)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from connectx_toolkit.cli import evaluate
from connectx_toolkit.agents.core import Config
from connectx_toolkit.analysis.games import read_games
from connectx_toolkit.board.app import create_app
from connectx_toolkit.board.game import BoardGame
from connectx_toolkit.board.server import load_game, split_game_argument
from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
from connectx_toolkit.board.session import BoardSession
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from tests.helpers import REPO

ROOT = REPO
AGENTS = os.path.join(ROOT, "tests", "fixtures", "eval_agents")
SAMPLE = os.path.join(ROOT, "tests", "data", "analysis_games.jsonl")


def wait_for(session: BoardSession, state: str, timeout: float = 30.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = session.state()
        if current["state"] == state:
            return current
        time.sleep(0.02)
    raise AssertionError(f"the board never reached {state!r}: {session.state()['message']}")


def make_session(agent: str, config: Config = Config(), **options) -> BoardSession:
    seat = AgentProcess(resolve_agent(agent))
    return BoardSession(config, seat, agent, **options)


def test_game_ends_with_its_winning_line_on_any_board():
    game = BoardGame(Config(5, 8, 3))
    for column in (0, 0, 1, 1, 2):
        assert game.ending() is None
        game.play(column)
    ending = game.ending()
    assert ending.winner == 0 and ending.line == ((4, 0), (4, 1), (4, 2))  # row 0 is the top row
    assert game.board()[4 * 8:4 * 8 + 3] == [1, 1, 1] and game.board()[3 * 8:3 * 8 + 2] == [2, 2]
    with pytest.raises(ValueError):
        game.play(3)
    diagonal = BoardGame(Config(4, 4, 4), [0, 1, 1, 2, 2, 3, 2, 3, 3, 0, 3])
    assert diagonal.ending().line == ((0, 3), (1, 2), (2, 1), (3, 0))
    full = BoardGame(Config(2, 2, 3), [0, 0, 1, 1])
    assert full.ending().winner is None and full.ending().reason == "the board is full"


def test_agent_plays_in_its_own_process_and_buttons_work():
    session = make_session(os.path.join(AGENTS, "leftmost.py"))
    try:
        session.move(3)
        state = wait_for(session, "human")
        assert state["moves"] == [3, 0]  # the agent answered in its own process
        assert session.seat.pid not in (None, os.getpid())
        assert state["clock"]["last_seconds"] is not None
        # Each snapshot is numbered in the order it was taken: the page drops a response older than what it shows.
        assert session.state()["serial"] > state["serial"]
        state = session.undo()
        assert state["moves"] == [] and state["state"] == "human"
        state = session.swap_seats()  # the agent now moves first, at once
        assert state["human_seat"] == 1
        state = wait_for(session, "human")
        assert state["moves"] == [0]
        with pytest.raises(ValueError):
            session.move(99)
        state = session.new_game()
        state = wait_for(session, "human")
        assert state["moves"] == [0] and state["human_seat"] == 1
    finally:
        session.close()


@pytest.mark.parametrize("agent, ruling", [
    ("raises.py", "error: raises.py failed: raises.py:5 in agent: RuntimeError: this agent always fails"),
    ("returns_99.py", "invalid: returns_99.py played 99, not a legal column"),
    ("numpy_int.py", "invalid: numpy_int.py played a int64, not a legal column"),
    ("returns_float.py", "invalid: returns_float.py played a float, not a legal column"),
    ("allocates.py", "error: allocates.py failed: allocates.py:7 in agent: MemoryError"),  # capped as --memory-mb caps it
])
def test_referee_rules_as_kaggle(agent, ruling):
    # a cap of 256 MB, not the default 2 GB: the hoarder's zeroed pages cost CPU up to the cap, then the same ruling
    seat = AgentProcess(resolve_agent(os.path.join(AGENTS, agent)), memory_mb=256)
    session = BoardSession(Config(), seat, agent)
    try:
        session.move(3)
        state = wait_for(session, "over")
        assert session.game.forfeit.reason == ruling
        assert state["ending"]["winner"] == 0 and state["moves"] == [3]
    finally:
        session.close()


def test_agent_that_overruns_kaggles_clock_is_killed_and_loses(tmp_path):
    session = BoardSession(Config(), AgentProcess(resolve_agent(os.path.join(AGENTS, "sleeps_forever.py"))), "sleeper",
                           act_timeout=0.2, overage=0.3)
    try:
        session.move(3)
        # it sleeps forever: a game over at all was killed at its deadline, not waited for (how soon after it a busy
        # machine lands the kill is no matter here; the wait's own limit only catches a hang)
        state = wait_for(session, "over", timeout=120)
        assert session.game.forfeit.reason.startswith("timeout:") and not session.seat.alive()
        assert state["clock"]["overage_left"] == 0.0
        exported = tmp_path / "timeout.jsonl"
        exported.write_text(session.export()["results"])
        assert read_games(str(exported))[0].outcomes == ("win", "timeout")
        session.new_game()  # a killed agent is started again for the next game
        session.move(3)
        assert wait_for(session, "over", timeout=120)["moves"] == [3]
    finally:
        session.close()


def test_other_boards_say_there_are_no_exact_values():
    session = make_session(os.path.join(AGENTS, "leftmost.py"), Config(5, 9, 5))
    try:
        state = session.state()
        assert len(state["board"]) == 45 and state["values"]["exact"] is False
        assert "No exact values on this board" in state["values"]["note"]
    finally:
        session.close()


def test_token_and_host_are_checked_on_every_request():
    session = make_session(os.path.join(AGENTS, "leftmost.py"))
    client = create_app(session, "secret").test_client()
    try:
        for path in ("/", "/api/state", "/static/board.js", "/static/missing.js"):
            assert client.get(path).status_code == 403
            assert client.get(path + "?token=wrong").status_code == 403
            assert client.get(path + "?token=secret", headers={"Host": "evil.example:80"}).status_code == 403
        assert client.get("/?token=secret").status_code == 200
        assert client.get("/?token=secret", headers={"Host": "localhost:5000"}).status_code == 200
        assert 'const TOKEN = "secret"' in client.get("/static/board.js?token=secret").text
        assert client.post("/api/move", json={"column": 3}).status_code == 403
        assert client.post("/api/move", json={"column": 3}, headers={"X-Board-Token": "secret"}).status_code == 200
        assert client.post("/api/agent", json={"path": "x.py"}, headers={"X-Board-Token": "secret"}).status_code == 404
    finally:
        session.close()


def test_exported_line_reads_back_as_a_results_file_and_a_game(tmp_path):
    game = load_game(f"{SAMPLE}:10")
    session = BoardSession(game.config, AgentProcess(resolve_agent(os.path.join(AGENTS, "leftmost.py"))), "leftmost",
                           loaded=game, source=SAMPLE)
    try:
        session.goto(len(game.moves))
        exported = session.export()
        assert exported["columns"] == "".join(str(c + 1) for c in game.moves)
        path = tmp_path / "exported.jsonl"
        path.write_text(exported["results"])
        again = read_games(str(path))  # what --analyze-file reads
        assert [g.moves for g in again] == [game.moves] and again[0].outcomes == game.outcomes
        assert again[0].opening_plies == game.opening_plies
        assert load_game(f"{path}:0").moves == game.moves  # what --board --game reads
        session.goto(12)
        session.play_on()  # mid-game: the unfinished line, played on
        session.move(0)
        line = session.export()
        assert line["columns"] == "".join(str(c + 1) for c in game.moves[:12]) + "1"
        path.write_text(line["results"])
        assert read_games(str(path))[0].moves[:13] == game.moves[:12] + (0,)
    finally:
        session.close()


def test_game_argument():
    assert split_game_argument("results/a.jsonl:7") == ("results/a.jsonl", 7)
    assert split_game_argument("c:/x.json") == ("c:/x.json", None)
    assert load_game(SAMPLE).game_id == 3 and load_game(f"{SAMPLE}:15").game_id == 15


def _run_board(argv, capsys):
    code = evaluate.main(["--board", "--no-browser", *argv])
    captured = capsys.readouterr()
    return code, captured.err.strip().splitlines(), captured.out


@pytest.mark.parametrize("argv, says", [
    (["no_such_agent"], "unknown agent 'no_such_agent'"),
    (["greedy", "--game", "missing.jsonl"], "--game: cannot read 'missing.jsonl'"),
    (["greedy", "--game", f"{SAMPLE}:4"], "has no game 4 (its games: 3, 10, 15)"),
    (["greedy", "--game", __file__], "test_board.py:1: corrupt line (not JSON)"),
    (["greedy", "random"], "--board plays one agent"),
    (["greedy", "--league", "a", "b"], "unrecognized arguments: --league"),  # another job's flag: not the board's
])
def test_bad_input_is_one_line_and_exit_2(argv, says, capsys):
    code, lines, out = _run_board(argv, capsys)
    assert code == 2 and len(lines) == 1 and says in lines[0] and out == ""


def test_board_flags_without_board_are_refused(capsys):
    """A flag of the board is no option of a match (nor of `connectx match`)."""
    assert evaluate.main(["greedy", "random", "--game", SAMPLE]) == 2
    assert capsys.readouterr().err.strip() == f"evaluate.py: error: unrecognized arguments: --game {SAMPLE}"


def test_port_in_use_is_one_line_and_exit_2(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, lines, out = _run_board(["greedy", "--port", str(port), "--analysis-cache", "none"], capsys)
    assert code == 2 and lines == [f"evaluate.py: error: cannot serve on 127.0.0.1:{port}: the port is in use"]


def test_first_line_is_the_address_and_ctrl_c_exits_0(tmp_path):
    environment = dict(os.environ, PYTHONPATH=ROOT)
    process = subprocess.Popen([sys.executable, os.path.join(ROOT, "evaluate.py"), "--board", "greedy", "--no-browser",
                                "--analysis-cache", str(tmp_path / "cache.sqlite")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        first = process.stdout.readline()
        assert first.startswith("board: http://127.0.0.1:") and "/?token=" in first
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0
        said = process.stderr.read()
        assert "Traceback" not in said and said.strip().splitlines()[-1] == "board: stopped"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_notebook_board_serves_the_page_and_shows_it_in_an_iframe():
    import urllib.request

    from connectx_toolkit import open_board as board

    def my_agent(obs, config):
        return [c for c in range(config.columns) if obs.board[c] == 0][-1]

    served = board(my_agent, rows=5, columns=5, inarow=4)
    try:
        assert served.url.startswith("http://127.0.0.1:") and f'src="{served.url}"' in served._repr_html_()
        with urllib.request.urlopen(served.url, timeout=10) as response:
            assert response.status == 200 and b'id="board"' in response.read()
        served.session.move(0)
        assert wait_for(served.session, "human")["moves"] == [0, 4]  # the notebook's own function answered
    finally:
        served.close()
    with pytest.raises(ValueError, match="unknown agent"):
        board("no_such_agent")


def test_sandboxed_seat_plays_without_seeing_the_users_files(tmp_path):
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's own file")
    agent = tmp_path / "looks_around.py"
    agent.write_text(f"import os\n\n\ndef agent(obs, config):\n    return 1 if os.path.exists({str(secret)!r}) else 0\n")
    for sandboxed, column in ((False, 1), (True, 0)):
        seat = AgentProcess(resolve_agent(str(agent), sandbox=sandboxed), sandbox=sandboxed)
        try:
            seat.new_game()
            move = seat.act({"board": [0] * 42, "mark": 1, "step": 0, "remainingOverageTime": 60.0},
                            {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2.0}, 30.0)
            assert (move.action, type(move.action), move.error) == (column, int, None)
        finally:
            seat.close()


def test_the_agent_sees_the_configuration_the_evaluator_sends(tmp_path):
    """One configuration for the board and the referees: Kaggle's, with ``timeout`` equal to ``actTimeout``."""
    from connectx_toolkit.evaluation.referees.played import kaggle_configuration

    agent = tmp_path / "checks_config.py"
    expected = kaggle_configuration(Config().as_dict(), 1.5)
    expected["__raw_path__"] = str(agent)  # what Kaggle's file loader adds, the evaluator's agent host too
    agent.write_text(f"def agent(obs, config):\n    assert dict(config) == {expected!r}, dict(config)\n    return 0\n")
    session = make_session(str(agent), act_timeout=1.5)
    try:
        session.move(3)
        state = wait_for(session, "human")
        assert state["moves"] == [3, 0], state["message"]
    finally:
        session.close()


def test_an_answer_later_than_the_bank_is_a_timeout_even_if_it_came():
    """Kaggle's rule: TIMEOUT when the move's time over the act timeout exceeds the bank, even when the answer
    arrived in the slack before the agent's process would have been killed."""
    from connectx_toolkit.evaluation.seats.agent_move import AgentMove

    session = make_session(os.path.join(AGENTS, "leftmost.py"), act_timeout=1.0)
    try:
        session.bank.left = 0.5
        session._apply(AgentMove(3, 1.6))
        assert session.game.forfeit.reason.startswith("timeout:") and session.game.moves == []
        session.game.forfeit, session.bank.left = None, 0.5
        session.game.play(0)  # the human's move, then the agent's, just within the bank
        session._apply(AgentMove(3, 1.4))
        assert session.game.forfeit is None and session.game.moves == [0, 3]
        assert abs(session.bank.left - 0.1) < 1e-9
    finally:
        session.close()
