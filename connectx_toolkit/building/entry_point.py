"""Kaggle's entry-point rule, read from a module's syntax tree: ``agent`` if defined, else the last callable.

Kaggle's loader (``kaggle_environments.agent.get_last_callable``) executes the file into a fresh dict and
calls the last callable value in it. A dict keeps the order in which names were *first* bound, with their
*last* values; this module follows the top-level statements the same way without running them, and tells
what each callable is: a function, a class, an object of a class of the file that defines ``__call__``
(``agent = Agent(...)``), a ``functools.partial``, a lambda.
"""

from __future__ import annotations

import ast
import importlib.util
import os
from dataclasses import dataclass

DEFAULT_FUNCTION = "agent"
# Entries the source alone cannot name (a binding inside a top-level ``if`` or loop, a name bound through
# ``globals()``, an ``agent`` that is not callable): the built file takes them from the executed module, as
# Kaggle's loader does. ``function`` is then the name the source suggests, for the report only.
AT_RUN_TIME = "Kaggle's last callable of the executed module"
AGENT_AT_RUN_TIME = "agent if callable once the file has run, else Kaggle's last callable of the executed module"
RUN_TIME_KINDS = (AT_RUN_TIME, AGENT_AT_RUN_TIME)
# Values a name can be bound to that are never callable (a call or a subscript may give a callable).
NOT_CALLABLE = (ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.JoinedStr, ast.ListComp, ast.DictComp,
                ast.SetComp, ast.GeneratorExp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)


@dataclass(frozen=True)
class EntryPoint:
    """The callable to call and why: ``reason`` is what the build report prints after the name; ``kind`` what
    it is (``function``, ``class Agent``, ``object, an instance of Agent``, ``functools.partial``...)."""

    function: str
    reason: str
    kind: str = "function"


def top_level_statements(body: list[ast.stmt], loops: bool = False, main: bool = False,
                         handlers: bool = True) -> list[ast.stmt]:
    """Top-level statements as Kaggle's loader executes them, with the bodies of top-level ``if``/``try``/``with``
    blocks taken in order (and of ``for``/``while`` loops with ``loops``: a loop's body binds names at top level
    too). The body of ``if __name__ == "__main__":`` is left out (its ``else`` kept): Kaggle's loader executes
    the file with ``__name__`` bound to ``"builtins"``; with ``main`` (a notebook's cells, a script run as
    ``__main__``) it is taken. The ``except`` clauses of a ``try`` follow its body (a fallback, run when the
    body fails: taken unless ``handlers`` is false), as both branches of an ``if`` are taken."""
    flat: list[ast.stmt] = []
    blocks = (ast.If, ast.For, ast.While) if loops else (ast.If,)
    for node in body:
        if isinstance(node, ast.If) and not main and is_main_guard(node):
            flat += top_level_statements(node.orelse, loops, main, handlers)
        elif isinstance(node, blocks):
            flat += (top_level_statements(node.body, loops, main, handlers)
                     + top_level_statements(node.orelse, loops, main, handlers))
        elif isinstance(node, (ast.Try, ast.TryStar)):
            flat += top_level_statements(node.body, loops, main, handlers)
            for handler in node.handlers if handlers else ():
                flat += top_level_statements(handler.body, loops, main, handlers)
            flat += (top_level_statements(node.orelse, loops, main, handlers)
                     + top_level_statements(node.finalbody, loops, main, handlers))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            flat += top_level_statements(node.body, loops, main, handlers)
        else:
            flat.append(node)
    return flat


