"""The plain values every stage of a build hands on, and the syntax helpers they share.

``Project`` (where modules and data come from), ``Module`` (one module's source as it will be embedded, and
its syntax tree, parsed once), ``display`` (short paths in messages), ``read_source`` and a few readers of a
module's syntax tree. No stage lives here: ``targets`` → ``modules`` → ``data`` → ``template``/``bundle`` →
``validation`` each import what they need from this file and from nothing later in the chain.
"""

from __future__ import annotations

import ast
import importlib.machinery
import os
import sys
import tokenize
from dataclasses import dataclass, field
from functools import cached_property

from connectx_toolkit.building.errors import InputError

RESOURCES_MODULE = "agents.core.resources"  # receives the embedded data as __embedded_resources__
# The folder that holds the built-in agents as the package ``agents``: the repository in a checkout (the
# toolkit's ``agents`` is a link to the repository's), the toolkit's own folder in an installed wheel.
ROOT = os.path.dirname(os.path.realpath(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "agents")))
AGENT_PACKAGE = "agents"
# Besides the standard library, what Kaggle's image surely has: numpy, and kaggle_environments itself (it is
# what runs every agent there).
DEFAULT_EXTERNAL = frozenset({"numpy", "kaggle_environments"})
# What every Python has: the standard library, and __main__, the module of the running program (not in
# sys.stdlib_module_names, yet `import __main__` works in Kaggle's agent process as in any other).
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names) | {"__main__"}
ANY_EXTERNAL = "*"  # in ``Project.allowed``: every import is allowed (evaluation builds, never uploaded)
# A compiled extension module's file names (``connectx.so``, ``connectx.cpython-311-x86_64-linux-gnu.so``,
# ``.pyd`` on Windows), longest first: Python imports one beside the agent as it imports a ``.py`` there.
EXTENSION_SUFFIXES = tuple(sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True))


def is_extension_file(path: str) -> bool:
    """Whether ``path`` is a compiled extension module (binary: it has no source to read or embed)."""
    return os.path.isfile(path) and path.endswith(EXTENSION_SUFFIXES)


@dataclass(frozen=True)
class Project:
    """Where modules and data come from.

    ``search_path``: directories searched like ``sys.path``; ``package``: where bare agent names live;
    ``data_dir``: one folder every resource is read from (None: each module's nearest ``data/`` folder,
    see ``agents.core.resources.find_resource``); ``allowed``: third-party top-level packages a
    submission may import besides the standard library; ``home``: the agent's own folder (where a missing
    module is looked for above, to say which ``--path`` would find it).
    """

    search_path: tuple[str, ...] = (ROOT,)
    package: str = AGENT_PACKAGE
    data_dir: str | None = None
    allowed: frozenset[str] = field(default=DEFAULT_EXTERNAL)
    home: str | None = None

    def allows(self, name: str) -> bool:
        """``name``'s top-level package is in the standard library or named in ``allowed``. The wildcard
        names none: it admits only what is installed, which the module graph checks apart."""
        top = name.partition(".")[0]
        return top in STANDARD_LIBRARY or top in self.allowed


