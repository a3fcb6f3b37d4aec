"""Embedding data: the files an agent reads with ``load_resource``/``has_resource``, found in its syntax tree.

Each name is resolved for the module that reads it exactly as ``agents.core.resources`` resolves it when
the agent runs unbuilt (the nearest ``data/`` folder), so the built file reads the same bytes.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass

from connectx_toolkit.agents.core.resources import find_resource
from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import (AGENT_PACKAGE, RESOURCES_MODULE, ROOT, Module, Project, display,
                                               script_only)

RESOURCE_FUNCTIONS = ("load_resource", "has_resource")


def resource_names(module: Module, tree: ast.Module) -> list[tuple[str, str, bool]]:
    """``(name, where, required)`` for every ``load_resource``/``has_resource`` call in ``module``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if called not in RESOURCE_FUNCTIONS:
            continue
        where = module.where(node.lineno)
        argument = node.args[0] if node.args else None
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            raise InputError(f"{where}: {called}() needs a string literal name so the file can be embedded")
        name = argument.value
        if os.path.isabs(name) or ".." in name.replace("\\", "/").split("/"):
            raise InputError(f"{where}: resource name {name!r} must lie inside the data directory")
        found.append((name, where, called == "load_resource"))
    return found


# What a handler must catch for the agent to live through ``__file__`` on Kaggle (a NameError there).
NAME_ERROR_CATCHERS = frozenset({"NameError", "Exception", "BaseException"})
KAGGLE_FOLDER = "/kaggle_simulations"
OUTSIDE_WAY_OUT = ("ship the file in a bundle (-o submission.tar.gz) and open it at "
                   "/kaggle_simulations/agent/NAME")
OWN_WAY_OUT = "read data files with agents.core.resources.load_resource('NAME') from a data/ folder"


@dataclass(frozen=True)
class OwnPathUse:
    """One ``__file__`` read: at its line, caught (a handler catching NameError, or a branch chosen by a test
    naming ``/kaggle_simulations`` or ``__file__``), and the function it runs in (``""``: at load)."""

    line: int
    guarded: bool
    function: str


def catches_name_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None)
               in NAME_ERROR_CATCHERS for t in types)


def names_a_fallback(test: ast.expr) -> bool:
    """A test choosing between Kaggle's folder and the agent's own (``os.path.isdir("/kaggle_simulations/
    agent")``, ``"__file__" in globals()``)."""
    return any(isinstance(node, ast.Constant) and isinstance(node.value, str)
               and (node.value.startswith(KAGGLE_FOLDER) or node.value == "__file__") for node in ast.walk(test))


def own_path_uses(tree: ast.Module) -> list[OwnPathUse]:
    """Every ``__file__`` the module reads outside its ``if __name__ == "__main__":`` block, in line order."""
    skipped = script_only(tree)
    found: list[OwnPathUse] = []

    def visit(node: ast.AST, guarded: bool, function: str) -> None:
        if id(node) in skipped:
            return
        if isinstance(node, ast.Name) and node.id == "__file__" and isinstance(node.ctx, ast.Load):
            found.append(OwnPathUse(node.lineno, guarded, function))
            return
        if isinstance(node, (ast.Try, ast.TryStar)):
            caught = guarded or any(catches_name_error(h) for h in node.handlers)
            for child in node.body:
                visit(child, caught, function)
            for child in (*node.handlers, *node.orelse, *node.finalbody):
                visit(child, guarded, function)
            return
        if isinstance(node, (ast.If, ast.IfExp, ast.While)) and names_a_fallback(node.test):
            guarded = True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for child in (*getattr(node, "decorator_list", ()), node.args):  # run at load, where the def is
                visit(child, guarded, function)
            name = node.name if not isinstance(node, ast.Lambda) else "<lambda>"
            body = node.body if isinstance(node.body, list) else [node.body]
            for child in body:
                visit(child, guarded, name)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, guarded, function)

    visit(tree, False, "")
    return sorted(found, key=lambda use: use.line)