def is_main_guard(node: ast.If) -> bool:
    """``if __name__ == "__main__":`` (either way round): code Kaggle's loader never runs."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
            and any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides))


def executed_statements(tree: ast.Module) -> list[ast.stmt]:
    """The statements of a module that Kaggle's loader may execute at top level, loops' bodies included."""
    return top_level_statements(tree.body, loops=True)


def bindings(tree: ast.Module, handlers: bool = True) -> dict[str, bool]:
    """Top-level names in first-binding order, each with whether its last value is callable."""
    return {name: kind is not None for name, kind in binding_kinds(tree, handlers).items()}


def binding_kinds(tree: ast.Module, handlers: bool = True) -> dict[str, str | None]:
    """Top-level names in first-binding order, each with what its last value is when it is callable
    (``function``, ``class Agent``, ``object, an instance of Agent``, ``functools.partial``, ``lambda``,
    ``imported callable``), else None."""
    bound: dict[str, str | None] = {}
    callable_classes: set[str] = set()  # classes of the file whose instances can be called

    def bind(name: str, kind: str | None) -> None:
        bound[name] = kind  # an existing key keeps its place, as in the loader's dict

    factories: dict[str, str] = {}  # functions of the file that return a new object of one class of the file

    for node in top_level_statements(tree.body, loops=True, handlers=handlers):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bind(node.name, "function")
            made = _made_class(node)
            if made is not None:
                factories[node.name] = made
            else:
                factories.pop(node.name, None)
        elif isinstance(node, ast.ClassDef):
            bind(node.name, f"class {node.name}")
            if _defines_call(node, callable_classes):
                callable_classes.add(node.name)
            else:
                callable_classes.discard(node.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bind(alias.asname or alias.name.partition(".")[0], None)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    name = alias.asname or alias.name
                    # SIZE, PI: constants; a submodule is a module; functions and classes otherwise
                    callable_name = not alias.name.isupper() and not _is_submodule(node, alias.name)
                    bind(name, "imported callable" if callable_name else None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            kind = _value_kind(node.value, bound, callable_classes, factories)
            for target in targets:
                if isinstance(target, ast.Name):
                    bind(target.id, kind)
    return bound


def _made_class(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """``RulesAgent`` for ``def make(...): return RulesAgent(...)``: the one class every ``return`` of the
    function (not of functions nested in it) calls by name, else None."""
    returns: list[ast.Return] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Return):
            returns.append(item)
        elif not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(item))
    made = {item.value.func.id for item in returns if isinstance(item.value, ast.Call)
            and isinstance(item.value.func, ast.Name)}
    if returns and len(made) == 1 and all(isinstance(item.value, ast.Call) for item in returns):
        return made.pop()
    return None


def _defines_call(node: ast.ClassDef, callable_classes: set[str]) -> bool:
    """Whether instances of the class can be called: it defines ``__call__`` or a base of the file does."""
    own = any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__call__"
              for item in node.body)
    return own or any(isinstance(base, ast.Name) and base.id in callable_classes for base in node.bases)


def _value_kind(value: ast.expr, bound: dict[str, str | None], callable_classes: set[str],
                factories: dict[str, str] | None = None) -> str | None:
    """What an assigned value is when it is callable: ``act = connectx.negamax_agent`` binds a function,
    ``agent = Agent()`` (or ``agent = make()``, ``make`` returning ``Agent(...)``) an object when the file's class
    Agent defines ``__call__``; ``SIZE = cfg.ROWS`` and
    other calls' results do not count."""
    if isinstance(value, ast.Lambda):
        return "lambda"
    if isinstance(value, ast.Name):
        return bound.get(value.id)
    if isinstance(value, ast.Attribute):
        return None if value.attr.isupper() else "function"
    if isinstance(value, ast.Call):
        called = value.func
        name = called.id if isinstance(called, ast.Name) else called.attr if isinstance(called, ast.Attribute) else ""
        if name == "partial":
            return "functools.partial"
        if isinstance(called, ast.Name) and name in callable_classes:
            return f"object, an instance of {name}"
        made = (factories or {}).get(name) if isinstance(called, ast.Name) and bound.get(name) == "function" else None
        if made is not None and made in callable_classes:  # agent = make(), make returning RulesAgent(...)
            return f"object, an instance of {made}"
    return None


def _is_submodule(node: ast.ImportFrom, name: str) -> bool:
    """Whether ``from package import name`` imports a module (``from kaggle_environments.envs.connectx import
    connectx``). Found by looking at the package's folders, never by importing anything (the agent's own
    packages must not run in the builder); a relative import is taken as a function or class."""
    if node.level or not node.module:
        return False
    parts = node.module.split(".") + [name]
    try:
        spec = importlib.util.find_spec(parts[0])  # a top-level name: searched, not imported
    except (ImportError, ValueError):
        return False
    locations = list(spec.submodule_search_locations or []) if spec else []
    for index, part in enumerate(parts[1:], start=1):
        last = index == len(parts) - 1
        folders = [os.path.join(where, part) for where in locations if os.path.isdir(os.path.join(where, part))]
        if last:
            return bool(folders) or any(os.path.isfile(os.path.join(where, part + ".py")) for where in locations)
        locations = folders
    return False


def merely_calls(tree: ast.Module, caller: str, callee: str) -> bool:
    """Whether the top-level function ``caller`` only returns ``callee(...)`` (``def connectx_bot(obs, config):
    return agent(obs, config)``): Kaggle calling one plays the other."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == caller:
            body = [item for item in node.body
                    if not (isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant))]
            return (len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call)
                    and isinstance(body[0].value.func, ast.Name) and body[0].value.func.id == callee)
    return False


def last_callable(tree: ast.Module) -> str | None:
    """The name Kaggle's loader would call, or None when the module binds no callable."""
    callables = [name for name, is_callable in bindings(tree).items() if is_callable]
    return callables[-1] if callables else None


