"""``--data SRC:NAME``: a file shipped under the name the agent reads (issue 54, point 5).

The shape (``tests/fixtures/building_shapes/dataset_notebook/``): a notebook copies its opening book from a Kaggle
dataset (``/kaggle/input/connectx-opening-book/book.pkl``) to ``opening_book.pkl`` in code, and the ``main.py`` it
writes with ``%%writefile`` reads ``/kaggle_simulations/agent/opening_book.pkl`` (``relative_book.ipynb``: reads
``opening_book.pkl`` relative to the working directory). Nothing is called ``opening_book.pkl`` here, so
``--data opening_book.pkl`` would name nothing: the advice, from ``build``, ``match`` and ``gate`` alike, is
``--data book.pkl:opening_book.pkl`` with where ``book.pkl`` comes from, and following it builds.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tarfile

import pytest

from connectx_toolkit.building import BuildError, InputError, build
from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.cli import main as connectx
from tests.helpers import FIXTURES

NOTEBOOKS = os.path.join(FIXTURES, "building_shapes", "dataset_notebook")
DATASET_FILE = "/kaggle/input/connectx-opening-book/book.pkl"
ADVICE = "--data book.pkl:opening_book.pkl"
WHY = (f"(opening_book.pkl is not here: the notebook makes it from {DATASET_FILE}, a file of a Kaggle dataset; "
       "download that file and give its path before the colon)")


def needs_bubblewrap() -> None:
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(f"a bundle runs unpacked at /kaggle_simulations/agent, which needs bubblewrap: {error}")


@pytest.fixture
def notebook(tmp_path, monkeypatch) -> str:
    """The notebook in a folder of its own, never run here (no opening_book.pkl beside it), the working directory."""
    folder = tmp_path / "nb"
    folder.mkdir()
    shutil.copy(os.path.join(NOTEBOOKS, "book_from_dataset.ipynb"), folder)
    shutil.copy(os.path.join(NOTEBOOKS, "relative_book.ipynb"), folder)
    monkeypatch.chdir(folder)
    return "book_from_dataset.ipynb"


@pytest.fixture
def downloaded(tmp_path) -> str:
    """The dataset's file, downloaded here under its own name."""
    path = tmp_path / "downloads" / "book.pkl"
    path.parent.mkdir()
    path.write_bytes(pickle.dumps({"0" * 42: 3}))
    return str(path)


def test_the_build_advises_src_name_with_the_dataset_file_and_following_it_builds(notebook, downloaded, tmp_path):
    needs_bubblewrap()
    with pytest.raises(BuildError) as caught:
        build(notebook, "submission.tar.gz")
    message = str(caught.value)
    assert f"`connectx build {notebook} -o submission.tar.gz {ADVICE}` {WHY}, then evaluate or gate" in message, message
    assert "--data opening_book.pkl" not in message  # names nothing here: following it gave exit 2
    report = build(notebook, "submission.tar.gz", data=(f"{downloaded}:opening_book.pkl",))  # the advice, SRC filled
    assert report.validation["ok"]
    with tarfile.open("submission.tar.gz") as archive:
        assert sorted(archive.getnames()) == ["main.py", "opening_book.pkl"]
        assert pickle.loads(archive.extractfile("opening_book.pkl").read()) == {"0" * 42: 3}


def test_the_flag_takes_src_name(notebook, downloaded, capsys):
    needs_bubblewrap()
    code = builder.main([notebook, "-o", "submission.tar.gz", "--data", f"{downloaded}:books/opening_book.pkl",
                         "--data", f"{downloaded}:opening_book.pkl"])
    assert code == 0, capsys.readouterr().err
    with tarfile.open("submission.tar.gz") as archive:
        assert sorted(archive.getnames()) == ["books/opening_book.pkl", "main.py", "opening_book.pkl"]