@dataclass(frozen=True)
class Module:
    """One module's source as it will be embedded; ``path`` is the file (or a label for a synthesized one)."""

    name: str
    path: str
    is_package: bool
    source: str
    # A gathered module's lines come from elsewhere: (first line here, last line here, file, its first line).
    origins: tuple[tuple[int, int, str, int], ...] = ()
    notes: tuple[str, ...] = ()  # what the build report should say about it (a gathered global's value)

    @cached_property
    def tree(self) -> ast.Module:
        """The source's syntax tree, parsed on its first use and kept: every stage reads it, none changes it
        (the module itself is frozen; a changed module is a new ``Module``, parsed anew). A syntax error is an
        ``InputError`` at the line its author wrote, raised again on each use."""
        try:
            return ast.parse(self.source, filename=self.path)
        except SyntaxError as error:
            raise InputError(f"{self.where(error.lineno or 0)}: syntax error: {error.msg}") from None

    @property
    def file_name(self) -> str | None:
        """The file's own name when the module is named otherwise because that name cannot be imported
        (``connectx-minimax-approach.py``, embedded as ``connectx_minimax_approach``), else None."""
        base = os.path.basename(self.path)
        if self.is_package or not base.endswith(".py") or base[:-3] == self.name.rpartition(".")[2]:
            return None
        return base

    @property
    def is_extension(self) -> bool:
        """A compiled extension module: shipped as its file in a bundle, never embedded in a single file."""
        return not self.is_package and is_extension_file(self.path)

    @property
    def shown_name(self) -> str:
        """The module as its author knows it: its file's name when that is not importable, else its name."""
        return self.file_name or self.name

    @property
    def package(self) -> str:
        """``__package__``: what relative imports are relative to."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def where(self, line: int) -> str:
        """``file:line`` for a message: where the user wrote the line (a notebook cell for a gathered one)."""
        for first, last, origin, origin_line in self.origins:
            if first <= line <= last:
                if origin.startswith("In [") or " cell " in origin:
                    return f"{display(origin)}, line {origin_line + line - first}"
                return f"{display(origin)}:{origin_line + line - first}"
        return f"{display(self.path)}:{line}"


def with_origins(source: str, origins: tuple[tuple[int, int, str, int], ...]) -> str:
    """A gathered module's source with its map of origins appended as ``__cell_origins__`` (the names of
    files only): an error raised in it is then told where its user wrote the line (``In [3], line 2``),
    wherever the module runs. Appended, so that no line of the source moves."""
    shown = tuple((first, last, origin if origin.startswith("In [") else os.path.basename(origin), line)
                  for first, last, origin, line in origins)
    return source + f"\n\n__cell_origins__ = {shown!r}\n"


def display(path: str) -> str:
    """A path relative to the repository when it lies inside it (short, stable messages)."""
    if path.startswith("<"):
        return path
    relative = os.path.relpath(path, ROOT)
    return path if relative.startswith("..") else relative


def is_namespace(module: Module) -> bool:
    """A package without ``__init__.py``: its path is the folder, its source empty."""
    return module.is_package and os.path.isdir(module.path)


def read_source(path: str) -> str:
    try:
        with tokenize.open(path) as handle:  # honours PEP 263 coding lines, normalises newlines
            return handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {display(path)}: {error}") from None


def script_only(tree: ast.Module) -> set[int]:
    """Ids of the nodes inside top-level ``if __name__ == "__main__":`` blocks: code that never runs in a
    submission (Kaggle's loader runs the file with ``__name__`` set to ``"builtins"``)."""
    skipped: set[int] = set()
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if (isinstance(node, ast.If) and isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
                and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value == "__main__" and isinstance(test.ops[0], ast.Eq)):
            skipped.update(id(child) for statement in node.body for child in ast.walk(statement))
    return skipped


def binds_at_top_level(module: Module, name: str) -> bool:
    """Whether ``module`` binds ``name`` at top level (a def, a class, an assignment or an import)."""
    return any(binds(statement, name) for statement in module.tree.body)


def binds(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` itself binds ``name``: a def or a class of that name, an assignment to it, or an
    import bound to it (nothing nested inside the statement)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return statement.name == name
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return any(isinstance(t, ast.Name) and t.id == name for t in targets)
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.partition(".")[0]) == name for a in statement.names)
    return False


def absolute_imports(tree: ast.AST) -> list[str]:
    """The modules ``tree`` imports by absolute name anywhere (``import a.b``: ``a.b``; ``from a import b``: ``a``),
    in the order they stand; relative imports are left out."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.append(node.module)
    return names


def agent_names(project: Project) -> list[str]:
    """The modules directly in the project's agent package: every one of them is an agent."""
    names = set()
    for directory in project.search_path:
        folder = os.path.join(directory, project.package)
        if os.path.isdir(folder):
            names.update(e[:-3] for e in os.listdir(folder) if e.endswith(".py") and e != "__init__.py")
    return sorted(names)
