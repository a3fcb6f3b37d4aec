"""A ``%%writefile`` notebook builds to what it writes: the cell's text is the file, its other cells (a read of
/kaggle/input, ``!pip``, ``env.run``) no part of the agent; several written files form the agent's folder (its
``.py`` import each other, its data files go into a bundle). ``evaluate`` and the gate take it the same way.
Also: the gate's risk line of a bundle has its size and load time, and evaluate names a notebook's load error
by its cell as the builder does."""

from __future__ import annotations

import json
import os
import tarfile
from pathlib import Path

import pytest

from connectx_toolkit.building import BuildError, build, build_text
from connectx_toolkit.building.notebook import written_files
from connectx_toolkit.evaluation import gate
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

# The shape of the public notebooks: the agent written to main.py, the notebook's own copy of its weights read
# from /kaggle/input (a cell the written file never runs), a !pip cell and env.run.
MAIN = """\
import random

WEIGHTS = [1, 2, 3, 4, 3, 2, 1]


def score(column):
    return WEIGHTS[column]


def my_agent7(obs, config):
    free = [c for c in range(config.columns) if obs.board[c] == 0]
    return max(free, key=lambda c: (score(c), random.random()))
"""
PUBLIC = [
    "!pip install -q kaggle-environments",
    "import json\nfrom kaggle_environments import make, evaluate",
    "with open('/kaggle/input/connectx-weights/weights.json') as f:\n    WEIGHTS = json.load(f)",
    "%%writefile main.py\n" + MAIN.rstrip("\n"),  # as a notebook keeps it: no last newline; IPython adds one
    "env = make('connectx', debug=True)\nenv.run([my_agent7, 'random'])\nenv.render(mode='ipython')",
]

# A project: main.py imports the module it writes and reads the data file it writes, where Kaggle unpacks a
# bundle.
PROJECT_MAIN = """\
import json
import sys

sys.path.append("/kaggle_simulations/agent")
from tactics import first_open  # noqa: E402

with open("/kaggle_simulations/agent/weights.json") as handle:
    ORDER = json.load(handle)


def agent(obs, config):
    return first_open(obs.board, ORDER)
"""
PROJECT = [
    "!pip install -q kaggle-environments",
    "import json\nwith open('/kaggle/input/connectx-weights/weights.json') as f:\n    ORDER = json.load(f)",
    "%%writefile weights.json\n[3, 2, 4, 1, 5, 0, 6]",
    "%%writefile tactics.py\ndef first_open(board, order):\n    return next(c for c in order if board[c] == 0)\n",
    "%%writefile main.py\n" + PROJECT_MAIN,
    "from kaggle_environments import make\nenv = make('connectx')\nenv.run(['main.py', 'random'])",
]


def notebook(folder: Path, cells: list[str], name: str = "nb.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": cell.splitlines(keepends=True)} for cell in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = folder / name
    path.write_text(json.dumps(data, indent=1))
    return path


def test_a_writefile_notebook_builds_to_exactly_the_written_file(tmp_path, bubblewrap):
    path = notebook(tmp_path / "kaggle", PUBLIC)
    for target in (f"{path}:my_agent7", str(path), f"{path}:main.py", f"{path}:main.py:my_agent7"):
        text, modules, _ = build_text(target)
        assert [m.name for m in modules] == ["main"], target
        assert modules[-1].source == MAIN, target  # the cell's text, exactly (the magic line gone)
        assert "/kaggle/input" not in text and "env.run" not in text and "pip" not in text, target
    report = build(f"{path}:my_agent7", tmp_path / "submission.py")
    assert report.validation["ok"] and report.function == "my_agent7"
    assert "main.py as" in report.reason and "cell 4" in report.reason
    out = tmp_path / "submission.tar.gz"
    build(str(path), out)
    with tarfile.open(out) as archive:
        assert archive.getnames() == ["main.py"]
        assert archive.extractfile("main.py").read().decode() == MAIN  # the agent's own main.py, as written


def test_evaluate_and_the_gate_take_the_written_file(tmp_path):
    from connectx_toolkit.evaluation.api import play_match

    path = notebook(tmp_path / "kaggle", PUBLIC)
    spec = resolve_agent(f"{path}:my_agent7")
    assert spec.kind == "built"
    with open(spec.target, encoding="utf-8") as handle:
        played = handle.read()
    assert played == build_text(f"{path}:my_agent7")[0]  # what is played is what the build writes
    summary = play_match(spec, "random", games=2, workers=1, progress=False)
    assert summary["agents"][0]["errors"] == 0 and summary["agents"][0]["invalid"] == 0, summary
    context, load = gate.prepare(gate.GateSettings(candidate=str(path), baseline="random"))
    assert load.passed and context is not None and context.candidate.kind == "built"
    assert context.size_bytes == os.path.getsize(context.candidate.target)  # the built file, not the notebook


def test_written_files_are_what_ipython_writes(tmp_path):
    interactive = pytest.importorskip("IPython.core.interactiveshell")
    cells = ["\n  \n%%writefile main.py\nx = 1\n   \n\tdef f():\n        return 2",  # blank lines, a blank with spaces
             "%%writefile -a main.py\ny = 2",
             "%%writefile 'w d.txt'\n  indented\n\n  text  ",
             "%%writefile /kaggle/working/agent/helper.py\nHELP = 1",
             "print('not a file')",
             "%%writefile other.py\nfirst",
             "%%writefile other.py\nsecond, overwritten"]
    path = notebook(tmp_path, cells)
    ran = tmp_path / "ran"
    (ran / "agent").mkdir(parents=True)
    shell = interactive.InteractiveShell.instance()
    cwd = os.getcwd()
    os.chdir(ran)
    try:
        for cell in cells:
            shell.run_cell(cell.replace("/kaggle/working/", ""), store_history=False)
    finally:
        os.chdir(cwd)
    found = written_files(str(path))
    assert sorted(found) == ["agent/helper.py", "main.py", "other.py", "w d.txt"]
    for name, written in found.items():
        assert written.text == (ran / name).read_text(), name
    assert found["main.py"].cells == (1, 2)


