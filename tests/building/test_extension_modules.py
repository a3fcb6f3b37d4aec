"""A compiled extension module beside the agent is the agent's own: shaped like a public bundle whose ``main.py``
does ``import connectx`` with ``connectx.so`` (a Rust extension) beside it. A bundle ships the module's file
beside ``main.py`` and imports it as Kaggle does; a single file cannot carry a binary module and is refused in
one line that says to build a bundle.

The extension is a minimal C module compiled once per session with the system compiler against this Python's
headers (skipped, saying why, where there is none).
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sysconfig
import tarfile
from pathlib import Path

import pytest

from connectx_toolkit.building import InputError, agent_shape, build

EXTENSION_C = r"""
#include <Python.h>

static PyObject *center(PyObject *self, PyObject *unused) { return PyLong_FromLong(3); }

static PyMethodDef methods[] = {{"center", center, METH_NOARGS, "The centre column."}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef definition = {PyModuleDef_HEAD_INIT, "fastcols", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fastcols(void) { return PyModule_Create(&definition); }
"""

MAIN = """\
import fastcols


def agent(obs, config):
    column = fastcols.center()
    if obs.board[column] == 0:
        return column
    return next(c for c in range(config.columns) if obs.board[c] == 0)
"""


@pytest.fixture(scope="session")
def compiled_extension(tmp_path_factory) -> Path:
    """``fastcols.so``, built from ``EXTENSION_C`` (a fraction of a second with gcc)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    include = sysconfig.get_paths()["include"]
    if compiler is None or not os.path.isfile(os.path.join(include, "Python.h")):
        pytest.skip("no C compiler or no Python.h to build a test extension module with")
    folder = tmp_path_factory.mktemp("extension")
    (folder / "fastcols.c").write_text(EXTENSION_C)
    out = folder / "fastcols.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O0", f"-I{include}", str(folder / "fastcols.c"), "-o", str(out)],
                   check=True, capture_output=True, timeout=60)
    assert ".so" in importlib.machinery.EXTENSION_SUFFIXES
    return out


@pytest.fixture
def agent_folder(tmp_path, compiled_extension) -> Path:
    folder = tmp_path / "rust_bot"
    folder.mkdir()
    (folder / "main.py").write_text(MAIN)
    shutil.copy(compiled_extension, folder / "fastcols.so")
    return folder


def test_a_bundle_ships_the_extension_beside_main_py_and_plays(agent_folder, tmp_path, compiled_extension, bubblewrap):
    out = tmp_path / "submission.tar.gz"
    report = build(str(agent_folder), out)
    assert report.validation["ok"], report.validation
    assert "fastcols" in report.modules
    with tarfile.open(out) as archive:
        assert sorted(archive.getnames()) == ["fastcols.so", "main.py"]
        assert archive.extractfile("fastcols.so").read() == compiled_extension.read_bytes()


def test_an_extension_in_a_package_on_a_path_ships_in_the_package(tmp_path, compiled_extension, bubblewrap):
    """The package lies outside the agent's folder (``--path``): only the module graph can bring its file."""
    library = tmp_path / "library"
    (library / "engine").mkdir(parents=True)
    (library / "engine" / "__init__.py").write_text("")
    shutil.copy(compiled_extension, library / "engine" / "fastcols.so")
    folder = tmp_path / "package_bot"
    folder.mkdir()
    (folder / "main.py").write_text(MAIN.replace("import fastcols", "from engine import fastcols"))
    out = tmp_path / "submission.tar.gz"
    report = build(str(folder), out, paths=(str(library),))
    assert report.validation["ok"], report.validation
    with tarfile.open(out) as archive:
        assert sorted(archive.getnames()) == ["engine/__init__.py", "engine/fastcols.so", "main.py"]


def test_a_single_file_is_refused_at_the_import_with_the_way_out(agent_folder, tmp_path):
    out = tmp_path / "submission.py"
    with pytest.raises(InputError) as caught:
        build(str(agent_folder), out)
    message = str(caught.value)
    assert message.startswith(f"{agent_folder / 'main.py'}:1: `import fastcols`: fastcols is a compiled extension module")
    assert "build a bundle (-o submission.tar.gz)" in message
    assert "missing" not in message and "\n" not in message
    assert not out.exists()


def test_the_evaluator_runs_it_as_a_bundle(agent_folder):
    shape = agent_shape(str(agent_folder))
    assert shape.modules[-1] == "main" and "fastcols" in shape.modules
    assert shape.reads_bundle_root  # runs only as a Kaggle bundle


def test_a_single_file_leaves_out_an_optional_extension_and_plays_the_fallback(tmp_path, compiled_extension):
    """Imported inside try/except ImportError, the module is optional: Kaggle runs the single file's fallback."""
    folder = tmp_path / "fallback_bot"
    folder.mkdir()
    shutil.copy(compiled_extension, folder / "fastcols.so")
    (folder / "main.py").write_text(MAIN.replace("import fastcols\n", (
        "try:\n    import fastcols\nexcept ImportError:\n    fastcols = None\n"
    )).replace("fastcols.center()", "fastcols.center() if fastcols else 3"))
    out = tmp_path / "submission.py"
    report = build(str(folder), out)
    assert report.validation["ok"], report.validation
    assert report.modules == ["main"]
    assert any("`import fastcols` is optional" in note and "compiled extension module" in note
               for note in report.notes), report.notes
