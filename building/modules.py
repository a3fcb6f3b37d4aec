"""Discovering the modules an agent needs: every import form, transitively, dependencies first.

A *project* is a list of directories searched like ``sys.path``. The entry module and every project module
it imports (``import a.b``, ``from a import b as c``, relative imports, imports inside functions) are read
once each, in depth-first post-order; any import that is neither a project module nor an allowed
external package (the standard library, numpy, and whatever ``--allow-import`` admits) is an error naming
the statement and ``file:line``.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import sys
import tokenize
from dataclasses import dataclass, field
from typing import Mapping

from building.errors import InputError
from building.roots import find_above

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENT_PACKAGE = "agents"
# Besides the standard library, what Kaggle's image surely has: numpy, and kaggle_environments itself (it is
# what runs every agent there).
DEFAULT_EXTERNAL = frozenset({"numpy", "kaggle_environments"})
ANY_EXTERNAL = "*"  # in ``Project.allowed``: every import is allowed (evaluation builds, never uploaded)


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
        top = name.partition(".")[0]
        return top in sys.stdlib_module_names or top in self.allowed or ANY_EXTERNAL in self.allowed


@dataclass(frozen=True)
class Module:
    """One module's source as it will be embedded; ``path`` is the file (or a label for a synthesized one)."""

    name: str
    path: str
    is_package: bool
    source: str
    # A gathered module's lines come from elsewhere: (first line here, last line here, file, its first line).
    origins: tuple[tuple[int, int, str, int], ...] = ()

    @property
    def package(self) -> str:
        """``__package__``: what relative imports are relative to."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def where(self, line: int) -> str:
        """``file:line`` for a message: where the user wrote the line (a notebook cell for a gathered one)."""
        for first, last, origin, origin_line in self.origins:
            if first <= line <= last:
                return f"{display(origin)}:{origin_line + line - first}"
        return f"{display(self.path)}:{line}"


def display(path: str) -> str:
    """A path relative to the repository when it lies inside it (short, stable messages)."""
    if path.startswith("<"):
        return path
    relative = os.path.relpath(path, ROOT)
    return path if relative.startswith("..") else relative


def locate(name: str, project: Project) -> tuple[str, bool] | None:
    """``(path, is_package)`` of project module ``name``, or None if the project has no such module.

    As Python's path finder: the first root holding a regular package or a module wins; a folder without
    ``__init__.py`` is a namespace package (its ``path`` is the folder) only when no root has either, and
    never hides the standard library or an allowed installed package of the same name.
    """
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    namespace = None
    for directory in project.search_path:
        base = os.path.join(directory, *parts)
        if os.path.isfile(os.path.join(base, "__init__.py")):
            return os.path.join(base, "__init__.py"), True
        if os.path.isfile(base + ".py"):
            return base + ".py", False
        if namespace is None and os.path.isdir(base):
            namespace = base
    if namespace is None or (len(parts) == 1 and (name in sys.stdlib_module_names or name in project.allowed)):
        return None
    return namespace, True


def is_namespace(module: Module) -> bool:
    """A package without ``__init__.py``: its path is the folder, its source empty."""
    return module.is_package and os.path.isdir(module.path)


def read_source(path: str) -> str:
    try:
        with tokenize.open(path) as handle:  # honours PEP 263 coding lines, normalises newlines
            return handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {display(path)}: {error}") from None


def read_module(name: str, project: Project) -> Module:
    found = locate(name, project)
    if found is None:
        raise InputError(f"no module {name} in the project")
    path, is_package = found
    return Module(name, path, is_package, "" if os.path.isdir(path) else read_source(path))


def parse(module: Module) -> ast.Module:
    try:
        return ast.parse(module.source, filename=module.path)
    except SyntaxError as error:
        raise InputError(f"{module.where(error.lineno or 0)}: syntax error: {error.msg}") from None


def script_only(tree: ast.Module) -> set[int]:
    """Ids of the nodes inside top-level ``if __name__ == "__main__":`` blocks: code that never runs in a
    submission (Kaggle's loader runs the file with ``__name__`` set to ``"builtins"``)."""
    skipped: set[int] = set()
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
                and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value == "__main__" and isinstance(test.ops[0], ast.Eq)):
            skipped.update(id(child) for statement in node.body for child in ast.walk(statement))
    return skipped


def resolve_relative(module: Module, name: str | None, level: int, where: str) -> str:
    bits = module.package.rsplit(".", level - 1) if module.package else []
    if len(bits) < level:
        raise InputError(f"{where}: relative import beyond the top-level package")
    return f"{bits[0]}.{name}" if name else bits[0]


