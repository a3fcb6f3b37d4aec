"""Advice that is safe to follow: ``pip install NAME`` only for a package of Kaggle's image.

A public agent imports ``opening_book``, a module of its own its author never published. Installing whatever
a stranger published under that name is not the fix: the module is missing beside the agent, and the message
says so, with where it was looked for.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from connectx_toolkit.building import InputError, build_text

BOOK_AGENT = """\
import numpy as np

from opening_book import BOOK


def agent(obs, config):
    key = "".join(map(str, obs.board))
    if key in BOOK:
        return BOOK[key]
    board = np.asarray(obs.board).reshape(config.rows, config.columns)
    return int(next(c for c in (3, 2, 4, 1, 5, 0, 6) if board[0, c] == 0))
"""


def test_a_missing_module_of_the_agents_own_is_never_pip_installed(tmp_path):
    folder = tmp_path / "book_bot"
    folder.mkdir()
    (folder / "main.py").write_text(BOOK_AGENT)
    with pytest.raises(InputError) as caught:
        build_text(str(folder))
    message = str(caught.value)
    assert "pip install" not in message
    assert message.startswith(f"{folder}/main.py:3: `from opening_book import BOOK` in module main: no module opening_book")
    assert message.endswith(f"the agent's own module is missing beside it (looked for opening_book.py in {folder}); "
                            "put it there, or give its folder with --path")


def test_a_package_of_kaggles_image_gets_its_install_command(tmp_path):
    if importlib.util.find_spec("lightgbm") is not None:
        pytest.skip("lightgbm is installed here")
    (tmp_path / "gbm_bot.py").write_text("import lightgbm\n\n\ndef agent(obs, config):\n    return 3\n")
    with pytest.raises(InputError) as caught:
        build_text(str(tmp_path / "gbm_bot.py"))
    assert str(caught.value).endswith(f"(a package of Kaggle's image: {sys.executable} -m pip install lightgbm, "
                                      "then --allow-import lightgbm)")


def test_the_pip_name_of_a_package_of_kaggles_image_is_its_published_name(tmp_path):
    if importlib.util.find_spec("sklearn") is not None:
        pytest.skip("scikit-learn is installed here")
    (tmp_path / "tree_bot.py").write_text("from sklearn.tree import DecisionTreeClassifier\n\n\n"
                                          "def agent(obs, config):\n    return 3\n")
    with pytest.raises(InputError) as caught:
        build_text(str(tmp_path / "tree_bot.py"))
    assert "-m pip install scikit-learn, then --allow-import sklearn" in str(caught.value)