def way_out(module: Module) -> str:
    """How to read a data file in a submission: ``load_resource`` for the project's own agents (only they have
    it), a bundle for any other agent."""
    own = os.path.join(ROOT, AGENT_PACKAGE) + os.sep
    return OWN_WAY_OUT if os.path.realpath(module.path).startswith(own) else OUTSIDE_WAY_OUT


def own_path_refusal(module: Module, use: OwnPathUse) -> str:
    return (f"{module.where(use.line)}: `__file__` in module {module.name}: a submission has no file of its own "
            f"(Kaggle's loader raises NameError{' at load' if not use.function else ''}); {way_out(module)}")


def reject_own_path(module: Module, tree: ast.Module) -> None:
    """``__file__`` does not exist in a submission (Kaggle executes the text, not a file): read at load and
    not caught, it is Kaggle's loader's NameError, so an error naming the line and the way out. One the agent
    may live through (caught, or only read when a function runs) is a note (``own_path_notes``): the
    validation, which loads and plays the file as Kaggle does, decides."""
    for use in own_path_uses(tree):
        if not use.guarded and not use.function:
            raise InputError(own_path_refusal(module, use))


def own_path_notes(modules: list[Module]) -> list[str]:
    """A note for each ``__file__`` of a single-file build that ``reject_own_path`` let through."""
    notes = []
    for module in modules:
        if module.name == RESOURCES_MODULE or not module.source:
            continue
        for use in own_path_uses(module.tree):
            at = module.where(use.line)
            if use.guarded:
                notes.append(f"{at}: `__file__` raises NameError on Kaggle (a submission has no file of its own), "
                             f"which the agent catches or branches around: it runs without what it finds there; "
                             f"{way_out(module)}")
            else:
                notes.append(f"{at}: `__file__` in {use.function}() raises NameError on Kaggle when it runs (a "
                             f"submission has no file of its own); {way_out(module)}")
    return notes


def resource_file(name: str, module: Module, project: Project) -> str | None:
    if project.data_dir is not None:
        path = os.path.join(project.data_dir, name)
        return path if os.path.isfile(path) else None
    return find_resource(name, module.path)  # a gathered module has no file: the working directory's data/


def collect_resources(modules: list[Module], project: Project, on_disk: bool = False) -> dict[str, bytes]:
    """The bytes of every data file the modules load, by name (sorted, for reproducible output).

    ``on_disk``: the modules are files of a bundle. Only its ``main.py`` (executed by Kaggle's loader) has
    no ``__file__``, and agents commonly reach it only off Kaggle (``if os.path.isdir("/kaggle_simulations/
    agent"): ... else: os.path.dirname(__file__)``): the validation, run at that path, tells.
    """
    resources: dict[str, bytes] = {}
    origin: dict[str, str] = {}
    for module in modules:
        if module.name == RESOURCES_MODULE:
            continue  # the reader itself: its calls take the names callers pass
        tree = module.tree
        if not on_disk:
            reject_own_path(module, tree)
        for name, where, required in resource_names(module, tree):
            path = resource_file(name, module, project)
            if path is None:
                if not required:
                    continue  # has_resource("x") is False unbuilt too
                raise InputError(f"{where}: cannot read data file {name!r}: no data/{name} for {display(module.path)}")
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                raise InputError(f"{where}: cannot read data file {display(path)}: {error.strerror}") from None
            if name in resources and resources[name] != data:
                raise InputError(f"{where}: data file {name!r} is {display(path)} here but {origin[name]} elsewhere")
            resources[name], origin[name] = data, display(path)
    if resources and RESOURCES_MODULE not in {m.name for m in modules}:
        raise InputError(f"modules call load_resource() but {RESOURCES_MODULE} is not imported")
    return dict(sorted(resources.items()))
