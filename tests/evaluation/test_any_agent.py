"""evaluate.py and evaluation.api take the same agents the builder does: folders, FILE:FUNCTION, dotted
modules, MODULE:FUNCTION, and from Python callables (notebook functions and closures)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.cli import evaluate
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
from connectx_toolkit.evaluation.api import play_match
from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable

EMPTY = Struct(board=[0] * 42, mark=1)
STANDARD = Struct(rows=6, columns=7, inarow=4)


def version(folder: Path, column: int) -> Path:
    """A multi-file bot whose helper module has the same name in every version."""
    folder.mkdir(parents=True)
    (folder / "main.py").write_text("import helper\n\ndef agent(obs, config):\n    return helper.column(obs, config)\n")
    (folder / "helper.py").write_text(textwrap.dedent(f"""
        def column(obs, config):
            open_columns = [c for c in range(config.columns) if obs.board[c] == 0]
            return {column} if {column} in open_columns else open_columns[0]
    """))
    return folder


def test_two_versions_of_a_folder_bot_keep_their_own_modules(tmp_path):
    v1, v2 = resolve_agent(str(version(tmp_path / "v1", 1))), resolve_agent(str(version(tmp_path / "v2", 5)) + "/")
    assert (v1.kind, v2.kind) == ("built", "built")
    assert (v1.load()(EMPTY, STANDARD), v2.load()(EMPTY, STANDARD), v1.load()(EMPTY, STANDARD)) == (1, 5, 1)


def test_file_function_module_function_and_dotted_modules_resolve(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("def act(obs):\n    return 4\n\ndef agent(obs, config):\n    return 0\n")
    picked = resolve_agent(f"{bot}:act")
    assert picked.kind == "built" and picked.name == f"{bot}:act"
    assert picked.load()(EMPTY, STANDARD) == 4  # a one-argument agent, called as Kaggle calls it
    assert resolve_agent(str(bot)).kind == "file"  # a plain .py stays Kaggle's own loading
    assert resolve_agent(str(bot)).load()(EMPTY, STANDARD) == 0
    dotted = resolve_agent("agents.greedy")
    assert (dotted.kind, dotted.target, dotted.function) == ("module", "agents.greedy", "agent")
    assert resolve_agent("greedy:agent").target == "connectx_toolkit.agents.greedy"  # a bare name: the toolkit's agent


@pytest.mark.parametrize(("spec", "message"), [
    ("greedy:nothere", "agent module connectx_toolkit.agents.greedy has no callable 'nothere'"),
    ("{d}/bot.py:nothere", "defines no top-level nothere"),
    ("{d}/empty", "holds neither main.py nor __init__.py"),
    ("{d}/missing", "agent file '{d}/missing' does not exist"),
    ("agents.nothing_here", "unknown agent 'agents.nothing_here'"),
])
def test_bad_agents_are_one_line_errors(tmp_path, spec, message):
    (tmp_path / "bot.py").write_text("def agent(obs, config):\n    return 3\n")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AgentSpecError) as caught:
        resolve_agent(spec.format(d=tmp_path))
    assert message.format(d=tmp_path) in str(caught.value) and "\n" not in str(caught.value)


def test_evaluate_plays_a_folder_against_a_file_function(tmp_path, capsys):
    version(tmp_path / "my_bot", 3)
    (tmp_path / "other.py").write_text("def act(obs, config):\n    return 6 - obs.board[::-1].index(0) % 7\n")
    results = tmp_path / "r.jsonl"
    code = evaluate.main([str(tmp_path / "my_bot"), f"{tmp_path}/other.py:act", "-n", "2", "--workers", "1", "--json",
                          "--no-progress", "--results", str(results)])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert [a["name"] for a in summary["agents"]] == [str(tmp_path / "my_bot"), f"{tmp_path}/other.py:act"]
    assert summary["games"] == 2 and summary["agents"][0]["errors"] == summary["agents"][1]["errors"] == 0


def test_play_match_takes_callables_and_returns_evaluates_json(tmp_path, capsys):
    calls = {"count": 0}

    def leftmost(obs, config):  # a closure over notebook state: it survives the fork into the workers
        calls["count"] += 1
        return [c for c in range(config.columns) if obs.board[c] == 0][0]

    result = play_match(leftmost, "greedy", games=2, workers=1, seed=3)
    assert evaluate.main(["greedy", "random", "-n", "2", "--workers", "1", "--json", "--no-progress", "--results",
                          str(tmp_path / "r.jsonl")]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert set(result) == set(cli) and set(result["agents"][0]) == set(cli["agents"][0])
    assert result["games"] == 2 and result["results"] is None
    assert [a["name"] for a in result["agents"]] == [leftmost.__qualname__, "greedy"]
    assert leftmost.__qualname__.endswith("<locals>.leftmost")
    assert result["agents"][0]["errors"] == 0 and result["agents"][0]["moves"] > 0
    assert calls["count"] == 0, "the games ran in worker processes, not here"


def test_ray_says_it_cannot_take_callables():
    with pytest.raises(BackendUnavailable, match="--backend ray cannot take callables"):
        play_match(lambda obs, config: 3, "random", games=2, backend="ray")


AGENT_THEN_CLASS = '''
import random


def agent(obs, config):
    return random.choice([c for c in range(config.columns) if obs.board[c] == 0])


class Stats:  # defined after agent: Kaggle's loader calls the file's last callable, this class
    games = 0
'''


def test_a_raw_file_is_played_as_kaggle_calls_it_its_last_callable(tmp_path, capsys):
    path = tmp_path / "agent_then_class.py"
    path.write_text(AGENT_THEN_CLASS)
    spec = resolve_agent(str(path))
    assert spec.kind == "file" and "Kaggle calls Stats, the last callable of agent_then_class.py, not agent" in spec.note
    assert f"pass {path}:agent to play agent" in spec.note
    results = tmp_path / "r.jsonl"
    code = evaluate.main([str(path), "random", "-n", "2", "--workers", "1", "--no-progress", "--json",
                          "--results", str(results)])
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert code == 0 and summary["agents"][0]["errors"] == 2  # as on Kaggle: every episode an error
    (message,) = summary["agents"][0]["error_messages"]
    assert "Stats() takes no arguments (calling Stats(observation, configuration) as the agent)" in message["message"]
    assert "note: Kaggle calls Stats" in captured.err
    # FILE:agent plays the function the user meant (the builder's choice, which it makes the last callable)
    code = evaluate.main([f"{path}:agent", "random", "-n", "2", "--workers", "1", "--no-progress", "--json",
                          "--results", str(tmp_path / "r2.jsonl")])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["agents"][0]["errors"] == 0 and summary["agents"][0]["wins"] + \
        summary["agents"][0]["losses"] + summary["agents"][0]["draws"] == 2


def test_a_file_whose_last_callable_is_agent_has_no_note(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("import random\n\nclass Memo:\n    pass\n\ndef agent(obs, config):\n    return 3\n")
    assert resolve_agent(str(path)).note == ""


def test_no_note_where_kaggles_last_callable_merely_calls_agent(tmp_path):
    path = tmp_path / "bot.py"
    path.write_text("def agent(obs, config):\n    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n\n\n"
                    "def connectx_bot(obs, config):\n    \"\"\"Kaggle's entry.\"\"\"\n    return agent(obs, config)\n")
    spec = resolve_agent(str(path))
    assert spec.kind == "file" and spec.note == ""
    from connectx_toolkit.building import build_text

    assert "agent" in build_text(str(path))[0]
