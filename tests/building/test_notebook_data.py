"""Notebooks that write data in code: ``%%writefile main.py`` writes the agent, and another cell writes its
opening book with ``pickle.dump``. The built bundle holds what ``%%writefile`` writes; ``--data FILE`` (the
``data=`` keyword of ``building.build``) adds the files a notebook writes otherwise, beside ``main.py``. An
agent that reads a missing ``/kaggle_simulations/agent/NAME`` is told how to add it.
"""

from __future__ import annotations

import json
import pickle
import tarfile
from pathlib import Path

import pytest

from connectx_toolkit.building import BuildError, InputError, build
from connectx_toolkit.cli import build_submission as builder

# main.py as the public notebook writes it: its book read where Kaggle unpacks a bundle, at line 21.
MAIN = """\
import os
import pickle
import random

ORDER = (3, 2, 4, 1, 5, 0, 6)
HERE = "/kaggle_simulations/agent"


def book_key(board):
    return "".join(str(cell) for cell in board)


def first_open(board):
    for column in ORDER:
        if board[column] == 0:
            return column
    return 0


with open(os.path.join(HERE, "opening_book.pkl"), "rb") as handle:
    BOOK = pickle.load(handle)


def agent(obs, config):
    move = BOOK.get(book_key(obs.board))
    if move is not None and obs.board[move] == 0:
        return move
    return first_open(obs.board) if random.random() < 2 else 0
"""
CELLS = [
    "!pip install -q kaggle-environments",
    "import pickle\nbook = {'0' * 42: 3}\nwith open('opening_book.pkl', 'wb') as f:\n    pickle.dump(book, f)",
    "%%writefile main.py\n" + MAIN.rstrip("\n"),
    "from kaggle_environments import make\nenv = make('connectx')\nenv.run(['main.py', 'random'])",
    "!tar czf submission.tar.gz main.py opening_book.pkl",
]


@pytest.fixture
def notebook_folder(tmp_path) -> Path:
    """The notebook, and the book its cell wrote when it ran (beside it, as Kaggle's working folder keeps it)."""
    folder = tmp_path / "book_notebook"
    folder.mkdir()
    data = {"cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                       "source": cell.splitlines(keepends=True)} for cell in CELLS],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (folder / "book.ipynb").write_text(json.dumps(data, indent=1))
    with open(folder / "opening_book.pkl", "wb") as handle:
        pickle.dump({"0" * 42: 3}, handle)
    return folder


def test_a_file_the_notebook_reads_but_does_not_write_with_writefile_is_told_how_to_add(notebook_folder, tmp_path, bubblewrap):
    with pytest.raises(BuildError) as caught:
        build(str(notebook_folder / "book.ipynb"), tmp_path / "submission.tar.gz")
    message = str(caught.value)
    book = notebook_folder / "opening_book.pkl"  # the book the notebook wrote beside it, by a path that works anywhere
    assert "main.py:20" in message and "/kaggle_simulations/agent/opening_book.pkl" in message
    assert f"--data {book}`" in message
    assert f"--data {book}`" in caught.value.report["reason"]  # what the command prints


def test_a_single_file_of_the_notebook_is_told_to_build_a_bundle_with_data(notebook_folder, tmp_path):
    with pytest.raises(InputError) as caught:
        build(str(notebook_folder / "book.ipynb"), tmp_path / "submission.py")
    assert str(caught.value).endswith(f"build a bundle instead (-o submission.tar.gz), with --data "
                                      f"{notebook_folder / 'opening_book.pkl'}")


def test_data_adds_the_file_beside_main_py(notebook_folder, tmp_path, bubblewrap):
    out = tmp_path / "submission.tar.gz"
    report = build(str(notebook_folder / "book.ipynb"), out, data=(str(notebook_folder / "opening_book.pkl"),))
    assert report.validation["ok"]
    with tarfile.open(out) as archive:
        assert sorted(archive.getnames()) == ["main.py", "opening_book.pkl"]
        assert pickle.loads(archive.extractfile("opening_book.pkl").read()) == {"0" * 42: 3}


def test_data_is_refused_for_a_single_file_and_a_missing_path(notebook_folder, tmp_path):
    with pytest.raises(InputError, match=r"--data .*bundle \(-o submission.tar.gz\)"):
        build(str(notebook_folder / "book.ipynb"), tmp_path / "submission.py",
              data=(str(notebook_folder / "opening_book.pkl"),))
    with pytest.raises(InputError, match=r"--data .*no_such.pkl: no such file or folder"):
        build(str(notebook_folder / "book.ipynb"), tmp_path / "submission.tar.gz",
              data=(str(notebook_folder / "no_such.pkl"),))
    assert not (tmp_path / "submission.tar.gz").exists() and not (tmp_path / "submission.py").exists()


def test_the_flag_adds_the_file(notebook_folder, tmp_path, capsys, bubblewrap):
    out = tmp_path / "submission.tar.gz"
    code = builder.main([str(notebook_folder / "book.ipynb"), "-o", str(out),
                         "--data", str(notebook_folder / "opening_book.pkl")])
    assert code == 0, capsys.readouterr().err
    with tarfile.open(out) as archive:
        assert "opening_book.pkl" in archive.getnames()


def test_a_notebook_is_told_to_build_its_bundle_with_data_and_evaluate_that(notebook_folder, tmp_path, bubblewrap):
    """The file beside the notebook is not carried, and ``match``/``gate`` take no ``--data``: the way out is the
    built bundle."""
    notebook = str(notebook_folder / "book.ipynb")
    with pytest.raises(BuildError) as caught:
        build(notebook, tmp_path / "submission.tar.gz")
    message = str(caught.value)
    assert f"`connectx build {notebook} -o submission.tar.gz --data {notebook_folder / 'opening_book.pkl'}`" in message
    assert "then evaluate or gate the built submission.tar.gz" in message
    assert "agent's folder" not in message


def test_a_folder_agent_is_told_to_put_the_file_in_its_folder(tmp_path, bubblewrap):
    folder = tmp_path / "book_bot"
    folder.mkdir()
    (folder / "main.py").write_text(MAIN)
    with pytest.raises(BuildError) as caught:
        build(str(folder), tmp_path / "submission.tar.gz")
    message = str(caught.value)
    assert "main.py:20" in message  # the open() of the book
    assert message.endswith("; opening_book.pkl is not in the bundle: put it in the agent's folder")
    assert "--data" not in message


def test_match_and_gate_tell_a_notebook_the_same_way_out(notebook_folder):
    """The evaluator bundles the notebook as the builder does, and takes no ``--data``: its refusal names the build
    that carries the file."""
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(f"a bundle runs unpacked at /kaggle_simulations/agent, which needs bubblewrap: {error}")
    notebook = str(notebook_folder / "book.ipynb")
    with pytest.raises(AgentSpecError) as caught:
        resolve_agent(notebook)
    message = str(caught.value)
    assert "main.py:20" in message
    assert message.endswith(f"`connectx build {notebook} -o submission.tar.gz --data "
                            f"{notebook_folder / 'opening_book.pkl'}`, then evaluate or gate the built submission.tar.gz")