def project_dependencies(
    module: Module, tree: ast.Module, project: Project, virtual: Mapping[str, Module] = {}
) -> list[str]:
    """Project modules ``module`` imports, in source order; rejects any import Kaggle cannot satisfy.

    Each imported name brings its parent packages (Python runs ``a/__init__.py`` before ``a.b``), and
    ``from a import b`` brings ``a.b`` when that is a submodule rather than a name defined in ``a``.
    """
    wanted: list[str] = []

    def exists(name: str) -> bool:
        return name in virtual or locate(name, project) is not None

    def need(target: str, where: str, statement: str) -> None:
        parts = target.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if not exists(prefix):
                raise InputError(f"{where}: `{statement}`: {missing(prefix, project)}")
            wanted.append(prefix)

    def classify(target: str, where: str, statement: str) -> bool:
        """True for a project module; False for an allowed external one; InputError otherwise."""
        if exists(target.partition(".")[0]):
            return True
        top = target.partition(".")[0]
        if top in sys.stdlib_module_names or top in project.allowed:
            return False
        if importlib.util.find_spec(top) is None:
            raise InputError(f"{where}: `{statement}` in module {module.name}: {missing(top, project)}")
        if ANY_EXTERNAL in project.allowed:
            return False
        raise InputError(
            f"{where}: `{statement}` in module {module.name}: a submission may import only the standard "
            f"library, numpy, kaggle_environments and its own modules (if Kaggle's image has {top}: "
            f"--allow-import {top})"
        )

    skipped = script_only(tree)
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in skipped]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        where = module.where(node.lineno)
        statement = ast.unparse(node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if classify(alias.name, where, statement):
                    need(alias.name, where, statement)
            continue
        if node.level:
            target = resolve_relative(module, node.module, node.level, where)
        else:
            target = node.module or ""
            if target == "__future__" or not classify(target, where, statement):
                continue
        need(target, where, statement)
        for alias in node.names:
            if alias.name != "*" and exists(f"{target}.{alias.name}"):
                wanted.append(f"{target}.{alias.name}")
    return list(dict.fromkeys(wanted))


def missing(name: str, project: Project) -> str:
    """Why ``name`` is not found, and where it is when it lies above the agent's folder (``add --path``)."""
    above = find_above(name, project.home) if project.home else None
    roots = [display(root) for root in project.search_path if root != ROOT]
    where = f"under the import roots ({', '.join(roots)})" if roots else "in the project"
    if above is not None:
        return f"no module {name} {where}; it is in {display(above)}: add --path {display(above)}"
    return (f"no module {name} {where}, nor installed here (if it is a package Kaggle's image has: "
            f"{sys.executable} -m pip install {name}, then --allow-import {name})")


def external_imports(tree: ast.Module, project: Project, virtual: Mapping[str, Module] = {}) -> set[str]:
    """Top-level names of the installed packages (not the standard library) a module imports."""
    names = set()
    for node in ast.walk(tree):
        tops = ([a.name for a in node.names] if isinstance(node, ast.Import)
                else [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else [])
        for name in tops:
            top = name.partition(".")[0]
            if top not in virtual and top not in sys.stdlib_module_names and locate(top, project) is None:
                names.add(top)
    return names


def discover(entry: str, project: Project, virtual: Mapping[str, Module] = {}) -> list[Module]:
    """Module ``entry`` and every project module it needs, dependencies first (depth-first post-order).

    ``virtual`` holds modules that exist only in memory (an agent gathered from a notebook); they are
    found before the search path.
    """
    order: list[Module] = []
    state: dict[str, str] = {}  # name -> "visiting" | "done"; import cycles are legal Python

    def visit(name: str) -> None:
        if name in state:
            return
        state[name] = "visiting"
        module = virtual[name] if name in virtual else read_module(name, project)
        parent = name.rpartition(".")[0]
        for dependency in ([parent] if parent else []) + project_dependencies(module, parse(module), project, virtual):
            visit(dependency)
        state[name] = "done"
        order.append(module)

    visit(entry)
    return order


def binds_at_top_level(module: Module, name: str) -> bool:
    """Whether ``module`` binds ``name`` at top level (a def, a class, an assignment or an import)."""
    for node in parse(module).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.partition(".")[0]) == name for a in node.names):
                return True
    return False


def agent_names(project: Project) -> list[str]:
    """The modules directly in the project's agent package: every one of them is an agent."""
    names = set()
    for directory in project.search_path:
        folder = os.path.join(directory, project.package)
        if os.path.isdir(folder):
            names.update(e[:-3] for e in os.listdir(folder) if e.endswith(".py") and e != "__init__.py")
    return sorted(names)
