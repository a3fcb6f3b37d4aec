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
from typing import Mapping

from building.errors import InputError
from building.roots import find_above, locate
from building.sources import ANY_EXTERNAL, ROOT, Module, Project, display, parse, read_source, script_only



def read_module(name: str, project: Project) -> Module:
    found = locate(name, project)
    if found is None:
        raise InputError(f"no module {name} in the project")
    path, is_package = found
    return Module(name, path, is_package, "" if os.path.isdir(path) else read_source(path))


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


