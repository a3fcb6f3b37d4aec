"""A notebook's cells as executed, and what they say a global is: the source behind a function object.

IPython keeps the code of every executed cell in the user namespace's ``_ih`` (``In``), in execution
order, and ipykernel compiles each cell under a file name of its own (``/tmp/ipykernel_PID/HASH.py``,
``<ipython-input-N-HASH>`` in older versions) whose lines ``linecache`` keeps. From these, a function
defined in a notebook can be traced to ``In [N]``, and a global it uses to the statement that last gave
it a value in the cells. A script's ``__main__`` is the same with one cell, its file.

Kaggle runs a submission from its source, so the builder takes a global's value as the cells write it
(``calls = 0``), not as running the agent in the notebook left it (``calls == 4``).
"""

from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass
from typing import Any, Mapping

from connectx_toolkit.building.entry_point import top_level_statements

__all__ = ["Binding", "binding", "cell_of", "cells"]


@dataclass(frozen=True)
class Binding:
    """The statement that last gave a global its value: where (``In [3]``, ``line 12``), the statement, and
    the value's source when it is a literal (None when the cells compute it)."""

    where: str
    statement: str
    literal: str | None


def cells(namespace: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``[(label, code)]`` in execution order: IPython's ``In [N]`` cells, or a script's file as one cell;
    empty when neither can be found."""
    history = namespace.get("_ih")
    if isinstance(history, list) and history and all(isinstance(code, str) for code in history):
        return [(f"In [{number}]", code) for number, code in enumerate(history) if number and code.strip()]
    path = namespace.get("__file__")
    if namespace.get("__name__") == "__main__" and isinstance(path, str):
        lines = linecache.getlines(path)
        if lines:
            return [(path, "".join(lines))]
    return []


def cell_of(filename: str, namespace: Mapping[str, Any]) -> str | None:
    """``In [N]`` for the file name a notebook cell was compiled under (the last run of that code)."""
    code = "".join(linecache.getlines(filename))
    if not code:
        return None
    found = None
    for label, text in cells(namespace):
        if text.rstrip("\n") == code.rstrip("\n") and label.startswith("In ["):
            found = label
    return found


def binding(namespace: Mapping[str, Any], name: str) -> Binding | None:
    """The last top-level statement of the cells that binds ``name``; None when no cell does (or the cells
    are unknown)."""
    found = None
    for label, code in cells(namespace):
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        for statement in top_level_statements(tree.body, loops=True, main=True):
            if _binds(statement, name):
                value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
                literal = None
                if value is not None and isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                        and isinstance(statement.targets[0], ast.Name):
                    literal = _literal_source(value)
                elif value is not None and isinstance(statement, ast.AnnAssign):
                    literal = _literal_source(value)
                where = label if label.startswith("In [") else f"line {statement.lineno}"
                found = Binding(where, ast.unparse(statement).splitlines()[0][:80], literal)
    return found


def _binds(statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return statement.name == name
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name.partition(".")[0]) == name for alias in statement.names)
    else:
        return False
    return any(isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name
               for target in targets for node in ast.walk(target))


def _literal_source(node: ast.expr) -> str | None:
    """The expression's source when it is a literal (``ast.literal_eval`` takes it), else None."""
    try:
        ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return ast.unparse(node)
