"""Gathering a function object's closure: an agent defined in a notebook or a script's ``__main__``.

The function's own source and, transitively, every global it refers to become one module's source:

- functions and classes defined beside it: their source (``inspect``), scanned in turn — function bodies
  through their bytecode (``LOAD_GLOBAL``, nested functions and comprehensions included), decorators,
  default values, base classes and class bodies through their syntax tree;
- modules: ``import numpy as np``; functions and classes from an importable module:
  ``from agents.core.position import Position as Position`` (project modules are then inlined as usual);
- constants with a literal value (numbers, strings, bytes, None, and tuples/lists/dicts/sets of them),
  and numpy arrays of numbers: as the notebook's cells (or the script) last assign them, since Kaggle
  runs the submission from its source (``calls = 0``, however often the agent ran in the notebook); a
  value the cells compute (``W = np.zeros(7)``) is taken as it is now. Either way, a value that differs
  from the live one is named in a note (``building.cell_sources``).

Anything else a gathered definition refers to (an environment object, an open file, a closure over local
variables) cannot be carried, and is an ``InputError`` naming the global. Names the function never
refers to are left behind, so a notebook's other cells do not leak into the submission. Annotations are
not evaluated in the result (``from __future__ import annotations``): a type hint never drags in a module.
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import linecache
import sys
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from connectx_toolkit.building.cell_sources import binding, cell_of, cells
from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import Module, with_origins

NOTEBOOK_MODULE = "__notebook__"  # the gathered module's name inside the submission
LITERAL_ATOMS = (int, float, complex, str, bytes, bool, type(None))
GLOBAL_OPS = {"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL", "STORE_NAME"}


@dataclass
class _Definition:
    name: str
    source: str
    order: tuple[str, int]  # (file, line): notebook cells and script lines keep their order
    needs_first: set[str] = field(default_factory=set)  # globals evaluated when the definition runs


def gather(function: Callable[..., Any]) -> Module:
    """The module holding ``function`` and everything it refers to; its entry is ``function.__name__``."""
    if not isinstance(function, types.FunctionType):
        raise InputError(f"cannot build {function!r}: give a function defined with def")
    if function.__name__ == "<lambda>":
        raise InputError("cannot build a lambda: define the agent with def")
    if function.__closure__:
        names = ", ".join(function.__code__.co_freevars)
        raise InputError(
            f"{function.__name__} uses local variables of an enclosing function ({names}): define it at top level"
        )
    return _Gatherer(function).module()


class _Gatherer:
    def __init__(self, function: types.FunctionType) -> None:
        self.entry = function
        self.namespace = function.__globals__
        self.module_name = function.__module__
        self.imports: dict[str, str] = {}
        self.constants: dict[str, str] = {}
        self.definitions: dict[str, _Definition] = {}
        self.aliases: dict[str, str] = {}
        self.seen: set[str] = set()
        self.pending: list[tuple[str, str]] = []
        self.notes: list[str] = []

    def module(self) -> Module:
        self._define_function(self.entry.__name__, self.entry)
        self.seen.add(self.entry.__name__)
        while self.pending:
            name, user = self.pending.pop()
            self._carry(name, user)
        lines = ["from __future__ import annotations", ""]
        lines += sorted(self.imports.values())
        lines += [""] + [self.constants[name] for name in sorted(self.constants)]
        origins = []
        for definition in self._definition_order():
            text = definition.source.rstrip("\n")
            lines += ["", ""]
            first = sum(line.count("\n") + 1 for line in lines) + 1  # the line ``text`` starts on
            origins.append((first, first + text.count("\n"), *definition.order))
            lines += [text]
        if self.aliases:
            lines += ["", ""] + [f"{alias} = {name}" for alias, name in sorted(self.aliases.items())]
        source = "\n".join(lines) + "\n"
        label = f"<function {self.entry.__module__}.{self.entry.__qualname__}>"
        # a notebook cell's file (ipykernel's /tmp/ipykernel_PID/HASH.py) is told as the cell, In [N]
        origins = [(first, last, cell_of(origin, self.namespace) or origin, line) for first, last, origin, line in origins]
        return Module(NOTEBOOK_MODULE, label, False, with_origins(source, tuple(origins)), tuple(origins),
                      tuple(self.notes))

    # -- what a name is bound to ---------------------------------------------------------------------

    def _need(self, names: set[str], user: str) -> None:
        for name in sorted(names):
            if name not in self.seen:
                self.seen.add(name)
                self.pending.append((name, user))

    def _carry(self, name: str, user: str) -> None:
        if name not in self.namespace:
            return  # a builtin, or a name that is undefined unbuilt too
        value = self.namespace[name]
        if isinstance(value, types.ModuleType):
            self.imports[name] = _import_line(value.__name__, name)
        elif (original := self._undecorated(name, value)) is not None:
            self.seen.add(original.__name__)
            self._define_function(name, original)
        elif self._is_local(value):
            if getattr(value, "__closure__", None):
                free = ", ".join(value.__code__.co_freevars)
                raise InputError(
                    f"global {name!r} used by {user}() is {value.__qualname__}, which uses local variables of an "
                    f"enclosing function ({free}): define it at top level"
                )
            own = value.__name__
            if own != name:
                self.aliases[name] = own
                if own in self.seen:
                    return
                self.seen.add(own)
                if self.namespace.get(own) is not value:
                    raise InputError(f"global {name!r} used by {user}() is {own}, no longer bound to that name")
            if isinstance(value, type):
                self._define_class(own, value)
            else:
                self._define_function(own, value)
        elif _importable(value):
            owner, qualname = value.__module__, value.__qualname__
            alias = f" as {name}" if qualname != name else ""
            self.imports[name] = f"from {owner} import {qualname}{alias}"
        elif _is_literal(value) and (text := _literal_text(value)) is not None:
            self.constants[name] = f"{name} = {self._as_written(name, text, value)}"
        elif (text := _array_text(value)) is not None:
            self.constants[name] = f"{name} = {self._as_written(name, text, value)}"
        else:
            raise InputError(
                f"global {name!r} used by {user}() is a {type(value).__name__} object, which cannot be carried into a "
                "submission (carried: functions, classes, modules and literal constants); create it inside the agent"
            )

    def _as_written(self, name: str, live_text: str, value: Any) -> str:
        """A constant's source: its literal as the cells last assign it, else (computed there, or never
        assigned in them) its live value; a note when the two differ."""
        known = cells(self.namespace)
        if not known:
            return live_text  # a function from nowhere we can read: its live value, as before
        found = binding(self.namespace, name)
        if found is None:
            self.notes.append(f"`{name}` is not assigned in the cells: taken as it is now ({_short(live_text)})")
            return live_text
        if found.literal is None:
            self.notes.append(f"`{name}` is computed in {found.where} (`{found.statement}`): taken as built "
                              f"({_short(live_text)})")
            return live_text
        try:
            same = ast.literal_eval(found.literal) == value and type(ast.literal_eval(found.literal)) is type(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            same = False
        if not same:
            self.notes.append(f"`{name}` is {_short(live_text)} here, {_short(found.literal)} in {found.where}: "
                              f"the submission starts from {_short(found.literal)}")
        return found.literal

    def _undecorated(self, name: str, value: Any) -> types.FunctionType | None:
        """The function a decorator wrapped, when ``name`` is bound to the wrapper (``@lru_cache``, ``@memo``):
        found through ``__wrapped__`` or the wrapper's closure; its source carries the decorator line."""
        if isinstance(value, types.FunctionType) and value.__name__ == name and not value.__closure__:
            return None
        queue, visited = [value], set()
        while queue and len(visited) < 32:
            item = queue.pop(0)
            if id(item) in visited:
                continue
            visited.add(id(item))
            if (item is not value and isinstance(item, types.FunctionType) and item.__name__ == name
                    and item.__globals__ is self.namespace and not item.__closure__):
                return item
            wrapped = getattr(item, "__wrapped__", None) if not isinstance(item, types.ModuleType) else None
            if wrapped is not None:
                queue.append(wrapped)
            for cell in getattr(item, "__closure__", None) or () if isinstance(item, types.FunctionType) else ():
                try:
                    queue.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
        return None

    def _is_local(self, value: Any) -> bool:
        """A function or class defined in the function's own module (notebook cells, the script)."""
        if isinstance(value, types.FunctionType):
            return value.__globals__ is self.namespace
        return isinstance(value, type) and value.__module__ == self.module_name and not _importable_by_name(value)

    # -- definitions -----------------------------------------------------------------------------------

    def _define_function(self, name: str, function: types.FunctionType) -> None:
        if function.__name__ == "<lambda>":
            source = _source_of(function, name)
            tree = ast.parse(source)
            if not (len(tree.body) == 1 and isinstance(tree.body[0], ast.Assign)
                    and [ast.unparse(t) for t in tree.body[0].targets] == [name]):
                raise InputError(f"global {name!r} is a lambda whose source is not `{name} = lambda ...`: use def")
            node = tree.body[0].value
        else:
            source = _source_of(function, name)
            node = _single_definition(source, name, (ast.FunctionDef, ast.AsyncFunctionDef))
        first = _definition_time_names(node)
        body = _code_globals(function.__code__)
        self.definitions[name] = _Definition(name, source, _position(function.__code__), first)
        self._need((first | body) - {name}, name)

    def _define_class(self, name: str, cls: type) -> None:
        source, order = _class_source(cls)
        node = _single_definition(source, name, (ast.ClassDef,))
        first = _definition_time_names(node)
        body: set[str] = set()
        for member in vars(cls).values():
            for function in _functions_in(member):
                body |= _code_globals(function.__code__)
        self.definitions[name] = _Definition(name, source, order, first - {name})
        self._need((first | body) - {name}, name)

    def _definition_order(self) -> list[_Definition]:
        """Source order, except that what a definition evaluates when it runs (a base class, a decorator)
        comes before it."""
        ordered: list[_Definition] = []
        placed: set[str] = set()

        def place(definition: _Definition, chain: tuple[str, ...]) -> None:
            if definition.name in placed or definition.name in chain:
                return
            for name in sorted(definition.needs_first):
                target = self.aliases.get(name, name)
                if target in self.definitions:
                    place(self.definitions[target], chain + (definition.name,))
            placed.add(definition.name)
            ordered.append(definition)

        for definition in sorted(self.definitions.values(), key=lambda d: d.order):
            place(definition, ())
        return ordered


