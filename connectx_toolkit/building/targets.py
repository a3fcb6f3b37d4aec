"""What to build: an AGENT argument (module name, file, folder, ``TARGET:FUNCTION``) or a function object.

The forms, tried in this order:

1. a function object (from Python): gathered with its closure (``building.closure``);
2. a notebook, ``NOTEBOOK.ipynb[:FILE][:FUNCTION]``: a file it writes with ``%%writefile`` (``main.py``, or
   the one ``.py`` it writes, or the one that defines FUNCTION), built as that file in a folder of the files
   the notebook writes; else FUNCTION and what it uses from its cells (``building.notebook``);
3. a path to a ``.py`` file or a folder, anywhere. A file's folder is its import root, as on Kaggle (the
   loader puts a submission's folder on ``sys.path``); a file inside a package is also importable under
   its dotted name, so its relative imports work. A folder is ``main.py`` in it (Kaggle's multi-file
   convention) or, without one, the package its ``__init__.py`` makes;
4. a module name in the agent package (``greedy``) or a dotted module of the project (``agents.greedy``).

Without ``:FUNCTION`` the entry is Kaggle's rule (``building.entry_point``): ``agent`` if the module
defines it, else the last callable. Import roots (``building.roots``): a file's folder first, then the
roots the caller gives (``--path``, ``PYTHONPATH``), then the project's own folder, so an agent kept
elsewhere may still import ``agents.core``.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, replace
from typing import Any

from connectx_toolkit.building.closure import gather
from connectx_toolkit.building.entry_point import (DEFAULT_FUNCTION, NOT_CALLABLE, RUN_TIME_KINDS, entry_point,
                                                  executed_statements)
from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.notebook import (WrittenFile, module_name, notebook_module, notebook_parts,
                                              written_agent, written_files, written_folder)
from connectx_toolkit.building.roots import locate, unique
from connectx_toolkit.building.sources import Module, Project, agent_names, binds, display, read_source


@dataclass(frozen=True)
class Entry:
    """A resolved target: call ``function`` of ``module`` in ``project`` (``virtual`` modules live in memory)."""

    label: str
    module: str
    function: str
    project: Project
    virtual: tuple[Module, ...] = ()
    rebuild: str | None = None
    reason: str = "the file's function agent"  # why ``function`` is the entry (the build report prints it)
    kind: str = "function"  # what the entry is: ``function``, ``object, an instance of Agent``... (entry_point)

    @property
    def virtual_modules(self) -> dict[str, Module]:
        return {module.name: module for module in self.virtual}


def split_function(target: str) -> tuple[str, str | None]:
    """``("my_bot.py", "act")`` for ``"my_bot.py:act"``; ``(target, None)`` when there is no ``:FUNCTION``."""
    base, sep, function = target.rpartition(":")
    if not sep or not base:
        return target, None
    if not function.isidentifier():
        if base.endswith(".ipynb"):
            return target, None  # NOTEBOOK.ipynb:FILE: a file the notebook writes
        raise InputError(f"{target!r}: {function!r} after ':' is not a function name")
    return base, function


def resolve_target(target: Any, project: Project = Project(), function: str | None = None) -> Entry:
    """The ``Entry`` for ``target``; raises ``InputError`` (one line) when it names nothing buildable."""
    if callable(target) and not isinstance(target, (str, os.PathLike)):
        if function is not None:
            raise InputError("function= applies to a file or module target, not to a function object")
        module = gather(target)
        cwd = os.getcwd()
        project = replace(project, search_path=unique((cwd, *project.search_path)))
        return Entry(f"{target.__module__}.{target.__qualname__}", module.name, target.__name__, project,
                     (module,), rebuild=f"build_submission.build({target.__name__}, ...) in Python",
                     reason="the function given")
    if isinstance(target, os.PathLike):
        target = os.fspath(target)
    if not isinstance(target, str) or not target.strip():
        raise InputError(f"unknown agent {target!r}: give a module name, a .py file, a folder or a function")
    base, named = split_function(target)
    if named and function and named != function:
        raise InputError(f"{target!r} names {named} but function={function!r}")
    wanted = named or function
    path = os.path.expanduser(base)
    if (os.sep in base or base.endswith(".py") or os.path.exists(path) or base.startswith("~")
            or notebook_parts(base) is not None):
        entry = _path_entry(target, path, wanted, project)
    else:
        entry = _settle_function(_module_entry(target, base, wanted or DEFAULT_FUNCTION, project), wanted)
    _require_callable(entry)
    return entry


def _entry_module(entry: Entry) -> Module:
    module = entry.virtual_modules.get(entry.module)
    if module is None:
        found = locate(entry.module, entry.project)
        assert found is not None
        if os.path.isdir(found[0]):
            raise InputError(f"{display(found[0])} is a folder without __init__.py or main.py: name a file in it")
        module = Module(entry.module, found[0], found[1], read_source(found[0]))
    return module


def _settle_function(entry: Entry, named: str | None) -> Entry:
    """Kaggle's entry-point rule: ``named``, else ``agent`` if defined, else the last callable."""
    module = _entry_module(entry)
    chosen = entry_point(module.tree, named)
    if chosen is None:
        raise InputError(f"{display(module.path)} defines no callable (Kaggle calls the file's last callable)")
    return replace(entry, function=chosen.function, reason=chosen.reason, kind=chosen.kind)


