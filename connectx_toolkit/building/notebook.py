"""An agent written in a Jupyter notebook, ``NOTEBOOK.ipynb:FUNCTION``, taken without running the notebook.

The code cells are read in order. Shell lines (``!pip install ...``), line magics (``%time``) and
``get_ipython()`` calls become ``pass``; cells run by a cell magic other than ``%%time``/``%%writefile``/
``%%capture`` (``%%bash``, ``%%html``...) are left out, and for those three only the magic line goes. Then
FUNCTION and, transitively, every top-level statement binding a global it uses (imports, helpers,
classes, constants, from any cell; ``symtable`` tells a function's globals from its locals) become one
module, in notebook order. Statements that bind nothing it needs — ``env.run(...)``, ``evaluate(...)``,
``render(...)``, loops, prints — never reach the submission.
"""

from __future__ import annotations

import ast
import json
import os
import re
import symtable
from dataclasses import dataclass

from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import Module, display, with_origins

KEPT_CELL_MAGICS = ("time", "writefile", "capture", "timeit")  # their body is Python
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


__all__ = ["module_name", "notebook_cells", "notebook_module", "python_of"]
