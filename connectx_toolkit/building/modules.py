"""Discovering the modules an agent needs: every import form, transitively, dependencies first.

A *project* is a list of directories searched like ``sys.path``. The entry module and every project module
it imports (``import a.b``, ``from a import b as c``, relative imports, imports inside functions) are read
once each, in depth-first post-order; any import that is neither a project module nor an allowed
external package (the standard library, numpy, and whatever ``--allow-import`` admits) is an error naming
the statement and ``file:line`` — every such import of the whole graph in one message.

An import inside ``try: ... except ImportError:`` (or ``ModuleNotFoundError``, ``Exception``, a bare
``except``) is optional: the agent runs without it, as Kaggle runs its fallback. One that cannot be satisfied
(not there, not allowed, or a project module that itself cannot be built) is left out with a note.

An import inside a function runs only when the function is called, never when Kaggle's loader executes the file
(nor does anything of a module imported only there): the agent loads without it, as on Kaggle. One that cannot be
satisfied is left out, all of them named in one note; the validation plays the agent as Kaggle does, and a game
that calls it fails there, at the agent's line (``deferred_advice`` then says how to have it). Only imports that
run at load are the ones "the agent cannot run without".
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Collection, Mapping

from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.kaggle_rules import PACKAGE as TOOLKIT
from connectx_toolkit.building.roots import find_above, locate
from connectx_toolkit.building.sources import (ANY_EXTERNAL, ROOT, Module, Project, absolute_imports, display,
                                               is_extension_file, read_source, script_only)



def read_module(name: str, project: Project) -> Module:
    found = locate(name, project)
    if found is None:
        raise InputError(f"no module {name} in the project")
    path, is_package = found
    if os.path.isdir(path) or is_extension_file(path):  # a namespace package, or a compiled module (no source)
        return Module(name, path, is_package, "")
    return Module(name, path, is_package, read_source(path))


def cannot_carry(name: str, path: str) -> str:
    return (f"{name} is a compiled extension module ({display(path)}), which a single file cannot carry: build a "
            "bundle (-o submission.tar.gz), which ships it beside main.py")


def resolve_relative(module: Module, name: str | None, level: int, where: str) -> str:
    bits = module.package.rsplit(".", level - 1) if module.package else []
    if len(bits) < level:
        raise InputError(f"{where}: relative import beyond the top-level package")
    return f"{bits[0]}.{name}" if name else bits[0]


IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True)
class Problem:
    """An import the agent cannot run without: the one-line message, its short form for a list of them, and
    the reason alone (``no module numba here``)."""

    message: str
    short: str
    reason: str

    @property
    def package(self) -> str:
        """The top-level name the import wants (``torch`` for ``no module torch.nn here`` or ``torch is not
        allowed ...``)."""
        return self.reason.removeprefix("no module ").split(" ")[0].partition(".")[0]


@dataclass
class Dependencies:
    """What one module imports: project modules it needs, project modules it imports optionally or only inside a
    function (with where, the statement and the function, "" for an optional import at load), imports it cannot
    run without, imports inside functions it cannot have, and notes on optional imports left out."""

    required: list[str] = field(default_factory=list)
    optional: list[tuple[str, str, str, str]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    deferred: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def catches_import_errors(handler: ast.ExceptHandler) -> bool:
    """Whether an ``except`` clause catches a failed import."""
    if handler.type is None:
        return True
    items = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((isinstance(item, ast.Name) and item.id in IMPORT_ERRORS)
               or (isinstance(item, ast.Attribute) and item.attr in IMPORT_ERRORS) for item in items)


def optional_imports(tree: ast.Module) -> set[int]:
    """Ids of the import statements run inside a ``try`` whose handlers catch a failed import (not those in a
    function defined there, which runs later, outside it)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, ast.TryStar)) and any(
                catches_import_errors(handler) for handler in node.handlers):
            stack: list[ast.AST] = list(node.body)
            while stack:
                item = stack.pop()
                if isinstance(item, (ast.Import, ast.ImportFrom)):
                    guarded.add(id(item))
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    stack.extend(ast.iter_child_nodes(item))
    return guarded


