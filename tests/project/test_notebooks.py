"""Real notebooks (``tests/notebooks/*.ipynb``) executed as a user runs them: nbclient on an ipykernel of this
very interpreter, installed with the command docs/notebooks.md gives (``python -m ipykernel install ... --env
PATH ...``, here into a temporary prefix), in a folder of their own outside the project.

What they show: the API's results displayed as tables (HTML) over the ``--json`` object, a progress bar that
``progress=False`` turns off, the "full rights" note once per kernel, ``!connectx-evaluate`` printing a few
plain progress lines instead of a redrawn bar, on a (pretended) Kaggle kernel the board drawn in the cell, and
the toolkit at work in a folder holding an ``agents/``, ``board.py`` and ``evaluation.py`` of the user's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from tests.helpers import REPO

nbformat = pytest.importorskip("nbformat", reason="nbformat is a test dependency (requirements-dev.txt)")
nbclient = pytest.importorskip("nbclient", reason="nbclient is a test dependency (requirements-dev.txt)")
pytest.importorskip("ipykernel", reason="ipykernel is a test dependency (requirements-dev.txt)")

ROOT = REPO
NOTEBOOKS = os.path.join(ROOT, "tests", "notebooks")
KERNEL = "connectx-test"
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> str:
    """A kernel spec for this interpreter with its ``bin`` folder on ``PATH`` (the console scripts); the checkout
    is importable through the interpreter's editable install, after the notebook's own folder (no ``PYTHONPATH``:
    a kernel puts it ahead of the folder, and the toolkit's ``agents`` would hide the user's). Returns the folder
    to put on ``JUPYTER_PATH``."""
    prefix = tmp_path_factory.mktemp("jupyter")
    scripts = os.path.dirname(sys.executable)
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(prefix), "--name", KERNEL,
                    "--display-name", "ConnectX (.venv)", "--env", "PATH", scripts + os.pathsep + os.environ["PATH"]],
                   check=True, capture_output=True, text=True, timeout=120)
    return str(prefix / "share" / "jupyter")


@pytest.fixture
def run_notebook(kernels, tmp_path, monkeypatch):
    """Execute a notebook of tests/notebooks in an empty folder; returns it with every cell's outputs."""
    monkeypatch.setenv("JUPYTER_PATH", kernels)
    for name in ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "XDG_CACHE_HOME"):  # nothing of the user's touched
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE", raising=False)
    work = tmp_path / "work"
    work.mkdir()

    def run(name: str):
        notebook = nbformat.read(os.path.join(NOTEBOOKS, name), as_version=4)
        client = nbclient.NotebookClient(notebook, kernel_name=KERNEL, timeout=300, record_timing=True,
                                         resources={"metadata": {"path": str(work)}})
        client.execute()
        return notebook

    return run


def cell(notebook, number: int):
    """Code cell ``number`` (counting markdown cells too, as the ids do)."""
    found = notebook.cells[number]
    assert found.cell_type == "code"
    return found


def printed(found) -> str:
    """What the cell printed: one stream, however the kernel cut it into outputs (under load, a line may
    arrive in two)."""
    return "".join(texts(found, "stdout"))


def texts(found, kind: str) -> list[str]:
    """Every ``kind`` ("stdout", "stderr", or a MIME type) the cell output."""
    out = []
    for output in found.outputs:
        if output.output_type == "stream" and output.name == kind:
            out.append(output.text)
        elif output.output_type in ("execute_result", "display_data") and kind in output.data:
            data = output.data[kind]
            out.append(data if isinstance(data, str) else json.dumps(data))
    return out


