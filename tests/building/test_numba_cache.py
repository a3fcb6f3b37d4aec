"""numba's ``@njit(cache=True)`` in a built submission.

numba keeps what it compiles beside the module's file and refuses a function whose file does not exist
("cannot cache function ...: no locator available", numba/core/caching.py). A single file embeds its modules:
the ones that ask numba to cache are run from real files written at load into a private temporary folder. A
bundle's modules are real files already. Both are validated by Kaggle's loader and referee (their games
played), and neither writes a cache into the agent's own folder.
"""

from __future__ import annotations

import os
import shutil

import pytest

from connectx_toolkit.building import ValidationError, build, build_text
from connectx_toolkit.building.template import caches_compiled_code
from connectx_toolkit.building.sources import Module
from tests.helpers import FIXTURES

pytest.importorskip("numba")

NUMBA_BOT = os.path.join(FIXTURES, "entries", "numba_bot")


@pytest.fixture
def numba_bot(tmp_path):
    """The numba agent in a folder of its user's own (outside the repository)."""
    folder = tmp_path / "numba_bot"
    shutil.copytree(NUMBA_BOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.mark.parametrize("out", ["submission.py", "submission.tar.gz"])
def test_a_numba_agent_that_caches_builds_and_plays(numba_bot, tmp_path, out, request):
    if out.endswith(".tar.gz"):
        request.getfixturevalue("bubblewrap")  # a bundle is validated where only the sandbox unpacks it
    report = build(str(numba_bot), tmp_path / out, allow_imports=("numba",))
    assert report.validation["ok"], report.summary()
    games = report.validation.get("games") or []
    assert games and not any(game["failure"] for game in games), report.validation
    assert not (numba_bot / "__pycache__").exists()  # nothing written beside the user's sources
    assert not any("connectx-modules-" in note for note in report.notes)  # numba's own cache is no data read


def test_an_error_in_a_module_run_from_its_real_file_is_told_at_the_authors_file(numba_bot, tmp_path):
    (numba_bot / "search.py").write_text((numba_bot / "search.py").read_text() + "\n\ndef checked(column):\n"
                                         "    raise ValueError('no move for this board')\n")
    main = (numba_bot / "main.py").read_text()
    (numba_bot / "main.py").write_text(main.replace("import best_column", "import best_column, checked")
                                       .replace("return int(best_column(board, obs.mark))",
                                                "return checked(int(best_column(board, obs.mark)))"))
    line = (numba_bot / "search.py").read_text().splitlines().index("    raise ValueError('no move for this board')") + 1
    with pytest.raises(ValidationError) as caught:
        build(str(numba_bot), tmp_path / "submission.py", allow_imports=("numba",))
    assert f"search.py:{line} in checked: ValueError: no move for this board" in str(caught.value)


def test_only_modules_that_cache_get_real_files(numba_bot):
    text, modules, _ = build_text(str(numba_bot), allow_imports=("numba",))
    assert "_REAL_FILES = ('search',)" in text
    assert "_KEPT_IN_SYS_MODULES = ('search',)" in text  # main.py imports no numba: it leaves sys.modules
    assert [m.name for m in modules if caches_compiled_code(m)] == ["search"]
    assert not caches_compiled_code(Module("m", "m.py", False, "from numba import njit\n@njit(cache=False)\ndef f(): pass\n"))
    assert not caches_compiled_code(Module("m", "m.py", False, "import functools\nf = functools.lru_cache(cache=True)\n"))


def test_folders_of_ended_processes_are_swept_at_load(numba_bot, tmp_path, monkeypatch):
    """A killed agent process runs no atexit: the next file that loads removes what it left."""
    import subprocess
    import sys
    import tempfile

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    temporary = tmp_path / "tmp"
    left = temporary / f"connectx-modules-{int(ended.stdout)}-abc"
    alive = temporary / f"connectx-modules-{os.getppid()}-def"  # a live process's folder stays
    for folder in (left, alive):
        (folder / "__pycache__").mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    text, _, _ = build_text(str(numba_bot), allow_imports=("numba",))
    namespace: dict = {}
    exec(compile(text, str(tmp_path / "submission.py"), "exec"), namespace)
    assert not left.exists() and alive.exists()
    (own,) = [path for path in temporary.iterdir() if path.name.startswith(f"connectx-modules-{os.getpid()}-")]
    assert (own / "search.py").read_text() == (numba_bot / "search.py").read_text()


def test_a_numba_search_defined_inside_the_agent_function_builds_and_plays(tmp_path):
    """numba names a recursive function's call to itself after the module ``inspect.getmodule`` finds in
    sys.modules (numba/core/typeinfer.py), and the function itself after its ``__module__``: an embedded
    module absent from sys.modules made the two differ, so the recursive call was left unresolved and aborted
    ("numba jitted function aborted due to unresolved symbol"), cached or not."""
    folder = tmp_path / "closure_bot"
    folder.mkdir()
    shutil.copy(os.path.join(FIXTURES, "entries", "numba_closure_bot.py"), folder / "main.py")
    report = build(str(folder / "main.py"), tmp_path / "submission.py", allow_imports=("numba",))
    assert report.validation["ok"], report.summary()
    games = report.validation.get("games") or []
    assert games and not any(game["failure"] for game in games), report.validation
    assert not (folder / "__pycache__").exists()