def imports_in_functions(tree: ast.Module) -> dict[int, str]:
    """The import statements inside a function (a ``def``, a method, a lambda), by id, each with the name of
    the innermost function holding it: they run when it is called, not when the module is executed."""
    inside: dict[int, str] = {}

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, f"{child.name}()")
            elif isinstance(child, ast.Lambda):
                visit(child, "a lambda")
            else:
                if function is not None and isinstance(child, (ast.Import, ast.ImportFrom)):
                    inside[id(child)] = function
                visit(child, function)

    visit(tree, None)
    return inside


# What Kaggle's loader raises for a relative import: it executes the file in a dict without ``__name__``, outside
# any package (checked with kaggle_environments 1.33.2's ``get_last_callable``).
RELATIVE_AT_LOAD = "KeyError: \"'__name__' not in globals\""


def cannot_upload_alone(module: Module, own: Collection[str] = ()) -> str | None:
    """Why ``module``'s file fails on Kaggle when it is uploaded alone (nothing beside it, outside any package),
    from its first import at load of a module of its own; None when it has none. A relative import fails before
    it looks for anything; a module of its own (``own``: the module graph's names) is simply not there."""
    skipped = set(script_only(module.tree)) | set(imports_in_functions(module.tree)) | optional_imports(module.tree)
    nodes = sorted((node for node in ast.walk(module.tree)
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped),
                   key=lambda node: (node.lineno, node.col_offset))
    for node in nodes:
        where, statement = module.where(node.lineno), ast.unparse(node)
        if isinstance(node, ast.ImportFrom) and node.level:
            return (f"{where}: `{statement}` is a relative import, which needs the package the file sits in; Kaggle "
                    f"runs a file uploaded alone outside any package, and its loader fails there with "
                    f"{RELATIVE_AT_LOAD}")
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        for name in names:
            if name in own and name != module.name:
                return f"{where}: `{statement}` imports {name}, a module of its own, which is not beside a file uploaded alone"
    return None


def file_cannot_upload_alone(path: str) -> str | None:
    """``cannot_upload_alone`` for a file read from disk, from its own source alone (a relative import at load);
    None as well for a file that cannot be read or parsed (its load says what is wrong)."""
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        return cannot_upload_alone(Module(name, os.path.abspath(path), False, read_source(path)))
    except InputError:
        return None


# stickytape (a bundler of several modules into one file) writes each module's text into a temporary folder at
# load, puts the folder on sys.path and imports it: the file carries those modules itself.
SELF_WRITERS = frozenset({"__stickytape_write_module"})


def self_written_modules(tree: ast.Module) -> set[str]:
    """Top-level names of the modules the file writes at load and imports from there
    (``__stickytape_write_module('helpers.py', b'...')`` writes ``helpers``)."""
    written = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SELF_WRITERS
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            path = node.args[0].value
            written.add(path.split("/")[0].removesuffix(".py"))
    return written


