"""building.closure: a function object from a notebook becomes one module with everything it refers to.

The notebook is simulated the way IPython makes one: a ``__main__``-like module without ``__file__``,
each cell compiled under its own file name with its lines registered in ``linecache`` (so ``inspect``
finds functions, but not classes, by their module).
"""

from __future__ import annotations

import linecache
import sys
import textwrap
import types

import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.building import BuildError, build, build_text
from connectx_toolkit.building.closure import gather

CELLS = {
    "<ipython-input-2-base>": """
        import math
        import numpy as np
        from math import floor as round_down

        LIMITS = {"depth": 2, "names": ("a", "b"), "blob": b"\\x00\\x01", "tags": {3, 1, 2}}
        WEIGHTS = np.array([1, 2, 4, 8, 4, 2, 1])
        calls = 0
        client = object()  # a notebook object the agent never touches

        def memo(function):
            cache = {}
            def wrapper(*args):
                if args not in cache:
                    cache[args] = function(*args)
                return cache[args]
            return wrapper

        class Base:
            scale = 10

            def value(self, column):
                return self.scale - abs(column - 3)
    """,
    "<ipython-input-10-agent>": """
        class Scorer(Base):
            @staticmethod
            def bonus(column):
                return int(WEIGHTS[column]) + round_down(math.sqrt(column))

            @property
            def depth(self):
                return LIMITS["depth"]

        @memo
        def column_score(column):
            return Scorer().value(column) + Scorer.bonus(column) * Scorer().depth

        best = max

        def my_agent(obs, config):
            global calls
            calls += 1
            from collections import Counter  # an import inside the function
            legal = [c for c in range(config.columns) if obs.board[c] == 0]
            counts = Counter(legal)
            return best(legal, key=lambda c: (column_score(c) + counts[c], -c))
    """,
}


@pytest.fixture
def notebook():
    module = types.ModuleType("__notebook_test__")  # no __file__, like a kernel's __main__
    sys.modules[module.__name__] = module
    for name, cell in CELLS.items():
        source = textwrap.dedent(cell)
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        exec(compile(source, name, "exec"), module.__dict__)
    yield module
    del sys.modules[module.__name__]
    for name in CELLS:
        linecache.cache.pop(name, None)


def test_a_notebook_agent_is_carried_with_everything_it_refers_to(notebook):
    source = gather(notebook.my_agent).source
    assert "client" not in source and "object()" not in source  # not referred to: left behind
    assert "import numpy as np" not in source  # np is not referred to by the agent's closure
    assert "from math import floor as round_down" in source and "import math" in source
    assert "LIMITS = {'depth': 2, 'names': ('a', 'b'), 'blob': b'\\x00\\x01', 'tags': {1, 2, 3}}" in source
    assert "best = max" in source or "from builtins import max as best" in source
    # Base comes before Scorer although its cell sorts after ("10" < "2"), and memo before its use.
    assert source.index("class Base") < source.index("class Scorer")
    assert source.index("def memo") < source.index("@memo")
    namespace: dict = {}
    exec(compile(source, "<gathered>", "exec"), namespace)
    board = [0] * 42
    for column in (0, 3, 5):
        board[column] = 1
    obs, config = Struct(board=board, mark=1), Struct(rows=6, columns=7, inarow=4)
    assert namespace["my_agent"](obs, config) == notebook.my_agent(obs, config) == 4


def test_the_gathered_agent_builds_into_a_submission_kaggle_loads(notebook):
    from kaggle_environments.agent import get_last_callable

    text, modules, data = build_text(notebook.my_agent)
    assert [m.name for m in modules] == ["__notebook__"] and data == {}
    agent = get_last_callable(text)
    assert agent(Struct(board=[0] * 42, mark=1), Struct(rows=6, columns=7, inarow=4)) == 3
    assert build_text(notebook.my_agent)[0] == text  # deterministic, set constants included


def test_a_project_import_in_a_notebook_is_inlined_and_a_forbidden_one_is_an_error(tmp_path):
    """A forbidden import inside the agent runs only when the agent is called: the file loads without it, and
    the validation's games, which call it, refuse it at its line."""
    module = types.ModuleType("__notebook_imports__")
    source = textwrap.dedent("""
        from agents.core import Position

        def agent(obs, config):
            return Position.from_kaggle(obs, config).legal_moves()[0]

        def needs_tqdm(obs, config):
            import tqdm
            return next(column for column in range(config.columns) if obs.board[column] == 0)
    """)
    linecache.cache["<cell-imports>"] = (len(source), None, source.splitlines(True), "<cell-imports>")
    exec(compile(source, "<cell-imports>", "exec"), module.__dict__)
    try:
        text, modules, _ = build_text(module.agent)
        assert "agents.core.position" in [m.name for m in modules]
        assert "from agents.core.position import Position" in modules[-1].source
        build_text(module.needs_tqdm)  # loads without it, as on Kaggle
        with pytest.raises(BuildError, match=r"^<cell-imports>:8: `import tqdm`.*tqdm: --allow-import tqdm\); the "
                                             r"validation's games called the function that imports it$"):
            build(module.needs_tqdm, tmp_path / "submission.py")
        assert not (tmp_path / "submission.py").exists()
    finally:
        linecache.cache.pop("<cell-imports>", None)