# ---------------------------------------------------------------------------------------------------
# Sources and names


def _source_of(function: types.FunctionType, name: str) -> str:
    try:
        return textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        raise InputError(
            f"the source of {name}() is not available (defined by exec?): define it in a file or cell"
        ) from None


def _class_source(cls: type) -> tuple[str, tuple[str, int]]:
    """The class's source, and its file and first line."""
    try:
        lines, first = inspect.getsourcelines(cls)
        return textwrap.dedent("".join(lines)), (inspect.getsourcefile(cls) or "?", first)
    except (OSError, TypeError):
        pass
    # Notebooks: __main__ has no file, so inspect cannot find a class; its methods know their cell.
    for member in vars(cls).values():
        for function in _functions_in(member):
            lines = linecache.getlines(function.__code__.co_filename)
            start = function.__code__.co_firstlineno - 1
            for index in range(min(start, len(lines) - 1), -1, -1):
                stripped = lines[index].lstrip()
                if stripped.startswith(f"class {cls.__name__}") and stripped[6 + len(cls.__name__)] in "(:":
                    while index > 0 and lines[index - 1].lstrip().startswith("@"):
                        index -= 1
                    block = "".join(inspect.getblock(lines[index:]))
                    return textwrap.dedent(block), (function.__code__.co_filename, index + 1)
    raise InputError(f"the source of class {cls.__name__} is not available: define it in a file or cell")