def project_dependencies(
    module: Module, tree: ast.Module, project: Project, virtual: Mapping[str, Module] = {}, single_file: bool = False
) -> Dependencies:
    """Project modules ``module`` imports, in source order, and every import Kaggle cannot satisfy.

    Each imported name brings its parent packages (Python runs ``a/__init__.py`` before ``a.b``), and
    ``from a import b`` brings ``a.b`` when that is a submodule rather than a name defined in ``a``.
    """
    found = Dependencies()
    optional = optional_imports(tree)
    in_functions = imports_in_functions(tree)
    carried = self_written_modules(tree)  # imported from where the file writes them: nothing to embed
    deferred: str | None = None  # the function the statement being read runs in (None: it runs at load)

    def exists(name: str) -> bool:
        return name in virtual or locate(name, project) is not None

    def cannot(where: str, statement: str, guarded: bool, message: str, short: str) -> None:
        if guarded:
            install = install_hint(short) if NOT_INSTALLED in message else ""
            found.notes.append(f"{where}: `{statement}` is optional (inside try/except ImportError): {short}; "
                               f"built without it, the agent runs its fallback{install}")
        elif deferred:
            found.deferred.append(Problem(message, f"{where}: `{statement}` in {deferred} ({short})", short))
        else:
            found.problems.append(Problem(message, f"{where}: `{statement}` ({short})", short))

    def binary(name: str, where: str, statement: str, guarded: bool) -> bool:
        """A compiled extension module a single file cannot carry: refused at the import (optional: left out)."""
        found_at = None if not single_file or name in virtual else locate(name, project)
        if found_at is None or not is_extension_file(found_at[0]):
            return False
        cannot(where, statement, guarded, f"{where}: `{statement}`: {cannot_carry(name, found_at[0])}",
               f"{name} is a compiled extension module")
        return True

    def need(target: str, where: str, statement: str, guarded: bool) -> bool:
        names = []
        parts = target.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if not exists(prefix):
                cannot(where, statement, guarded, f"{where}: `{statement}`: {missing(prefix, project)}",
                       f"no module {prefix} here")
                return False
            if binary(prefix, where, statement, guarded):
                return False
            names.append(prefix)
        if guarded or deferred:
            found.optional += [(name, where, statement, "" if guarded else deferred or "") for name in names]
        else:
            found.required += names
        return True

    def classify(target: str, where: str, statement: str, guarded: bool) -> bool | None:
        """True for a project module; False for an allowed external one; None for one it cannot have."""
        top = target.partition(".")[0]
        if top in carried:
            return False
        if top == TOOLKIT:  # found beside the agents in a checkout, but never on Kaggle
            cannot(where, statement, guarded, f"{where}: `{statement}`: {missing(top, project)}", f"no module {top} here")
            return None
        if exists(top):
            return True
        if project.allows(top):
            return False
        if importlib.util.find_spec(top) is None:
            cannot(where, statement, guarded, f"{where}: `{statement}` in module {module.shown_name}: "
                   f"{missing(top, project)}", f"no module {top} here")
            return None
        if ANY_EXTERNAL in project.allowed:
            return False
        cannot(where, statement, guarded,
               f"{where}: `{statement}` in module {module.shown_name}: a submission may import only the standard "
               f"library, numpy, kaggle_environments and its own modules (if Kaggle's image has {top}: "
               f"--allow-import {top})", f"{top}{NOT_ALLOWED}{top}")
        return None

    skipped = script_only(tree)
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in skipped]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        where = module.where(node.lineno)
        statement = ast.unparse(node)
        guarded = id(node) in optional
        deferred = in_functions.get(id(node))
        if isinstance(node, ast.Import):
            for alias in node.names:
                if classify(alias.name, where, statement, guarded):
                    need(alias.name, where, statement, guarded)
            continue
        if node.level:
            target = resolve_relative(module, node.module, node.level, where)
        else:
            target = node.module or ""
            if target == "__future__" or not classify(target, where, statement, guarded):
                continue
        if not need(target, where, statement, guarded):
            continue
        for alias in node.names:
            if alias.name != "*" and exists(f"{target}.{alias.name}"):
                name = f"{target}.{alias.name}"
                if binary(name, where, statement, guarded):
                    continue
                if guarded or deferred:
                    found.optional.append((name, where, statement, "" if guarded else deferred or ""))
                else:
                    found.required.append(name)
    found.required = list(dict.fromkeys(found.required))
    return found


NOT_INSTALLED = "nor installed here"  # in ``missing``'s text for a package found nowhere

# Well-known packages of Kaggle's Python image (the Kaggle/docker-python image), by import name, with the name
# pip installs them by. Only these are ever suggested to ``pip install``: any other missing name may be a module
# of the agent's own that its author never published, and a stranger may have published one under that name.
# Not the whole image: a package left out here is told as missing, without an install command.
KAGGLE_IMAGE = {
    "numpy": "numpy", "scipy": "scipy", "pandas": "pandas", "numba": "numba", "torch": "torch",
    "tensorflow": "tensorflow", "keras": "keras", "jax": "jax", "sklearn": "scikit-learn", "xgboost": "xgboost",
    "lightgbm": "lightgbm", "catboost": "catboost", "psutil": "psutil", "joblib": "joblib", "tqdm": "tqdm",
    "cv2": "opencv-python", "PIL": "pillow", "matplotlib": "matplotlib", "networkx": "networkx", "sympy": "sympy",
    "h5py": "h5py", "yaml": "pyyaml", "requests": "requests", "gym": "gym", "dill": "dill",
    "cloudpickle": "cloudpickle", "Cython": "cython", "onnxruntime": "onnxruntime", "statsmodels": "statsmodels",
    "kaggle_environments": "kaggle-environments",
}


def in_kaggle_image(name: str) -> bool:
    """Whether ``name``'s top-level package is one of Kaggle's image that the builder knows (``KAGGLE_IMAGE``)."""
    return name.partition(".")[0] in KAGGLE_IMAGE


