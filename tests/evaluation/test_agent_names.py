"""An agent given as ``.`` (or any path with a ``.``/``..`` part) is named by the folder it resolves to, in every
table, header and results file name: ``connectx match . random`` run from ``my_bot/`` reads ``my_bot``, never
``.``. The names come from one home, ``building.agent_names``."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from connectx_toolkit.building.agent_names import file_stem, resolved, shown_name
from connectx_toolkit.cli import main as connectx
from connectx_toolkit.evaluation.reports.summary import short_names
from tests.helpers import FIXTURES

FOLDER_BOT = os.path.join(FIXTURES, "building_shapes", "folder_bot")


@pytest.fixture
def inside_my_bot(tmp_path, monkeypatch) -> str:
    """A copy of the folder agent as ``my_bot/``, the working directory."""
    folder = tmp_path / "my_bot"
    shutil.copytree(FOLDER_BOT, folder)
    monkeypatch.chdir(folder)
    return str(folder)


def test_a_folder_given_as_dot_is_named_by_its_real_name(inside_my_bot):
    assert short_names([".", "random"]) == ["my_bot", "random"]
    assert short_names(["./", "../my_bot/main.py:agent"]) == ["my_bot", "main.py:agent"]
    assert shown_name(".") == "my_bot" and file_stem(".") == "my_bot" and file_stem("./main.py:agent") == "main"
    assert resolved(".") == inside_my_bot and resolved("greedy") == "greedy" and resolved("~/bots/x.py") == "~/bots/x.py"


def test_names_that_are_no_dot_paths_read_as_before():
    assert short_names(["/home/me/bots/v2/main.py", "/home/me/bots/v1/main.py"]) == ["v2/main.py", "v1/main.py"]
    assert short_names(["my_bot/", "agents.greedy"]) == ["my_bot", "agents.greedy"]
    assert file_stem("submissions/my agent.py") == "my_agent" and file_stem("nb.ipynb:act") == "nb"
    assert file_stem("agents.greedy") == "agents.greedy" and file_stem("bundle.tar.gz") == "bundle"


def test_match_names_the_folder_in_its_table_and_its_results_file(inside_my_bot, capfd):
    code = connectx.main(["match", ".", "random", "-n", "2", "--workers", "2", "--no-progress"])
    out, err = capfd.readouterr()
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines() if line.split() and line.split()[0] in ("my_bot", ".", "random")]
    assert rows == ["my_bot", "random"], out
    assert "likelihood that my_bot is stronger" in out
    (results,) = os.listdir("results")
    assert results.startswith("my_bot-vs-random-"), results
    with open(os.path.join("results", results)) as handle:
        assert json.loads(handle.readline())["agents"][0] == "."  # the argument as given, to resume with


def test_league_names_the_folder_in_its_table(inside_my_bot, capfd):
    code = connectx.main(["league", ".", "random", "-n", "2", "--workers", "2", "--no-progress"])
    out, err = capfd.readouterr()
    assert code == 0, err
    assert re.search(r"^\| \d \| my_bot +\|", out, re.M) and not re.search(r"^\| \d \| \. +\|", out, re.M), out


def test_the_gate_header_names_the_folder(inside_my_bot, capfd):
    code = connectx.main(["gate", ".", "--baseline", "random", "-n", "2"])
    out, err = capfd.readouterr()
    assert code == 0 and f"gate: {inside_my_bot} against baseline random" in out, out + err
