"""Embedding data: the files an agent reads with ``load_resource``/``has_resource``, found in its syntax tree.

Each name is resolved for the module that reads it exactly as ``agents.core.resources`` resolves it when
the agent runs unbuilt (the nearest ``data/`` folder), so the built file reads the same bytes.
"""

from __future__ import annotations

import ast
import os

from connectx_toolkit.agents.core.resources import find_resource
from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import RESOURCES_MODULE, Module, Project, display, parse, script_only

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


def reject_own_path(module: Module, tree: ast.Module) -> None:
    """``__file__`` does not exist in a submission (Kaggle executes the text, not a file): code that finds
    its data beside itself would fail on Kaggle, so it is an error naming the line and the way out."""
    skipped = script_only(tree)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Name) and node.id == "__file__" and isinstance(node.ctx, ast.Load)
                and id(node) not in skipped):
            raise InputError(
                f"{module.where(node.lineno)}: `__file__` in module {module.name}: a submission has no file of its "
                "own; read data files with agents.core.resources.load_resource('NAME') from a data/ folder"
            )


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
        tree = parse(module)
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
