"""``evaluate.py`` says why an agent errored (results file, ``--json``, the table, replays) and names agents
briefly in its table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from connectx_toolkit.cli import evaluate as evaluate_cli
from connectx_toolkit.evaluation.reports.summary import short_names
from tests.helpers import REPO

ROOT = REPO  # the checkout: its evaluate.py, its package

RAISES_THIRD = '''
import json

calls = 0


def agent(obs, config):
    global calls
    calls += 1
    print(f"move {calls} thinking")
    if calls == 3:
        return json.loads("not json")
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
'''


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), *args, "--no-progress", "--workers", "1"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)


@pytest.fixture
def run_here(tmp_path, capfd, monkeypatch):
    """``run`` through evaluate.py's ``main`` in this process (it has imported Kaggle's environment once for every
    test: a subprocess paid ~0.7 CPU s), in ``tmp_path``; stdout and stderr read at the fd, where the forked
    workers write too. Exit codes that only a process has stay with ``run``'s subprocesses."""
    monkeypatch.chdir(tmp_path)

    def call(*args: str) -> SimpleNamespace:
        capfd.readouterr()
        code = evaluate_cli.main([*args, "--no-progress", "--workers", "1"])
        out, err = capfd.readouterr()
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)

    return call


def test_an_agent_raising_on_its_third_move_is_explained_everywhere(tmp_path, run_here):
    bot = tmp_path / "bots" / "raises_third.py"
    bot.parent.mkdir()
    bot.write_text(textwrap.dedent(RAISES_THIRD))
    results, replays = tmp_path / "r.jsonl", tmp_path / "replays"
    done = run_here(str(bot), "random", "-n", "2", "--json", "--results", str(results), "--replays", str(replays))
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    message = ("raises_third.py:12 in agent: JSONDecodeError: Expecting value: line 1 column 1 (char 0) "
               "(raised in json/decoder.py:355)")
    assert summary["agents"][0]["name"] == str(bot)  # --json keeps the full path
    assert summary["agents"][0]["error_messages"] == [{"message": message, "games": 2}]
    assert summary["agents"][1]["error_messages"] == []
    games = [g for g in map(json.loads, results.read_text().splitlines()) if g["kind"] == "game"]
    assert len(games) == 2
    for game in games:
        seat = 1 if game["swapped"] else 0
        assert game["error"][seat] == message and game["error"][1 - seat] is None
        logs = game["logs"][seat]
        assert logs == ["move 1 thinking", "move 2 thinking", "move 3 thinking"]  # Kaggle's traceback is the error
        assert game["logs"][1 - seat] == []
    pages = sorted(replays.iterdir())
    assert pages and all(message.split(" (raised")[0] in page.read_text() for page in pages)
    assert "move 3 thinking" in pages[0].read_text()
    table = run_here(str(bot), "random", "-n", "2", "--results", str(tmp_path / "t.jsonl")).stdout
    assert f"raises_third.py forfeited: {message} (2 games)" in table.splitlines()
    assert table.splitlines()[3].startswith("raises_third.py ")  # the short name, not the path


def test_short_names_keep_the_file_and_add_the_parent_only_on_a_clash():
    assert short_names(["/home/me/bots/v2/main.py", "/home/me/bots/v1/main.py"]) == ["v2/main.py", "v1/main.py"]
    assert short_names(["/tmp/a/bot.py:act", "greedy"]) == ["bot.py:act", "greedy"]
    assert short_names(["my_bot/", "negamax"]) == ["my_bot", "negamax"]
    assert short_names(["x/same/m.py", "y/same/m.py"]) == ["x/same/m.py", "y/same/m.py"]
    assert short_names(["agents.greedy", "random"]) == ["agents.greedy", "random"]


def test_a_record_keeps_the_last_20_lines_a_seat_printed_and_an_invalid_move_says_what_it_returned():
    import numpy

    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.scheduling.runner import play_game

    def chatty(obs, config):
        for line in range(8):
            print(f"step {obs.step} line {line}")
        return numpy.int64(3) if obs.step >= 6 else 3

    record = play_game(resolve_agent(chatty), resolve_agent("random"), opening=(0, 1), seed=1)
    assert record.statuses[0] == "INVALID"
    assert record.error == ["invalid move: returned np.int64(3) (int64)", None]
    assert len(record.logs[0]) == 20 and record.logs[0][-1] == "step 6 line 7" and record.logs[1] == []