def _module_entry(target: str, name: str, function: str, project: Project) -> Entry:
    for candidate in (f"{project.package}.{name}", name):
        if locate(candidate, project) is not None:
            return Entry(target, candidate, function, project)
    raise InputError(
        f"unknown agent {target!r}: no file or folder {name}, no module {project.package}.{name} "
        f"(agents: {', '.join(agent_names(project)) or 'none'})"
    )


def _path_entry(target: str, path: str, function: str | None, project: Project) -> Entry:
    notebook = notebook_parts(path)
    if notebook is not None and (os.path.isfile(notebook[0]) or notebook[1] is not None):
        if not os.path.isfile(notebook[0]):
            raise InputError(f"unknown agent {target!r}: no notebook {notebook[0]}")
        entry = _notebook_entry(target, os.path.abspath(notebook[0]), notebook[1], function, project)
    else:
        entry = _settle_function(_locate_path(target, path, function or DEFAULT_FUNCTION, project), function)
    # The file names the agent by its path in the repository, or else by its folder's or file's own name:
    # where it is kept changes no byte.
    full = os.path.abspath(path).rstrip("/" + os.sep)
    name = display(full) if display(full) != full else os.path.basename(full) or target
    short = name + (f":{function}" if function else "")
    return replace(entry, label=short, rebuild=f"python build_submission.py {short}")


def _notebook_entry(target: str, path: str, file: str | None, function: str | None, project: Project) -> Entry:
    """The file the notebook writes with ``%%writefile`` that is the agent, built as that file in a folder of
    every file the notebook writes (its other files are its modules and data); else the notebook's function
    and what it uses from its cells, as one module in memory, the notebook's folder its root (after the
    folder of its written files: a cell may import a module the notebook writes)."""
    files = written_files(path)
    chosen = written_agent(path, files, file, function)
    folder = written_folder(files) if files else None
    if chosen is not None and folder is not None:
        located = os.path.join(folder, *chosen.split("/"))
        entry = _locate_path(target, located, function or DEFAULT_FUNCTION, project)
        entry = _settle_function(replace(entry, virtual=_written_modules(path, files, chosen, folder)), function)
        cells = ", ".join(str(cell) for cell in files[chosen].cells)
        return replace(entry, reason=f"{entry.reason}; {chosen} as {display(path)} writes it "
                                     f"(%%writefile, cell{'s' if ',' in cells else ''} {cells})")
    module, function = notebook_module(path, function, module_name(path))
    reason = "named by :FUNCTION" if function and target.endswith(f":{function}") else "the notebook's function agent"
    roots = (folder, os.path.dirname(path)) if folder else (os.path.dirname(path),)
    home = replace(project, home=project.home or os.path.dirname(path))  # its bundle: the notebook's folder
    return Entry(target, module.name, function, _with_roots(home, *roots), (module,), reason=reason)


