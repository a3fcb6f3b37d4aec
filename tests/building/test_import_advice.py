"""Import advice that says what runs at load, and only that (issue 54, point 4).

The shape: a module of a package of board-game agents (``tests/fixtures/building_shapes/relative_package/games/``)
imports its helper with a relative import at load, and its training code, which the agent never calls, imports
torch, pandas, scipy and matplotlib inside functions. Kaggle loads the built file without any of those: they are
a note, never "imports the agent cannot run without" nor a ``pip install`` line. The raw file fails on Kaggle
uploaded alone (``KeyError: "'__name__' not in globals"`` at its relative import, line 6), and the messages say
so; built as a bundle, it ships its package.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tarfile
import traceback

import pytest

from connectx_toolkit.building import BuildError, InputError, build, build_text
from connectx_toolkit.building.sources import display
from connectx_toolkit.cli import main as connectx
from tests.helpers import FIXTURES

PACKAGE = os.path.join(FIXTURES, "building_shapes", "relative_package", "games")
BOT = os.path.join(PACKAGE, "connectx_bot.py")
SHOWN = display(BOT)  # as messages name a file of the repository


def test_imports_inside_functions_it_never_calls_are_one_note_and_the_build_passes(tmp_path):
    report = build(BOT, tmp_path / "submission.py")
    assert report.validation["ok"]
    (note,) = [note for note in report.notes if "inside functions" in note]
    assert note.startswith("4 imports inside functions left out (one runs only when its function is called, not "
                           "when the file loads): "), note
    for line, statement, function in ((10, "import torch", "train"), (12, "import pandas as pd", "train"),
                                      (18, "import scipy.io", "export_weights"),
                                      (19, "import matplotlib.pyplot as plt", "export_weights")):
        assert f"{SHOWN}:{line}: `{statement}` in {function}() (" in note, note
    assert "pip install" not in note and "cannot run without" not in note
    assert report.modules == ["games", "games.board", "games.connectx_bot"]  # not games.nets, which needs torch
    assert "matplotlib" not in report.external  # imported only where the agent never goes


def test_only_an_import_that_runs_at_load_is_one_the_agent_cannot_run_without(tmp_path):
    package = tmp_path / "games"
    shutil.copytree(PACKAGE, package)
    bot = package / "connectx_bot.py"
    bot.write_text(bot.read_text().replace("import random\n", "import random\nimport chess_tables\n", 1))
    with pytest.raises(InputError) as caught:
        build_text(str(bot))
    message = str(caught.value)
    assert message.startswith(f"{bot}:5: `import chess_tables` in module games.connectx_bot: no module chess_tables")
    assert "torch" not in message and "pandas" not in message and "imports the agent cannot run without" not in message


def test_match_plays_it_as_the_builder_builds_it():
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

    spec = resolve_agent(BOT)  # refused before with "6 imports the agent cannot run without"
    assert spec.kind == "built"


def test_kaggles_loader_fails_the_file_alone_at_its_relative_import(tmp_path):
    """The fact the messages state, checked with kaggle_environments' own loader."""
    from kaggle_environments.agent import get_last_callable

    alone = tmp_path / "connectx_bot.py"
    shutil.copy(BOT, alone)
    with pytest.raises(Exception) as caught:
        get_last_callable(alone.read_text(), path=str(alone))
    cause = caught.value.__context__
    assert isinstance(cause, KeyError) and str(cause) == "\"'__name__' not in globals\""
    assert traceback.extract_tb(cause.__traceback__)[-1].lineno == 6


def test_the_build_says_the_file_cannot_be_uploaded_alone(tmp_path):
    out = tmp_path / "submission.py"
    report = build(BOT, out)
    (note,) = [note for note in report.notes if "uploaded alone" in note]
    assert note == (f"connectx_bot.py cannot be uploaded alone ({SHOWN}:6: `from .board import legal_columns` is a "
                    "relative import, which needs the package the file sits in; Kaggle runs a file uploaded alone "
                    "outside any package, and its loader fails there with KeyError: \"'__name__' not in globals\"): "
                    f"upload {out}, which carries its modules")


def test_the_gate_says_why_kaggle_fails_the_file_and_how_to_build_it(capfd):
    code = connectx.main(["gate", BOT, "--baseline", "random", "-n", "2"])
    out = capfd.readouterr().out
    assert code == 1
    assert (f"{SHOWN}:6: `from .board import legal_columns` is a relative import, which needs the package the file "
            "sits in; Kaggle runs a file uploaded alone outside any package, and its loader fails there with "
            "KeyError: \"'__name__' not in globals\"") in out, out
    assert f"upload what `connectx build {BOT} -o submission.py` writes, which inlines them" in out
    assert "cannot run without" not in out and "pip install" not in out


def test_built_as_a_bundle_it_ships_its_package(tmp_path):
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(f"a bundle is validated at /kaggle_simulations/agent, which needs bubblewrap: {error}")
    out = tmp_path / "submission.tar.gz"
    report = build(BOT, out)
    assert report.validation["ok"]
    with tarfile.open(out) as archive:
        assert sorted(archive.getnames()) == ["games/__init__.py", "games/board.py", "games/connectx_bot.py", "main.py"]


def test_a_function_the_agent_calls_fails_the_validation_at_its_line_with_the_way_to_have_it(tmp_path):
    if importlib.util.find_spec("catboost") is not None:
        pytest.skip("catboost is installed here")
    bot = tmp_path / "calls_it.py"
    bot.write_text("def score(board):\n    import catboost\n    return catboost\n\n\n"
                   "def agent(obs, config):\n    score(obs.board)\n    return 3\n")
    with pytest.raises(BuildError) as caught:
        build(str(bot), tmp_path / "submission.py")
    message = str(caught.value)
    assert caught.value.exit_code == 1
    assert "calls_it.py:2 in score: ModuleNotFoundError: No module named 'catboost'" in message, message
    assert message.endswith("; the agent called a function that imports it: "
                            f"{bot}:2: `import catboost` in module calls_it: no module catboost under the import roots "
                            f"({tmp_path}), nor installed here (a package of Kaggle's image: "
                            f"{__import__('sys').executable} -m pip install catboost, then --allow-import catboost)")
    assert not (tmp_path / "submission.py").exists()


def test_a_file_importing_its_sibling_is_said_to_need_it_and_a_plain_file_is_not(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "helper.py").write_text("def centre(config):\n    return config.columns // 2\n")
    (folder / "bot.py").write_text("from helper import centre\n\n\ndef agent(obs, config):\n"
                                   "    return next(c for c in range(config.columns) if obs.board[c] == 0)\n")
    (folder / "plain.py").write_text("def helper():\n    import helper\n    return helper\n\n\ndef agent(obs, config):\n"
                                     "    return next(c for c in range(config.columns) if obs.board[c] == 0)\n")
    out = tmp_path / "submission.py"
    notes = build(str(folder / "bot.py"), out).notes
    assert (f"bot.py cannot be uploaded alone ({folder}/bot.py:1: `from helper import centre` imports helper, a module "
            f"of its own, which is not beside a file uploaded alone): upload {out}, which carries its modules") in notes
    assert not [note for note in build(str(folder / "plain.py"), out).notes if "uploaded alone" in note]  # only at load