def test_a_written_data_file_goes_into_the_bundle(tmp_path, bubblewrap):
    path = notebook(tmp_path / "kaggle", PROJECT)
    out = tmp_path / "submission.tar.gz"
    report = build(str(path), out)
    assert report.modules == ["tactics", "main"]
    with tarfile.open(out) as archive:
        assert sorted(archive.getnames()) == ["main.py", "tactics.py", "weights.json"]
        assert archive.extractfile("main.py").read().decode() == PROJECT_MAIN
        assert archive.extractfile("weights.json").read() == b"[3, 2, 4, 1, 5, 0, 6]\n"
    with pytest.raises(BuildError, match=r"main\.py:7: the agent reads /kaggle_simulations/agent/weights\.json, "
                                         r"where Kaggle unpacks a \.tar\.gz submission: build a bundle instead"):
        build(str(path), tmp_path / "submission.py")
    # evaluate and the gate run it as the bundle it builds to, with its size and load time
    context, load = gate.prepare(gate.GateSettings(candidate=str(path), baseline="random"))
    assert load.passed and context is not None and context.candidate.kind == "bundle"
    assert context.size_bytes == out.stat().st_size
    assert context.load_s is not None


def test_the_written_file_is_named_and_ambiguity_is_one_line(tmp_path, monkeypatch):
    path = notebook(tmp_path, ["%%writefile a.py\ndef agent(obs, config):\n    return 0",
                               "%%writefile b.py\ndef agent(obs, config):\n    return 1\n\ndef other(obs, config):\n"
                               "    return 2", "%%writefile w.json\n[]"])
    with pytest.raises(BuildError, match=r"writes a\.py, b\.py: name the agent's file, .*nb\.ipynb:a\.py$"):
        build_text(str(path))
    with pytest.raises(BuildError, match=r"agent is defined in a\.py, b\.py, which .* writes: name the file"):
        build_text(f"{path}:agent")
    assert build_text(f"{path}:other")[1][-1].path.endswith("b.py")  # the one written file defining it
    assert "return 1" in build_text(f"{path}:b.py")[0]
    with pytest.raises(BuildError, match=r"writes no file c\.py \(it writes a\.py, b\.py, w\.json\)"):
        build_text(f"{path}:c.py")
    with pytest.raises(BuildError, match=r"w\.json is a data file .* not Python"):
        build_text(f"{path}:w.json")
    monkeypatch.chdir(tmp_path)  # named from the notebook's folder, as a user types it
    assert "return 1" in build_text("nb.ipynb:b.py")[0]
    with pytest.raises(AgentSpecError, match=r"w\.json is a data file"):
        resolve_agent("nb.ipynb:w.json")


def test_a_writefile_cell_is_not_gathered_as_the_notebooks_code(tmp_path):
    # The notebook writes the cell, never runs it: a function of the cells takes nothing from it.
    path = notebook(tmp_path, ["%%writefile helper.txt\nSCALE = 1",
                               "SCALE = 2\n\ndef act(obs, config):\n    return SCALE"])
    text = build_text(f"{path}:act")[0]
    assert "SCALE = 2" in text and "SCALE = 1" not in text


def test_evaluate_names_a_notebooks_load_error_by_its_cell_as_the_builder_does(tmp_path):
    path = notebook(tmp_path, ["import random\nTABLE = {}\nSCALE = TABLE['x']", "def agent(obs, config):\n    return SCALE"])
    with pytest.raises(BuildError) as built:
        build(str(path), tmp_path / "submission.py")
    told = f"{path} cell 1, line 3 in <module>: KeyError: 'x'"
    assert told in str(built.value)
    with pytest.raises(AgentSpecError) as evaluated:
        resolve_agent(str(path))
    assert told in str(evaluated.value) and "nb.py" not in str(evaluated.value)


def test_the_gates_risk_line_of_a_bundle_has_its_size_and_load_time(tmp_path, bubblewrap):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text("import json\n\nwith open('/kaggle_simulations/agent/order.json') as f:\n"
                                    "    ORDER = json.load(f)\n\n\ndef agent(obs, config):\n"
                                    "    return next(c for c in ORDER if obs.board[c] == 0)\n")
    (folder / "order.json").write_text("[3, 2, 4, 1, 5, 0, 6]")
    archive = tmp_path / "bot.tar.gz"
    build(str(folder), archive)
    for candidate in (folder, archive):
        context, load = gate.prepare(gate.GateSettings(candidate=str(candidate), baseline="random"))
        assert load.passed and context is not None and context.candidate.kind == "bundle", load.detail
        assert context.size_bytes == archive.stat().st_size, candidate  # the .tar.gz that would be uploaded
        assert context.load_s is not None and 0 <= context.load_s < 5
        assert " in 0." in load.detail  # the load check's time, as for a single file
        line = gate._risk_line(gate.risk(context)[0])
        assert f"size {archive.stat().st_size:,} bytes" in line and "load 0." in line, line