def conditional_names(tree: ast.Module) -> set[str]:
    """Names bound only inside a top-level ``if``, ``for`` or ``while``, or an ``except`` clause (whether they are
    bound, and to what, is known once the file has run)."""
    always = {name for name in bindings(ast.Module([node for node in tree.body
                                                    if not isinstance(node, (ast.If, ast.For, ast.While))], []),
                                        handlers=False)}
    return set(binding_kinds(tree)) - always


def binding_kinds_with_loops(tree: ast.Module) -> dict[str, str | None]:
    """``binding_kinds`` with the bodies of top-level loops taken too."""
    flat = top_level_statements(tree.body, loops=True)
    return binding_kinds(ast.Module(flat, []))


def binds_computed_names(tree: ast.Module) -> bool:
    """Whether the top level binds names the source does not spell: ``globals()[name] = f``,
    ``globals().update(...)``, ``exec(...)``, ``setattr(sys.modules[__name__], ...)``."""
    for node in top_level_statements(tree.body, loops=True):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for inner in ast.walk(node):
            if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                    and inner.func.id in ("globals", "vars", "locals", "exec", "setattr")):
                return True
    return False


def entry_point(tree: ast.Module, named: str | None = None) -> EntryPoint | None:
    """The entry of a module: ``named`` (from ``:FUNCTION``), else ``agent``, else the last callable; where
    the source alone cannot say, Kaggle's rule applied to the executed module (``RUN_TIME_KINDS``)."""
    kinds = binding_kinds(tree)
    last = last_callable(tree)
    if named is not None:
        return EntryPoint(named, "named by :FUNCTION", kinds.get(named) or "callable")
    conditional = conditional_names(tree)
    computed = binds_computed_names(tree)
    if DEFAULT_FUNCTION in conditional or (DEFAULT_FUNCTION in kinds and kinds[DEFAULT_FUNCTION] is None):
        # ``agent = SimpleAgent(game)``, ``agent = make()``, ``if ...: agent = f``: Kaggle calls its last callable
        guess = DEFAULT_FUNCTION if kinds.get(DEFAULT_FUNCTION) else last or DEFAULT_FUNCTION
        return EntryPoint(guess, AGENT_AT_RUN_TIME, AGENT_AT_RUN_TIME)
    if DEFAULT_FUNCTION not in kinds and (computed or (last is None and conditional)
                                          or any(kinds.get(name) for name in conditional)
                                          or (last is not None and last in conditional)):
        return EntryPoint(last or "?", AT_RUN_TIME, AT_RUN_TIME)
    if DEFAULT_FUNCTION in kinds:
        kind = kinds[DEFAULT_FUNCTION] or "callable"
        own = f"the file's {_kind_word(kind)} agent" + (f", {kind.partition(', ')[2]}" if ", " in kind else "")
        if last not in (None, DEFAULT_FUNCTION):
            delegate = ", which merely calls agent" if merely_calls(tree, last, DEFAULT_FUNCTION) else ""
            return EntryPoint(DEFAULT_FUNCTION, f"{own}; Kaggle's loader alone would call {last}{delegate}", kind)
        return EntryPoint(DEFAULT_FUNCTION, own, kind)
    if last is None:
        return None
    kind = kinds[last] or "callable"
    return EntryPoint(last, "Kaggle's last callable" + ("" if kind == "function" else f", {_article(kind)}"), kind)


def _kind_word(kind: str) -> str:
    """``function``, ``class``, ``object``: the word before the name in a reason (``the file's object agent,
    an instance of Agent``)."""
    if kind.startswith("class "):
        return "class"
    if kind.startswith("object, "):
        return "object"
    return {"imported callable": "imported", "callable": "callable"}.get(kind, kind)


def _article(kind: str) -> str:
    """``a class Agent``... for a reason that follows Kaggle's last callable."""
    if kind.startswith("object, "):
        return kind.partition(", ")[2]
    return ("an " if kind[0] in "aeiou" else "a ") + kind


__all__ = ["AGENT_AT_RUN_TIME", "AT_RUN_TIME", "DEFAULT_FUNCTION", "NOT_CALLABLE", "RUN_TIME_KINDS",
           "binds_computed_names", "conditional_names", "EntryPoint", "binding_kinds",
           "binding_kinds_with_loops", "bindings", "entry_point", "last_callable",
           "merely_calls"]