def pip_command(name: str) -> str:
    """``.../python -m pip install scikit-learn, then --allow-import sklearn`` for a package of Kaggle's image."""
    top = name.partition(".")[0]
    return f"{sys.executable} -m pip install {KAGGLE_IMAGE[top]}, then --allow-import {top}"


def install_hint(reason: str) -> str:
    """``; to use it: .../python -m pip install psutil, then --allow-import psutil`` for ``no module psutil here``
    when psutil is a package of Kaggle's image; else nothing (the agent's own module, never installed)."""
    name = reason.removeprefix("no module ").removesuffix(" here").partition(".")[0]
    return f"; to use it: {pip_command(name)}" if in_kaggle_image(name) else ""


def one_error(problems: list[Problem]) -> InputError:
    """Every import the agent cannot run without, in one line: one package once, at its first import (``import
    torch`` and ``from torch import nn`` are one missing torch)."""
    problems = first_of_each(problems)
    if len(problems) == 1:
        return InputError(problems[0].message)
    listed = "; ".join(problem.short for problem in problems)
    return InputError(f"{len(problems)} imports the agent cannot run without: {listed} "
                      f"(an import inside try/except ImportError is optional and left out){install_line(problems)}")


def missing(name: str, project: Project) -> str:
    """Why ``name`` is not found, and where it is when it lies above the agent's folder (``add --path``)."""
    if name.split(".")[0] == TOOLKIT:  # the toolkit's own name in the user's process, not Kaggle's
        return ("connectx_toolkit is the toolkit's name where it is installed, not in a submission: import its "
                "agents and core as the package agents (agents.core, agents.greedy, ...)")
    above = find_above(name, project.home) if project.home else None
    roots = [display(root) for root in project.search_path if root != ROOT]
    where = f"under the import roots ({', '.join(roots)})" if roots else "in the project"
    if above is not None:
        return f"no module {name} {where}; it is in {display(above)}: add --path {display(above)}"
    if in_kaggle_image(name) and not (project.home and locate(name.partition(".")[0], project)):
        return f"no module {name} {where}, {NOT_INSTALLED} (a package of Kaggle's image: {pip_command(name)})"
    file = name.replace(".", "/") + ".py"
    return (f"no module {name} {where}, {NOT_INSTALLED}: the agent's own module is missing beside it (looked for "
            f"{file} in {', '.join(roots) or display(ROOT)}); put it there, or give its folder with --path")


def external_imports(tree: ast.Module, project: Project, virtual: Mapping[str, Module] = {}) -> set[str]:
    """Top-level names of the installed packages (not the standard library) a module imports; an optional
    import of a package that is not installed is left out of the build, and of this list, and so is a package
    not allowed that only a function imports (the module graph noted it)."""
    names = set()
    for name in absolute_imports(tree):
        top = name.partition(".")[0]
        if (top not in virtual and top not in sys.stdlib_module_names and locate(top, project) is None
                and (top in project.allowed or ANY_EXTERNAL in project.allowed)
                and importlib.util.find_spec(top) is not None):
            names.add(top)
    return names


@dataclass
class ModuleGraph:
    """The modules a build embeds, dependencies first (the entry last), notes on optional imports and on imports
    inside functions left out, and those imports (``deferred``: what a failed validation may have died of)."""

    modules: list[Module]
    notes: list[str]
    deferred: list[Problem] = field(default_factory=list)


def first_of_each(problems: list[Problem]) -> list[Problem]:
    """One problem a missing name: ``import torch`` and ``from torch import nn`` are one missing torch."""
    first: dict[str, Problem] = {}
    for problem in problems:
        first.setdefault(problem.reason, problem)
    return list(first.values())


def install_line(problems: list[Problem]) -> str:
    """``; not installed here: .../python -m pip install torch, then --allow-import torch`` for the packages of
    Kaggle's image among ``problems`` that are found nowhere; else nothing."""
    missing_names = [problem.reason.removeprefix("no module ").removesuffix(" here").partition(".")[0]
                     for problem in problems if NOT_INSTALLED in problem.message]
    missing_names = [name for name in dict.fromkeys(missing_names) if in_kaggle_image(name)]
    if not missing_names:
        return ""
    return (f"; not installed here: {sys.executable} -m pip install "
            f"{' '.join(KAGGLE_IMAGE[name] for name in missing_names)}, then "
            + " ".join(f"--allow-import {name}" for name in missing_names))


