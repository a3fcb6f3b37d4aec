"""The examples in the public API's docstrings run, as python-chess runs its own: each docstring of the package's
top (``connectx_toolkit``, ``connectx_toolkit.api``, ``connectx_toolkit.outcomes``) is a test of its own, run by
``doctest`` with ``...`` matching any text (a table's figures, a path) and runs of blanks matching each other. The
examples write only to temporary folders; all of them take about 5 s of one core (a build, small matches, a gate
that fails at its smoke check, a league of two, the analysis of two games, the empty board)."""

import doctest
import importlib

import pytest

import connectx_toolkit

MODULES = ("connectx_toolkit", "connectx_toolkit.api", "connectx_toolkit.outcomes")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def docstring_tests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = []
    for name in MODULES:
        found += [test for test in finder.find(importlib.import_module(name), name) if test.examples]
    return sorted(found, key=lambda test: test.name)


@pytest.mark.parametrize("test", docstring_tests(), ids=lambda test: test.name)
def test_the_docstring_examples_run(test, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # anything an example writes beside itself lands here
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE", raising=False)  # a local kernel, whatever runs the tests
    said: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=said.append, clear_globs=True)
    assert runner.failures == 0, "".join(said)


def test_every_public_function_shows_an_example():
    functions = [name for name in connectx_toolkit.__all__ if callable(getattr(connectx_toolkit, name))
                 and not isinstance(getattr(connectx_toolkit, name), type)]
    assert sorted(functions) == ["accuracy", "analyze", "build", "league", "open_board", "play_match", "run_gate"]
    tested = {test.name.rpartition(".")[2] for test in docstring_tests()}
    assert set(functions) <= tested
    assert all(">>> " in (getattr(connectx_toolkit, name).__doc__ or "") for name in functions)


def test_the_runner_reports_a_wrong_example():
    """The runner as the tests use it fails on an example whose output differs (a test of the test)."""
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda text: None)
    assert runner.failures == 1
