"""Entries wherever Kaggle's loader finds them, and entry notes that name what it calls.

Kaggle's loader (``kaggle_environments.agent.get_last_callable``) executes a file into a fresh dict, with
``__name__`` bound to ``"builtins"``, and calls the last callable in it: a ``def`` inside a top-level ``with``
(the stickytape bundle shape), ``try`` (its ``except`` clause too) or loop is a candidate entry, and nothing under
``if __name__ == "__main__":`` is. For each shape, the entry the build prints is what Kaggle's loader returns.
"""

from __future__ import annotations

import os

import pytest

from connectx_toolkit.building import InputError, agent_shape, build
from tests.helpers import FIXTURES

ENTRIES = os.path.join(FIXTURES, "entries")
# fixture -> what Kaggle's loader calls in it, as its dict names it
SHAPES = {
    "stickytape_bot.py": "act",  # defined inside `with __stickytape_temporary_dir() as ...:`, beside the
    # import of a module the file writes there
    "main_guard_bot.py": "agent",  # a class _Cfg defined under `if __name__ == "__main__":` after it
    "factory_bot.py": "agent",  # `agent = make()`, an object of class RulesAgent that make returns
    "loop_bot.py": "act",  # defined inside a top-level `for` loop, after a `try` block
    "fallback_bot.py": "opening_act",  # defined under `except ImportError:` (the book was never published)
}


def kaggle_last_callable(path: str) -> str:
    """The name of what ``get_last_callable`` returns for the file, executing it as Kaggle's loader does."""
    from kaggle_environments.agent import get_last_callable

    with open(path, encoding="utf-8") as handle:
        raw = handle.read()
    env: dict = {}
    exec(compile(raw, path, "exec"), env)  # the loader's own steps: a fresh dict, no __name__ of its own
    name = [key for key, value in env.items() if callable(value)][-1]
    returned = get_last_callable(raw, path=path)
    def described(value):  # each execution makes its own classes: compared by name
        return type(value).__name__, getattr(value, "__name__", None)

    assert described(returned) == described(env[name])
    return name


@pytest.mark.parametrize("fixture", sorted(SHAPES))
def test_the_printed_entry_is_what_kaggles_loader_returns(fixture, tmp_path):
    path = os.path.join(ENTRIES, fixture)
    assert kaggle_last_callable(path) == SHAPES[fixture]
    report = build(path, tmp_path / "submission.py")
    assert report.function == SHAPES[fixture], report.summary()
    # no read of data; the fallback's optional import is the one true note
    assert [note for note in report.notes if "is optional" not in note] == [], report.notes
    # a note naming another callable of Kaggle's loader would be wrong: it calls the entry itself
    assert "alone would call" not in report.reason, report.reason


@pytest.mark.parametrize("fixture", sorted(SHAPES))
def test_the_static_reading_names_kaggles_last_callable(fixture):
    """What the evaluator reads without building: Kaggle's last callable, blocks read as the loader runs them."""
    path = os.path.join(ENTRIES, fixture)
    assert agent_shape(path).last_callable == kaggle_last_callable(path)


@pytest.mark.parametrize("fixture", ["stickytape_bot.py", "loop_bot.py", "fallback_bot.py"])
def test_a_function_inside_a_block_can_be_named(fixture, tmp_path):
    report = build(f"{os.path.join(ENTRIES, fixture)}:{SHAPES[fixture]}", tmp_path / "submission.py")
    assert report.function == SHAPES[fixture] and report.validation["ok"]


def test_a_class_under_the_main_guard_cannot_be_named(tmp_path):
    """Kaggle's loader never executes it: no entry."""
    with pytest.raises(InputError, match="defines no top-level _Cfg"):
        build(f"{os.path.join(ENTRIES, 'main_guard_bot.py')}:_Cfg", tmp_path / "submission.py")


def test_a_bundle_of_the_stickytape_shape_calls_act(tmp_path, bubblewrap):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "main.py").write_text(open(os.path.join(ENTRIES, "stickytape_bot.py"), encoding="utf-8").read())
    report = build(str(folder), tmp_path / "submission.tar.gz")
    assert report.function == "act" and report.validation["ok"]
    # the module it writes and imports at load is its own, and removing its folder reads no data
    assert report.files == {"main.py": len((folder / "main.py").read_bytes())} and report.notes == []