def _written_modules(notebook: str, files: dict[str, WrittenFile], chosen: str, folder: str) -> tuple[Module, ...]:
    """The written modules beside the agent's file, each told to be where the notebook writes it (beside the
    notebook: ``main.py:7``, not the temporary folder's), its text as written."""
    home = chosen.rpartition("/")[0]
    if f"{home}/__init__.py".lstrip("/") in files:
        return ()  # a package: its modules are named from the folder, as any package's
    modules = []
    for name, written in files.items():
        stem = name[len(home) + 1:] if home else name
        if not name.endswith(".py") or "/" in stem or not stem[:-3].isidentifier():
            continue
        where = os.path.join(os.path.dirname(notebook), *name.split("/"))
        modules.append(Module(stem[:-3], os.path.join(folder, *name.split("/")), False, written.text,
                              ((1, max(1, written.text.count("\n")), where, 1),)))
    return tuple(modules)


def _locate_path(target: str, path: str, function: str, project: Project) -> Entry:
    if not os.path.exists(path):
        raise InputError(f"unknown agent {target!r}: no file or folder {path}")
    path = os.path.abspath(path)
    if os.path.isdir(path):
        main = os.path.join(path, "main.py")
        if os.path.isfile(main):
            path = main
        elif os.path.isfile(os.path.join(path, "__init__.py")):
            root, name = _import_root(path)
            # The agent's folder (its data files, in a bundle) is the package's own, not the root above it.
            return Entry(target, name, function, replace(_with_roots(project, root), home=path))
        else:
            raise InputError(f"unknown agent {target!r}: folder {display(path)} holds neither main.py nor __init__.py")
    if not path.endswith(".py"):
        raise InputError(f"unknown agent {target!r}: {display(path)} is not a .py file")
    folder = os.path.dirname(path)
    stem = os.path.basename(path)[:-3]
    if os.path.isfile(os.path.join(folder, "__init__.py")):
        root, package = _import_root(folder)
        return Entry(target, f"{package}.{stem}", function, _with_roots(project, folder, root))
    if stem.isidentifier():
        return Entry(target, stem, function, _with_roots(project, folder))
    # Not importable by its name (``my-bot.py``): it is embedded under a name of its own.
    name = re.sub(r"\W", "_", stem)
    name = name if name.isidentifier() else f"_{name}"
    module = Module(name, path, False, read_source(path))
    return Entry(target, name, function, _with_roots(project, folder), (module,))


def _import_root(package_dir: str) -> tuple[str, str]:
    """The first folder above ``package_dir`` that is not a package, and the package's dotted name there."""
    parts = []
    folder = package_dir
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    name = ".".join(reversed(parts))
    if not all(part.isidentifier() for part in parts):
        raise InputError(f"package folder {display(package_dir)} is not importable as {name!r}")
    return folder, name


def _with_roots(project: Project, *roots: str) -> Project:
    home = project.home or (roots[0] if roots else None)
    return replace(project, search_path=unique((*roots, *project.search_path)), home=home)


def _require_callable(entry: Entry) -> None:
    """The entry module must bind the function where Kaggle's loader executes it (at top level, or inside a
    top-level ``with``, ``try``, ``if`` or loop), to something that can be called; an entry found when the file
    has run is Kaggle's loader's to find."""
    if entry.kind in RUN_TIME_KINDS:
        return
    module = _entry_module(entry)
    executed = executed_statements(module.tree)
    if not any(binds(statement, entry.function) for statement in executed):
        wanted = "agent(obs, config)" if entry.function == DEFAULT_FUNCTION else f"{entry.function}"
        functions = [n.name for n in executed if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        hint = f" (its functions: {', '.join(functions)}; pick one with AGENT:FUNCTION)" if functions else ""
        raise InputError(f"{display(module.path)} defines no top-level {wanted}{hint}")
    last = None
    for node in executed:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == entry.function
                                                for t in node.targets):
            last = node.value
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            if binds(node, entry.function):
                last = None
    if isinstance(last, NOT_CALLABLE):
        raise InputError(f"{module.where(last.lineno)}: {entry.function} is not callable "
                         f"(bound to {ast.unparse(last)[:40]})")