def _single_definition(source: str, name: str,
                       kinds: tuple[type[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef], ...]) -> ast.AST:
    tree = ast.parse(source)
    if len(tree.body) != 1 or not isinstance(tree.body[0], kinds) or tree.body[0].name != name:
        raise InputError(f"the source found for {name} does not define {name} (was it redefined?)")
    return tree.body[0]


def _definition_time_names(node: ast.AST) -> set[str]:
    """Names evaluated when a def or class statement runs: decorators, defaults, bases, class bodies."""
    roots: list[ast.AST] = []
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        roots += getattr(node, "decorator_list", [])
        roots += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
    elif isinstance(node, ast.ClassDef):
        roots += node.decorator_list + node.bases + [k.value for k in node.keywords]
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                roots += statement.decorator_list + statement.args.defaults
                roots += [d for d in statement.args.kw_defaults if d is not None]
            elif isinstance(statement, ast.ClassDef):
                roots.append(statement)
            elif isinstance(statement, ast.AnnAssign):
                if statement.value is not None:
                    roots.append(statement.value)
            else:
                roots.append(statement)
    names = {n.id for root in roots for n in ast.walk(root) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return names - set(dir(builtins))


def _code_globals(code: types.CodeType) -> set[str]:
    """Global names a code object (and every code object nested in it) reads or writes."""
    names: set[str] = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in GLOBAL_OPS:
            names.add(instruction.argval)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _code_globals(constant)
    return names - set(dir(builtins))


def _functions_in(member: Any) -> list[types.FunctionType]:
    if isinstance(member, (staticmethod, classmethod)):
        member = member.__func__
    if isinstance(member, property):
        return [f for f in (member.fget, member.fset, member.fdel) if isinstance(f, types.FunctionType)]
    return [member] if isinstance(member, types.FunctionType) else []


def _position(code: types.CodeType) -> tuple[str, int]:
    return (code.co_filename, code.co_firstlineno)


def _import_line(module: str, name: str) -> str:
    if module == name:
        return f"import {name}"
    return f"import {module} as {name}"


def _importable_by_name(value: Any) -> bool:
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    if module is None or module.__name__ == "__main__":
        return False
    if not getattr(module, "__file__", None) and module.__name__ not in sys.builtin_module_names:
        return False  # a module made at run time (a notebook's namespace): nothing to import it from
    target: Any = module
    for part in getattr(value, "__qualname__", "").split("."):
        target = getattr(target, part, None)
    return target is value


def _importable(value: Any) -> bool:
    """A function, class or builtin that ``from module import name`` gives back."""
    if not isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)) and not callable(value):
        return False
    qualname = getattr(value, "__qualname__", "")
    return bool(qualname) and "." not in qualname and "<" not in qualname and _importable_by_name(value)


