"""An agent written in a Jupyter notebook, ``NOTEBOOK.ipynb:FUNCTION``, taken without running the notebook.

A notebook that writes its agent with ``%%writefile main.py`` (any name) builds to what it writes: each
``%%writefile`` cell's text is that file, exactly as IPython writes it (the magic line gone, ``-a``
appending), and the written files form the agent's folder: its ``.py`` files import each other, its other
files are the folder's data files (a bundle carries them). ``written_files`` reads them; the notebook's other
cells are no part of such an agent.

Otherwise the code cells are read in order. Shell lines (``!pip install ...``), line magics (``%time``) and
``get_ipython()`` calls become ``pass``; cells run by a cell magic other than ``%%time``/``%%capture``
(``%%bash``, ``%%html``, ``%%writefile``, whose text the notebook writes, never runs) are left out, and for
those two only the magic line goes. Then FUNCTION and, transitively, every top-level statement binding a
global it uses (imports, helpers, classes, constants, from any cell; ``symtable`` tells a function's globals
from its locals) become one module, in notebook order. Statements that bind nothing it needs —
``env.run(...)``, ``evaluate(...)``, ``render(...)``, loops, prints — never reach the submission.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import json
import os
import re
import shlex
import shutil
import symtable
import tempfile
import textwrap
from dataclasses import dataclass

from connectx_toolkit.building.entry_point import bindings
from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import Module, display, with_origins

KEPT_CELL_MAGICS = ("time", "capture", "timeit")  # their body is Python, run by the notebook
KAGGLE_WORKING = "/kaggle/working/"  # a Kaggle notebook's working directory: where its relative names land
IPYTHON_LINE = re.compile(r"^(\s*)(?:[!%].*|[\w.,\s]+=\s*[!%].*|.*\bget_ipython\(\).*)$")  # `x = !ls` too


@dataclass(frozen=True)
class _Statement:
    source: str
    cell: int
    line: int  # first line in its cell (1-based)
    binds: frozenset[str]
    uses: frozenset[str]
    defines: bool  # a def, class or import: the binding that counts when a name is bound again later


def notebook_cells(path: str) -> list[str]:
    """The code cells' sources; ``InputError`` (one line) for a file that is not a readable notebook."""
    try:
        with open(path, encoding="utf-8") as handle:
            notebook = json.load(handle)
        cells = notebook["cells"]
        sources = []
        for cell in cells:
            if cell.get("cell_type") == "code":
                source = cell.get("source", "")
                sources.append("".join(source) if isinstance(source, list) else str(source))
            else:
                sources.append("")  # cell numbers stay the notebook's own
        return sources
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise InputError(f"cannot read notebook {display(path)}: {error}") from None


def python_of(cell: str) -> str:
    """The cell as plain Python: IPython-only lines become ``pass`` (keeping blocks valid), other cell magics
    leave the whole cell out."""
    lines = cell.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        magic = lines[0].lstrip()[2:].split()[0] if lines[0].strip() != "%%" else ""
        if magic not in KEPT_CELL_MAGICS:
            return ""
        lines = [""] + lines[1:]  # line numbers stay the cell's
    return "\n".join(match.group(1) + "pass" if (match := IPYTHON_LINE.match(line)) else line for line in lines)


def _globals_used(table: symtable.SymbolTable) -> set[str]:
    """Names a nested scope reads from the module's globals (its own locals and enclosing ones excluded)."""
    names = set()
    for symbol in table.get_symbols():
        if symbol.is_global() and symbol.is_referenced():
            names.add(symbol.get_name())
        elif table.get_type() == "class" and symbol.is_referenced() and not symbol.is_local():
            names.add(symbol.get_name())
    for child in table.get_children():
        names |= _globals_used(child)
    return names


def _statement(node: ast.stmt, cell_source: str, cell: int) -> _Statement:
    source = ast.get_source_segment(cell_source, node, padded=False) or ast.unparse(node)
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno] + [d.lineno for d in decorators])
    if decorators:  # get_source_segment starts at the def line
        lines = cell_source.splitlines()
        source = "\n".join(lines[first - 1:node.end_lineno])
    table = symtable.symtable(source, "<cell>", "exec")
    binds, uses = set(), set()
    for symbol in table.get_symbols():
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
            binds.add(symbol.get_name())
        if symbol.is_referenced():
            uses.add(symbol.get_name())
    for child in table.get_children():
        uses |= _globals_used(child)
    defines = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))
    return _Statement(source, cell, first, frozenset(binds), frozenset(uses - {"__name__"}), defines)