def test_the_league_table_names_agents_briefly():
    from connectx_toolkit.evaluation.league import render_table

    names = ["/home/me/bots/v1/main.py", "/home/me/bots/v2/main.py"]
    row = {"elo": 0.0, "elo_ci": [-10.0, 10.0], "games": 2, "score": 0.5, "wins": 1, "draws": 0, "losses": 1,
           "invalid": 0, "errors": 0, "timeouts": 0, "mean_move_s": 0.0, "max_move_s": 0.0}
    report = {"ratings": [dict(row, name=name) for name in names],
              "cross_table": {"agents": names, "score": [[None, 0.5], [0.5, None]]},
              "config": {"rows": 6, "columns": 7, "inarow": 4}, "games": 2, "games_per_match": 2,
              "distinct_games": 2, "model": "m", "anchor": "a", "interval": "i", "prior": "p"}
    text = render_table(report)
    assert "v1/main.py" in text and "v2/main.py" in text and "/home/me" not in text


def test_a_missing_path_root_is_one_line_exit_2_and_no_results(tmp_path):
    done = run(tmp_path, "greedy", "random", "-n", "2", "--path", str(tmp_path / "nope"), "--results",
               str(tmp_path / "r.jsonl"))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"evaluate.py: error: --path {tmp_path / 'nope'}: no such folder\n"
    assert not (tmp_path / "r.jsonl").exists()


def test_a_file_failing_while_it_loads_names_its_own_line(tmp_path):
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

    (tmp_path / "loaderr.py").write_text('import json\n\nTABLE = json.loads("")\n\n\ndef agent(o, c):\n    return 3\n')
    try:
        resolve_agent(str(tmp_path / "loaderr.py"))
    except AgentSpecError as error:
        assert str(error).endswith("cannot be loaded as a Kaggle submission: loaderr.py:3 in <module>: JSONDecodeError: "
                                   "Expecting value: line 1 column 1 (char 0) (raised in json/decoder.py:355)")
    else:
        raise AssertionError("the file loaded")


def test_a_sandboxed_game_keeps_the_error_and_the_lines(tmp_path, run_here, bubblewrap):
    bot = tmp_path / "raises_third.py"
    bot.write_text(textwrap.dedent(RAISES_THIRD))
    done = run_here(str(bot), "random", "-n", "2", "--sandbox", "--json", "--results", str(tmp_path / "r.jsonl"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["agents"][0]["error_messages"][0]["games"] == 2
    game = [g for g in map(json.loads, (tmp_path / "r.jsonl").read_text().splitlines()) if g["kind"] == "game"][0]
    seat = 1 if game["swapped"] else 0
    assert game["error"][seat].startswith("raises_third.py:12 in agent: JSONDecodeError")
    assert game["logs"][seat] == ["move 1 thinking", "move 2 thinking", "move 3 thinking"]


def test_an_agents_error_text_and_output_are_capped_by_the_referee():
    """A hostile agent's process sends a huge error text and floods its output: the referee's record keeps
    one capped line and the last 20 lines of what it printed, never more than the log buffer holds."""
    from connectx_toolkit.evaluation.seats.agent_process import LOG_BYTES
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.seats.agent_process import LOG_LINES
    from connectx_toolkit.evaluation.scheduling.runner import play_game

    def hostile(obs, config):
        for _ in range(50):
            print("y" * 10_000)
        raise ValueError("x" * 10_000)

    record = play_game(resolve_agent(hostile), resolve_agent("random"), seed=1)
    assert record.statuses[0] == "ERROR" and record.error[1] is None
    assert "ValueError: xxx" in record.error[0] and len(record.error[0]) <= 1000
    assert 0 < len(record.logs[0]) <= LOG_LINES and sum(map(len, record.logs[0])) <= LOG_BYTES
    assert set(record.logs[0][-1]) == {"y"}


def test_the_front_doors_share_one_usage_error():
    """The gate, the league and the Python API refuse bad input with the one error evaluate.py turns into exit 2."""
    from connectx_toolkit.evaluation.api import GateSettings, LeagueSettings, run_gate, run_league
    from connectx_toolkit.evaluation.settings import UsageError

    with pytest.raises(UsageError, match="--league needs at least two agents"):
        run_league(LeagueSettings(["greedy"]))
    with pytest.raises(UsageError, match="--act-timeout must be > 0"):
        run_gate(GateSettings("greedy", "random", act_timeout=0))