def _is_literal(value: Any, depth: int = 0) -> bool:
    if depth > 50:
        return False
    if type(value) in LITERAL_ATOMS:
        return True
    if type(value) in (tuple, list, set, frozenset):
        return all(_is_literal(item, depth + 1) for item in value)
    if type(value) is dict:
        return all(_is_literal(k, depth + 1) and _is_literal(v, depth + 1) for k, v in value.items())
    return False


def _array_text(value: Any) -> str | None:
    """A numpy array of numbers or booleans as ``numpy.array(<list>, dtype=...)`` (weights kept in a notebook)."""
    numpy = sys.modules.get("numpy")
    if numpy is None or type(value) is not numpy.ndarray or value.dtype.kind not in "biuf" or value.size > 1_000_000:
        return None
    if value.dtype.kind == "f" and not numpy.isfinite(value).all():
        return None
    return f"__import__('numpy').array({value.tolist()!r}, dtype={str(value.dtype)!r})"


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _literal_text(value: Any) -> str | None:
    """Source text that evaluates back to ``value`` (sets sorted where possible, for stable output)."""
    if type(value) is frozenset:
        inner = _literal_text(set(value))
        return None if inner is None else f"frozenset({inner})"
    text = repr(value)
    if type(value) is set and value:
        try:  # a set's repr follows string hashing, which changes from run to run
            text = "{" + ", ".join(repr(item) for item in sorted(value)) + "}"
        except TypeError:
            pass
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None  # float('nan'), inf and their kin have no literal
    return text if back == value and type(back) is type(value) else None
