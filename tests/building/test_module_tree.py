"""building.sources.Module.tree: a module's source is parsed once, on first use, and every stage of a build
reads that one tree (no stage parses a module's source again)."""

import ast
import collections
from functools import cached_property

import pytest

from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.pipeline import build_text
from connectx_toolkit.building.sources import Module, binds, binds_at_top_level


def test_the_tree_is_parsed_once_and_kept(monkeypatch):
    calls = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda source, *args, **kwargs: calls.append(source) or real(source, *args, **kwargs))
    module = Module("bot", "bot.py", False, "def agent(obs, config):\n    return 0\n")
    assert module.tree is module.tree and calls == [module.source]
    assert module == Module("bot", "bot.py", False, module.source) and hash(module) == hash(Module("bot", "bot.py",
                                                                                               False, module.source))


def test_a_syntax_error_is_an_input_error_at_the_authors_line_on_every_use():
    module = Module("bot", "/somewhere/bot.py", False, "x = 1\ndef agent(:\n")
    for _ in range(2):
        with pytest.raises(InputError, match=r"bot\.py:2: syntax error"):
            module.tree


def test_binds_reads_one_statement():
    tree = ast.parse("import numpy as np\nfrom a.b import c\nimport os.path\nclass agent: pass\nx: int = 1\n"
                     "if True:\n    y = 2\n")
    assert [[name for name in ("np", "c", "os", "agent", "x", "y", "a") if binds(statement, name)]
            for statement in tree.body] == [["np"], ["c"], ["os"], ["agent"], ["x"], []]
    module = Module("m", "m.py", False, ast.unparse(tree))
    assert binds_at_top_level(module, "x") and not binds_at_top_level(module, "y")


def test_a_build_parses_each_module_it_reads_once(monkeypatch):
    """Every parse of a module's source during a build is a Module's first ``tree``: as many parses of each
    source as Modules of it were made (the entry file is read afresh by the target's stage and the graph's)."""
    parsed = collections.Counter()
    real = ast.parse

    def counting(source, *args, **kwargs):
        parsed[source] += 1
        return real(source, *args, **kwargs)

    made = collections.Counter()
    first_use = Module.__dict__["tree"].func

    def counted_tree(module):
        made[module.source] += 1
        return first_use(module)

    tree = cached_property(counted_tree)
    tree.__set_name__(Module, "tree")
    monkeypatch.setattr(Module, "tree", tree)
    monkeypatch.setattr(ast, "parse", counting)
    text, modules, data = build_text("solver")
    assert len(modules) > 10 and all(made[m.source] for m in modules if m.source)
    assert {source: parsed[source] for source in made} == made
