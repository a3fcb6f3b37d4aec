"""Kaggle's entry-point rule, read from a module's syntax tree: ``agent`` if defined, else the last callable.

Kaggle's loader (``kaggle_environments.agent.get_last_callable``) executes the file into a fresh dict and
calls the last callable value in it. A dict keeps the order in which names were *first* bound, with their
*last* values; this module follows the top-level statements the same way without running them.
"""

from __future__ import annotations

import ast
import importlib.util
import os
from dataclasses import dataclass

DEFAULT_FUNCTION = "agent"
NOT_CALLABLE = (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr, ast.ListComp, ast.DictComp,
                ast.SetComp, ast.GeneratorExp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Subscript,
                ast.Call)


@dataclass(frozen=True)
class EntryPoint:
    """The function to call and why: ``reason`` is what the build report prints after the name."""

    function: str
    reason: str


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Top-level statements, with the bodies of top-level ``if``/``try``/``with`` blocks taken in order."""
    flat: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            flat += _statements(node.body) + _statements(node.orelse)
        elif isinstance(node, ast.Try):
            flat += _statements(node.body) + _statements(node.orelse) + _statements(node.finalbody)
        elif isinstance(node, ast.With):
            flat += _statements(node.body)
        else:
            flat.append(node)
    return flat


def bindings(tree: ast.Module) -> dict[str, bool]:
    """Top-level names in first-binding order, each with whether its last value is callable."""
    bound: dict[str, bool] = {}

    def bind(name: str, is_callable: bool) -> None:
        bound[name] = is_callable  # an existing key keeps its place, as in the loader's dict

    for node in _statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(node.name, True)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bind(alias.asname or alias.name.partition(".")[0], False)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    name = alias.asname or alias.name
                    # SIZE, PI: constants; a submodule is a module; functions and classes otherwise
                    bind(name, not alias.name.isupper() and not _is_submodule(node, alias.name))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            # ``act = connectx.negamax_agent`` binds a function; ``SIZE = cfg.ROWS`` and a call's result do not.
            is_callable = (isinstance(value, ast.Lambda) or (isinstance(value, ast.Name) and bound.get(value.id, False))
                           or (isinstance(value, ast.Attribute) and not value.attr.isupper()))
            for target in targets:
                if isinstance(target, ast.Name):
                    bind(target.id, bool(is_callable))
    return bound


def _is_submodule(node: ast.ImportFrom, name: str) -> bool:
    """Whether ``from package import name`` imports a module (``from kaggle_environments.envs.connectx import
    connectx``). Found by looking at the package's folders, never by importing anything (the agent's own
    packages must not run in the builder); a relative import is taken as a function or class."""
    if node.level or not node.module:
        return False
    parts = node.module.split(".") + [name]
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: searched, not imported
    except (ImportError, ValueError):
        return False
    locations = list(spec.submodule_search_locations or []) if spec else []
    for index, part in enumerate(parts[1:], start=1):
        last = index == len(parts) - 1
        folders = [os.path.join(where, part) for where in locations if os.path.isdir(os.path.join(where, part))]
        if last:
            return bool(folders) or any(os.path.isfile(os.path.join(where, part + ".py")) for where in locations)
        locations = folders
    return False


def last_callable(tree: ast.Module) -> str | None:
    """The name Kaggle's loader would call, or None when the module binds no callable."""
    callables = [name for name, is_callable in bindings(tree).items() if is_callable]
    return callables[-1] if callables else None


def entry_point(tree: ast.Module, named: str | None = None) -> EntryPoint | None:
    """The entry of a module: ``named`` (from ``:FUNCTION``), else ``agent``, else the last callable."""
    last = last_callable(tree)
    if named is not None:
        return EntryPoint(named, "named by :FUNCTION")
    if DEFAULT_FUNCTION in bindings(tree):
        if last not in (None, DEFAULT_FUNCTION):
            return EntryPoint(DEFAULT_FUNCTION, f"the file's function agent; Kaggle's loader alone would call {last}")
        return EntryPoint(DEFAULT_FUNCTION, "the file's function agent")
    if last is None:
        return None
    return EntryPoint(last, "Kaggle's last callable")


__all__ = ["DEFAULT_FUNCTION", "NOT_CALLABLE", "EntryPoint", "bindings", "entry_point", "last_callable"]