def _statements(path: str) -> list[_Statement]:
    statements = []
    for number, cell in enumerate(notebook_cells(path), start=1):
        code = python_of(cell)
        if not code.strip():
            continue
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue  # a cell that is not Python (or not finished) cannot be what the agent uses
        statements += [_statement(node, code, number) for node in tree.body
                       if not isinstance(node, (ast.Expr, ast.For, ast.AsyncFor, ast.While, ast.Assert))]
    return statements


def notebook_module(path: str, function: str | None, name: str) -> tuple[Module, str]:
    """The module holding ``function`` (default ``agent``) and what it uses, and the function's name."""
    statements = _statements(path)
    wanted = function or "agent"
    defining = [s for s in statements if wanted in s.binds and s.defines]
    if not defining:
        functions = sorted({n for s in statements if s.source.lstrip().startswith(("def ", "async def ", "@"))
                            for n in s.binds})
        stars = [s.source for s in statements if s.source.startswith("from ") and s.source.endswith("import *")]
        if stars:
            functions.append(f"and whatever `{stars[-1]}` brings, which the build cannot see into: import the "
                             "function by name")
        if function is None:
            raise InputError(f"{display(path)} defines no function agent: name one, {display(path)}:FUNCTION"
                             + (f" (its functions: {', '.join(functions)})" if functions else ""))
        raise InputError(f"{display(path)} defines no function {function}"
                         + (f" (its functions: {', '.join(functions)})" if functions else ""))
    chosen: set[int] = set()
    needed, seen = [wanted], {wanted}
    while needed:
        global_name = needed.pop()
        binding = [i for i, s in enumerate(statements) if global_name in s.binds]
        last_definition = max((i for i in binding if statements[i].defines), default=None)
        for index in binding:
            if last_definition is not None and index < last_definition:
                continue  # redefined later: the notebook's last def is the one that runs
            chosen.add(index)
            for used in sorted(statements[index].uses - seen):
                seen.add(used)
                needed.append(used)
    lines: list[str] = []
    origins = []
    for index in sorted(chosen):
        statement = statements[index]
        if lines:
            lines += ["", ""]
        first = len(lines) + 1
        lines += statement.source.splitlines()
        origins.append((first, len(lines), f"{path} cell {statement.cell}", statement.line))
    source = with_origins("\n".join(lines) + "\n", tuple(origins))
    return Module(name, os.path.abspath(path), False, source, tuple(origins)), wanted


def module_name(path: str) -> str:
    """The embedded module's name: the notebook's file name as an identifier."""
    stem = re.sub(r"\W", "_", os.path.basename(path)[: -len(".ipynb")]) or "notebook"
    return stem if stem.isidentifier() and not stem[0].isdigit() else f"_{stem}"


@dataclass(frozen=True)
class WrittenFile:
    """A file a notebook writes with ``%%writefile``: its name (relative, ``/`` separated), its text, and the
    cells that wrote it (1-based: the last one that overwrote it and every later ``-a`` append)."""

    name: str
    text: str
    cells: tuple[int, ...]


def _writefile(cell: str) -> tuple[str, bool, str] | None:
    """(file name, append, text) when ``cell`` is a ``%%writefile`` cell, as IPython reads it: a trailing
    newline added, leading blank lines dropped, the cell dedented (which empties whitespace-only lines), the
    magic on the first line at its first column, the rest of the cell written as it is."""
    if not cell.endswith("\n"):
        cell += "\n"
    lines = cell.splitlines(keepends=True)
    while lines and lines[0].isspace():
        lines.pop(0)
    lines = textwrap.dedent("".join(lines)).splitlines(keepends=True)
    if not lines or not lines[0].startswith("%%"):
        return None
    magic, _, arguments = lines[0][2:].rstrip().partition(" ")
    if magic != "writefile":
        return None
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    append = any(word in ("-a", "--append") for word in words)
    names = [word for word in words if not word.startswith("-")]
    if len(names) != 1:
        return None  # IPython refuses it: nothing is written
    return _relative(names[0]), append, "".join(lines[1:])


def _relative(name: str) -> str:
    """The written file's name in the agent's folder: a name under Kaggle's working directory (or relative
    to the notebook's) as it is, any other absolute name by its own name."""
    name = os.path.expanduser(name).replace("\\", "/")
    if name.startswith(KAGGLE_WORKING):
        name = name[len(KAGGLE_WORKING):]
    name = os.path.normpath(name).replace(os.sep, "/")
    if os.path.isabs(name) or name.startswith("../") or name in ("", ".", ".."):
        return os.path.basename(name.rstrip("/")) or "file"
    return name.removeprefix("./")


def written_files(path: str) -> dict[str, WrittenFile]:
    """The files the notebook writes with ``%%writefile``, by name, in the order first written."""
    written: dict[str, WrittenFile] = {}
    for number, cell in enumerate(notebook_cells(path), start=1):
        found = _writefile(cell)
        if found is None:
            continue
        name, append, text = found
        before = written.get(name)
        if append and before is not None:
            written[name] = WrittenFile(name, before.text + text, before.cells + (number,))
        else:
            written[name] = WrittenFile(name, text, (number,))
    return written