@pytest.mark.parametrize("given, message", [
    ("{src}:../opening_book.pkl", "--data {src}:../opening_book.pkl: NAME in SRC:NAME is the file's name beside main.py"),
    ("{src}:/abs.pkl", "--data {src}:/abs.pkl: NAME in SRC:NAME is the file's name beside main.py"),
    ("nowhere/book.pkl:opening_book.pkl", "--data nowhere/book.pkl:opening_book.pkl: no such file or folder "
                                          "(nowhere/book.pkl)"),
])
def test_a_bad_src_name_is_one_line_and_no_file(notebook, downloaded, capsys, given, message):
    code = builder.main([notebook, "-o", "submission.tar.gz", "--data", given.format(src=downloaded)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert message.format(src=downloaded) in err, err
    assert not os.path.exists("submission.tar.gz")


def test_a_single_file_is_told_the_same_data_option(notebook):
    with pytest.raises(InputError) as caught:
        build(notebook, "submission.py")
    assert str(caught.value).endswith(f"build a bundle instead (-o submission.tar.gz), with {ADVICE} {WHY}")


def test_a_book_the_notebook_wrote_here_is_shipped_by_its_path(notebook, downloaded):
    """Run here, the notebook left opening_book.pkl beside it: ``--data PATH`` names that file."""
    shutil.copy(downloaded, "opening_book.pkl")
    with pytest.raises(InputError) as caught:
        build(notebook, "submission.py")
    assert str(caught.value).endswith("build a bundle instead (-o submission.tar.gz), with --data opening_book.pkl")


def test_match_and_gate_give_the_same_advice_for_a_bundle_read(notebook):
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

    needs_bubblewrap()
    with pytest.raises(AgentSpecError) as caught:
        resolve_agent(notebook)
    assert str(caught.value).endswith(f"`connectx build {notebook} -o submission.tar.gz {ADVICE}` {WHY}, then "
                                      "evaluate or gate the built submission.tar.gz")


def test_match_gate_and_build_give_the_advice_for_a_relative_read(notebook, capfd):
    """The agent opens ``opening_book.pkl`` relative to the working directory: played as a single file, it died of
    a FileNotFoundError that said nothing more."""
    relative = "relative_book.ipynb"
    advice = ("opening_book.pkl is not in the bundle (a file the notebook writes in code, outside %%writefile, is "
              "not carried)")
    command = f"`connectx build {relative} -o submission.tar.gz {ADVICE}` {WHY}, then evaluate or gate"
    for argv in (["match", relative, "random", "-n", "2", "--no-progress"],
                 ["gate", relative, "--baseline", "random", "-n", "2"]):
        code = connectx.main(argv)
        out, err = capfd.readouterr()
        said = out + err
        assert code in (1, 2), said
        assert "main.py:4 in <module>: FileNotFoundError: [Errno 2] No such file or directory: 'opening_book.pkl'" in said
        assert (f"{advice}; the agent opens it relative to the working directory: open it at "
                "/kaggle_simulations/agent/opening_book.pkl, where Kaggle puts a bundle's files, and build the bundle "
                f"with {command}") in said, said
    with pytest.raises(InputError) as caught:
        build(relative, "submission.py")
    assert f"{advice}: build the bundle with {command}" in str(caught.value)


def test_match_and_gate_give_the_advice_when_the_book_is_read_at_the_first_move(notebook, capfd):
    """The public shape (a ``load_opening_book()`` called by the agent, not at load): the notebook loads, and the
    FileNotFoundError comes in its first move, a forfeit; the match's and the gate's forfeit lines gave it alone."""
    import json

    needs_bubblewrap()
    with open(notebook) as handle:
        cells = json.load(handle)
    for cell in cells["cells"]:
        source = "".join(cell["source"])
        if source.startswith("%%writefile main.py"):
            cell["source"] = source.replace(
                'with open(os.path.join(HERE, "opening_book.pkl"), "rb") as handle:\n    BOOK = pickle.load(handle)\n',
                'BOOK = None\n\n\ndef load_opening_book():\n    with open(os.path.join(HERE, "opening_book.pkl"), "rb") as '
                'handle:\n        return pickle.load(handle)\n').replace(
                "def agent(obs, config):\n", "def agent(obs, config):\n    global BOOK\n    BOOK = BOOK or load_opening_book()\n")
    with open("first_move.ipynb", "w") as handle:
        json.dump(cells, handle)
    command = f"`connectx build first_move.ipynb -o submission.tar.gz {ADVICE}` {WHY}, then evaluate or gate"
    for argv in (["match", "first_move.ipynb", "random", "-n", "2", "--no-progress"],
                 ["gate", "first_move.ipynb", "--baseline", "random", "-n", "2", "--no-progress"]):
        code = connectx.main(argv)
        out, err = capfd.readouterr()
        said = out + err
        assert code in (0, 1), said  # match reports forfeits (0); the gate FAILs (1)
        assert "in load_opening_book: FileNotFoundError" in said and command in said, said
