"""Notebooks: ``NOTEBOOK.ipynb:FUNCTION`` builds and evaluates the function and what it uses, never the
notebook's top-level work (shell lines, magics, ``env.run``, ``evaluate``, ``render``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.building import build_text
from connectx_toolkit.building.notebook import python_of

ROOT = builder.ROOT

CELLS = [
    "!pip install kaggle-environments --quiet\n%matplotlib inline",
    "import numpy as np\nfrom kaggle_environments import make, evaluate\nimport random",
    "ROWS = 6\nWEIGHTS = [1, 2, 3, 4, 3, 2, 1]\nenv = make('connectx', debug=True)",
    "def score(column, board, config):\n    return WEIGHTS[column % len(WEIGHTS)] * (board[column] == 0)\n",
    "def score(column, board, config):  # the notebook's last definition is the one that runs\n"
    "    return (WEIGHTS[column % len(WEIGHTS)] + 1) * (board[column] == 0)\n",
    "%%time\nclass Scorer:\n    scale = len(WEIGHTS)\n\n    def best(self, board, config):\n"
    "        return max(range(config.columns), key=lambda c: score(c, board, config))\n",
    "@np.vectorize\ndef unused(x):\n    return x\n",
    "def my_agent(obs, config):\n    !echo inside a function\n    board = obs.board\n"
    "    env = None  # a local: the notebook's env must not follow\n    return int(Scorer().best(board, config))\n",
    "env.run([my_agent, 'random'])\nenv.render(mode='ipython', width=500)",
    "%%bash\necho hello",
    "print(evaluate('connectx', [my_agent, 'random'], num_episodes=3))\nfor i in range(3):\n    env.run([my_agent, my_agent])",
    "%%writefile submission.py\nimport sys\nprint('written, not run')",
]


def notebook(folder: Path, cells: list[str], name: str = "connectx.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# My agent\n"]}]
            + [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                "source": [line + "\n" for line in cell.split("\n")]} for cell in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = folder / name
    path.write_text(json.dumps(data, indent=1))
    return path


def test_a_function_from_a_star_import_is_named_as_the_likely_source(tmp_path):
    path = notebook(tmp_path, ["import sys\nsys.path.insert(0, '../bot')\nfrom bot_v2 import *", "env.run([my_agent])"])
    with pytest.raises(Exception, match=r"defines no function my_agent \(its functions: and whatever `from bot_v2 "
                                        r"import \*` brings, which the build cannot see into"):
        build_text(f"{path}:my_agent")


def test_python_of_drops_shell_lines_and_magics_keeping_blocks_valid():
    assert python_of("!pip install x\nimport os") == "pass\nimport os"
    assert python_of("def f():\n    !ls\n    x = %env HOME\n    get_ipython().system('ls')\n") == \
        "def f():\n    pass\n    pass\n    pass"
    assert python_of("%%bash\necho hi") == ""
    assert python_of("%%time\nx = 1") == "\nx = 1"


def test_a_notebook_function_builds_with_what_it_uses_and_nothing_else(tmp_path, capsys):
    path = notebook(tmp_path, CELLS)
    out = tmp_path / "submission.py"
    assert builder.main([f"{path}:my_agent", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "  entry     my_agent (named by :FUNCTION)" in printed and "passed" in printed
    source = build_text(f"{path}:my_agent")[1][-1].source
    for kept in ("WEIGHTS = [1, 2, 3, 4, 3, 2, 1]", "(WEIGHTS[column % len(WEIGHTS)] + 1)", "class Scorer:",
                 "def my_agent(obs, config):"):
        assert kept in source
    for dropped in ("pip", "%%time", "%matplotlib", "env.run", "render", "evaluate", "make(", "import numpy", "ROWS", "unused",
                    "echo", "written, not run", "WEIGHTS[column % len(WEIGHTS)] * "):
        assert dropped not in source, dropped


def test_a_notebook_function_evaluates(tmp_path):
    from connectx_toolkit.evaluation.api import play_match

    path = notebook(tmp_path, CELLS)
    summary = play_match(f"{path}:my_agent", "random", games=2, workers=1)
    assert summary["games"] == 2 and summary["agents"][0]["errors"] == 0


@pytest.mark.parametrize(("kind", "message"), [
    ("unreadable", "cannot read notebook {nb}: "),
    ("no_function", "{nb} defines no function nothere (its functions: my_agent, score, unused)"),
    ("missing", "no file or folder {nb}"),
])
def test_bad_notebooks_are_one_line_exit_2_and_no_output(tmp_path, capsys, kind, message):
    path = notebook(tmp_path, CELLS)
    target = f"{path}:my_agent"
    if kind == "unreadable":
        path.write_text('{"cells": [')
    elif kind == "no_function":
        target = f"{path}:nothere"
    else:
        path.unlink()
    out = tmp_path / "submission.py"
    assert builder.main([target, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if ": note: " not in line]
    assert len(errors) == 1 and message.format(nb=path) in errors[0], err
    assert not out.exists()


def test_the_evaluator_says_the_same_for_a_bad_notebook(tmp_path):
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

    path = notebook(tmp_path, CELLS)
    with pytest.raises(AgentSpecError, match="defines no function nothere"):
        resolve_agent(f"{path}:nothere")
    path.write_text("not json")
    with pytest.raises(AgentSpecError, match="cannot read notebook"):
        resolve_agent(f"{path}:my_agent")