_FOLDERS: dict[str, str] = {}  # content hash -> the folder holding those written files (this process's)


def written_folder(files: dict[str, WrittenFile]) -> str:
    """A folder holding exactly ``files`` (one per distinct content in this process, removed at exit): the
    agent's folder, as the notebook leaves its working directory."""
    digest = hashlib.sha256(json.dumps(sorted((f.name, f.text) for f in files.values())).encode()).hexdigest()
    folder = _FOLDERS.get(digest)
    if folder is not None and os.path.isdir(folder):
        return folder
    folder = tempfile.mkdtemp(prefix="connectx-notebook-")
    atexit.register(shutil.rmtree, folder, True)
    os.chmod(folder, 0o755)
    for written in files.values():
        target = os.path.join(folder, *written.name.split("/"))
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as handle:
            handle.write(written.text)
        os.chmod(target, 0o644)
    _FOLDERS[digest] = folder
    return folder


def _top_level_names(text: str) -> set[str]:
    try:
        return set(bindings(ast.parse(text)))
    except SyntaxError:
        return set()


def written_agent(path: str, files: dict[str, WrittenFile], file: str | None, function: str | None) -> str | None:
    """The written file that is the agent, or None when the agent is the notebook's cells.

    ``file`` (``NOTEBOOK.ipynb:FILE``) names it: a written name, or a written file's own name when only one
    has it. Else ``function`` is taken from the written ``.py`` that defines it (``main.py`` among several),
    and without either the notebook's agent is its written ``main.py``, or its one written ``.py``. A
    ``function`` no written file defines is the cells'. ``InputError`` (one line) where it is ambiguous."""
    shown = display(path)
    python = sorted((name for name in files if name.endswith(".py")), key=lambda name: not name.endswith("main.py"))
    if file is not None:
        matches = [name for name in files if name == file] or [name for name in files
                                                               if name.rpartition("/")[2] == file]
        if len(matches) != 1:
            listed = ", ".join(files) or "no file with %%writefile"
            raise InputError(f"{shown} writes {'no file ' + file if not matches else file + ' more than once'} "
                             f"(it writes {listed})")
        if not matches[0].endswith(".py"):
            raise InputError(f"{matches[0]} is a data file {shown} writes, not Python: name its .py, "
                             f"{shown}:{python[0] if python else 'main.py'}")
        return matches[0]
    if function is not None:
        defining = [name for name in python if function in _top_level_names(files[name].text)]
        mains = [name for name in defining if name.rpartition("/")[2] == "main.py"]
        if len(defining) > 1 and len(mains) != 1:
            raise InputError(f"{function} is defined in {', '.join(defining)}, which {shown} writes: name the file, "
                             f"{shown}:{defining[0]}:{function}")
        return (mains or defining or [None])[0]
    mains = [name for name in python if name.rpartition("/")[2] == "main.py"]
    if len(mains) == 1:
        return mains[0]
    if len(python) == 1:
        return python[0]
    if python:
        raise InputError(f"{shown} writes {', '.join(python)}: name the agent's file, {shown}:{python[0]}")
    return None


# A Kaggle dataset's file as a notebook names it: attached datasets are read under /kaggle/input/<dataset>/.
KAGGLE_INPUT = re.compile(r"/kaggle/input/[^'\"\s()]+")


def dataset_files(path: str, name: str) -> list[str]:
    """The Kaggle dataset files (``/kaggle/input/...``) the notebook's cells name, in order: those of the cells
    that also name ``name`` (the file they make from them) when there are any, else all of them. Empty for a
    notebook that cannot be read: this only helps advice along."""
    try:
        cells = notebook_cells(path)
    except InputError:
        return []
    named = [KAGGLE_INPUT.findall(cell) for cell in cells if name in cell]
    found = [item for items in named for item in items] or [item for cell in cells for item in KAGGLE_INPUT.findall(cell)]
    return list(dict.fromkeys(item.rstrip(".,;") for item in found))


def notebook_parts(target: str) -> tuple[str, str | None] | None:
    """``("nb.ipynb", "main.py")`` for ``nb.ipynb:main.py``, ``("nb.ipynb", None)`` for ``nb.ipynb``; None for a
    target that names no notebook."""
    if target.endswith(".ipynb"):
        return target, None
    notebook, sep, file = target.rpartition(".ipynb:")
    if sep and notebook and file:
        return notebook + ".ipynb", file
    return None


__all__ = ["WrittenFile", "dataset_files", "module_name", "notebook_cells", "notebook_module", "notebook_parts", "python_of",
           "written_agent", "written_files", "written_folder"]