def deferred_note(problems: list[Problem]) -> str:
    """The one note naming every import inside a function that the build left out."""
    problems = first_of_each(problems)
    listed = "; ".join(problem.short for problem in problems)
    count = "an import" if len(problems) == 1 else f"{len(problems)} imports"
    return (f"{count} inside functions left out (one runs only when its function is called, not when the file "
            f"loads): {listed}; the agent loads without {'it' if len(problems) == 1 else 'them'}, as on Kaggle, "
            "and a game that calls such a function fails there")


# ``ModuleNotFoundError: No module named 'torch'`` (``'torch.nn'``), as a failed validation's reason tells it.
NO_MODULE = re.compile(r"No module named '([^']+)'")


def deferred_advice(reason: str, problems: list[Problem]) -> str:
    """How to have an import inside a function that the validation died of (it called the function), from the
    problem the module graph noted for it; empty for any other failure."""
    found = NO_MODULE.search(reason)
    if found is None:
        return ""
    top = found.group(1).partition(".")[0]
    for problem in problems:
        if problem.package == top:
            return f"; the agent called a function that imports it: {problem.message}"
    return ""


NOT_ALLOWED = " is not allowed without --allow-import "  # in a Problem's reason: installed here, not admitted


def imported_unallowed(problems: list[Problem], imported: list[str]) -> InputError | None:
    """The refusal of a package not allowed that a function imports and that the validation's games imported
    (they called it: installed here, it loaded, but nothing says Kaggle's image has it); None when none was."""
    for problem in problems:
        if NOT_ALLOWED in problem.reason and problem.package in imported:
            return InputError(f"{problem.message}; the validation's games called the function that imports it")
    return None


def module_graph(entry: str, project: Project, virtual: Mapping[str, Module] = {},
                 single_file: bool = False) -> ModuleGraph:
    """Module ``entry`` and every project module it needs, dependencies first (depth-first post-order).

    ``virtual`` holds modules that exist only in memory (an agent gathered from a notebook); they are
    found before the search path. Raises one ``InputError`` naming every import the agent cannot run without.
    ``single_file``: the modules are embedded as text, so a compiled extension module is one of those (left
    out, with a note, where it is imported optionally).
    """
    order: list[Module] = []
    state: dict[str, str] = {}  # name -> "visiting" | "done"; import cycles are legal Python
    notes: list[str] = []
    deferred: list[Problem] = []

    def visit(name: str) -> list[Problem]:
        if name in state:
            return []
        state[name] = "visiting"
        module = virtual[name] if name in virtual else read_module(name, project)
        parent = name.rpartition(".")[0]
        found = project_dependencies(module, module.tree, project, virtual, single_file)
        problems = list(found.problems)
        notes.extend(module.notes)
        notes.extend(found.notes)
        deferred.extend(found.deferred)
        for dependency in ([parent] if parent else []) + found.required:
            problems += visit(dependency)
        for dependency, where, statement, function in found.optional:
            mark = (len(order), set(state), len(notes), len(deferred))
            failed = visit(dependency)
            if failed:  # Kaggle runs the fallback (or never calls the function): the module is left out, and all it brought
                del order[mark[0]:], notes[mark[2]:], deferred[mark[3]:]
                for added in set(state) - mark[1]:
                    del state[added]
                if function:
                    deferred.append(Problem(failed[0].message, f"{where}: `{statement}` in {function} ({dependency} "
                                            f"cannot be built: {failed[0].short})", failed[0].reason))
                else:
                    notes.append(f"{where}: `{statement}` is optional (inside try/except ImportError): {dependency} "
                                 f"cannot be built ({failed[0].short}); built without it, the agent runs its fallback")
        state[name] = "done"
        order.append(module)
        return problems

    problems = visit(entry)
    if problems:
        raise one_error(problems)
    if deferred:
        notes.append(deferred_note(deferred))
    return ModuleGraph(order, list(dict.fromkeys(notes)), deferred)


def discover(entry: str, project: Project, virtual: Mapping[str, Module] = {}) -> list[Module]:
    """The modules of ``module_graph``: ``entry`` and every project module it needs, dependencies first."""
    return module_graph(entry, project, virtual).modules