def test_results_are_tables_and_progress_is_a_bar_until_turned_off(run_notebook):
    notebook = run_notebook("results_and_progress.ipynb")
    table = cell(notebook, 2)
    [page] = texts(table, "text/html")
    [plain] = texts(table, "text/plain")
    assert page.startswith('<div class="cx-report">') and "<table>" in page and "first_free" in page
    assert plain.startswith("4 games on 6x7, 4 in a row;") and "likelihood that first_free is stronger" in plain
    assert [output.output_type for output in table.outputs] == ["execute_result"]  # progress=False: nothing else
    assert printed(cell(notebook, 3)) == "dict True True\n"

    with_bar, without = cell(notebook, 4), cell(notebook, 5)
    bar = texts(with_bar, WIDGET) or [text for text in texts(with_bar, "stderr") if "game" in text]
    assert bar, with_bar.outputs  # tqdm.auto: a widget with ipywidgets, else its text bar on stderr
    assert texts(with_bar, "text/html")[-1].startswith('<div class="cx-report">')
    assert [output.output_type for output in without.outputs] == ["execute_result"]

    gate = cell(notebook, 7)
    [page] = texts(gate, "text/html")
    [plain] = texts(gate, "text/plain")
    assert '<span class="cx-fail">FAIL</span>' in page and "invalid move" in page
    assert plain.startswith("gate: numpy_bot.py against baseline greedy") and "\nFAIL\n  - smoke" in plain
    assert texts(cell(notebook, 8), "text/plain") == ["2"]  # both games lost by an invalid move
    notes = [text for found in notebook.cells if found.cell_type == "code" for text in texts(found, "stderr")
             if "full rights" in text]
    assert len(notes) == 1 and "numpy_bot.py lies outside this project" in notes[0] and "sandbox=True" in notes[0]
    assert "full rights" in "".join(texts(gate, "stderr"))  # said by the first call that ran the file


def test_a_shell_command_prints_a_few_plain_progress_lines(run_notebook):
    if not os.path.exists(os.path.join(os.path.dirname(sys.executable), "connectx-evaluate")) and \
            not shutil.which("connectx-evaluate"):
        pytest.skip("the console scripts are not installed (bash run.sh installs the checkout with pip -e .)")
    notebook = run_notebook("command_line.ipynb")
    shell = cell(notebook, 2)
    said = "".join(texts(shell, "stdout")).replace("\r\n", "\n")  # ! runs on a pseudo-terminal: \r\n line ends
    assert "\r" not in said, said  # no bar redrawn in place
    progress = re.findall(r"^\d+/16 games \(\d+%\), \d+ s; A scores", said, re.M)
    assert 1 <= len(progress) <= 4, said
    assert "16 games on 6x7, 4 in a row" in said and "results: run.jsonl" in said
    assert len(shell.outputs) <= len(progress) + 4, shell.outputs  # not one output per redraw (117 before)


def test_a_hosted_kernel_draws_the_board_in_the_cell(run_notebook):
    notebook = run_notebook("hosted_board.ipynb")
    assert printed(cell(notebook, 1)) == "env: KAGGLE_KERNEL_RUN_TYPE=Interactive\n"
    shown = cell(notebook, 3)
    [page] = texts(shown, "text/html")
    [plain] = texts(shown, "text/plain")
    assert plain.startswith("Live play needs a local kernel: this one runs on Kaggle's machines")
    assert 'class="cxb"' in page and "<iframe" not in page and "http://" not in page
    data = json.loads(re.search(r'<script type="application/json" data-role="data">(.*?)</script>', page, re.S).group(1))
    assert data["game"]["agents"] == ["greedy", "first_free"] and len(data["positions"]) == len(data["game"]["moves"]) + 1
    assert all(position["values"] for position in data["positions"][:-1])  # every position solved in advance


def test_a_cells_agent_is_judged_as_the_file_built_from_it_and_its_errors_name_the_cells(run_notebook):
    notebook = run_notebook("cell_agents.ipynb")
    assert texts(cell(notebook, 3), "text/plain") == ["4"]  # the agent ran in the notebook: calls is 4 there
    played = cell(notebook, 4)
    assert printed(played) == "errors 0\n"  # every game starts from the cell's calls = 0, as on Kaggle
    assert any("`calls` is 4 here, 0 in In [1]: the submission starts from 0" in text
               for text in texts(played, "stderr")), texts(played, "stderr")
    assert printed(cell(notebook, 5)) == "True False\n"  # build(fn) writes calls = 0
    message = printed(cell(notebook, 8))
    assert message.strip() == "In [7], line 3 in raising → In [6], line 2 in explode: ValueError: boom"


def test_the_toolkit_works_from_a_folder_with_modules_named_like_its_own(run_notebook):
    """The notebook's first cell writes the user's ``agents/``, ``analysis/``, ``tools/``, ``board.py`` and
    ``evaluation.py``; the toolkit, imported next, uses none of them, and they stay the user's."""
    notebook = run_notebook("user_named_folder.ipynb")
    assert printed(cell(notebook, 2)) == "user user user user user\n"  # the user's own, imported after ours
    assert printed(cell(notebook, 3)) == "agent 4 0\n"  # the user's agent, with its helper from its agents/
    assert printed(cell(notebook, 4)) == "1 True\n"  # the build gathered the user's agents package
    assert "".join(texts(cell(notebook, 5), "stdout")).split() == ['"errors":', "0", '"errors":', "0"]
