"""Import roots: the folders an agent's imports are looked up in, in the order Python looks.

An agent file's own folder comes first (Kaggle's loader puts a submission's folder on ``sys.path``), then
every ``--path DIR`` in the order given, then the entries of ``PYTHONPATH``; the project's own folder stays
last, so an agent kept elsewhere may still import ``agents.core``.
"""

from __future__ import annotations

import importlib.machinery
import os
from typing import Iterable

from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import Project, is_extension_file


def environment_roots() -> tuple[str, ...]:
    """The existing folders named by ``PYTHONPATH`` (empty entries, as Python does, mean nothing here)."""
    entries = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return tuple(os.path.abspath(entry) for entry in entries if entry and os.path.isdir(entry))


def checked_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """``--path`` folders as absolute paths; a missing one is bad input (one line)."""
    roots = []
    for path in paths:
        full = os.path.abspath(os.path.expanduser(os.fspath(path)))
        if not os.path.isdir(full):
            raise InputError(f"--path {path}: no such folder")
        roots.append(full)
    return tuple(roots)


def unique(paths: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(os.path.abspath(p) for p in paths))


def find_above(name: str, folder: str) -> str | None:
    """The nearest folder above ``folder`` that holds module or package ``name`` (its top level), or None."""
    top = name.partition(".")[0]
    current = os.path.dirname(os.path.abspath(folder))
    while True:
        if os.path.isdir(os.path.join(current, top)) or os.path.isfile(os.path.join(current, top + ".py")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def locate(name: str, project: Project) -> tuple[str, bool] | None:
    """``(path, is_package)`` of project module ``name``, or None if the project has no such module.

    As Python's path finder: the first root holding a regular package or a module wins; a folder without
    ``__init__.py`` is a namespace package (its ``path`` is the folder) only when no root has either, and
    never hides the standard library or an allowed installed package of the same name. A compiled extension
    module (``NAME.so``, ``NAME.cpython-311-x86_64-linux-gnu.so``) is a module too, found before ``NAME.py``
    as Python's finder finds it.
    """
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    namespace = None
    for directory in project.search_path:
        base = os.path.join(directory, *parts)
        if os.path.isfile(os.path.join(base, "__init__.py")):
            return os.path.join(base, "__init__.py"), True
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:  # Python's order: extensions before sources
            if is_extension_file(base + suffix):
                return base + suffix, False
        if os.path.isfile(base + ".py"):
            return base + ".py", False
        if namespace is None and os.path.isdir(base):
            namespace = base
    if namespace is None or (len(parts) == 1 and project.allows(name)):
        return None
    return namespace, True


__all__ = ["checked_paths", "environment_roots", "find_above", "locate", "unique"]
