"""The entry wrapper: the last callable of a file the builder writes, calling the agent's entry as Kaggle would.

Kaggle's loader calls a file's last callable, passing it only as many arguments as its ``__code__`` declares,
and both of them to a callable without one (an object with ``__call__``, a class, a ``functools.partial``).
The single file (``template``) and a bundle's ``main.py`` (``bundle``) end with this one wrapper around the
entry, so an entry of any kind is called exactly as Kaggle would call it unwrapped.

``building/kaggle_check.py`` and ``building.errors.format_agent_error`` know the wrapper by the globals it
calls through (``WRAPPER_GLOBALS``): an error raised by the call itself (a wrong signature) is told at the
entry's own ``file:line``, never at the wrapper's.
"""

from __future__ import annotations

import functools
from typing import Any

WRAPPER_GLOBALS = ("_AGENT", "_AGENT_ARGC")  # kaggle_check.py's WRAPPER_NAMES: the same names

_WRAPPER = '''\
_AGENT = {value}
_AGENT_CODE = getattr(_AGENT, "__code__", None)
_AGENT_ARGC = getattr(_AGENT_CODE, "co_argcount", 2)


def {name}(obs, config):
    """Kaggle's entry point, the last callable in this file: {described}."""
    # Kaggle passes an agent only as many arguments as its __code__ declares, and both to an object, a class
    # or a functools.partial, which have none; so does this wrapper.
    return _AGENT(*(obs, config)[:_AGENT_ARGC])
'''


def describe_entry(qualified: str, kind: str) -> str:
    """``bot.act, a function``; ``main.agent, an object, an instance of Agent``: what the wrapper calls."""
    if kind.startswith("object, "):
        return f"{qualified}, an {kind}"
    article = "an" if kind[:1] in "aeiou" else "a"
    return f"{qualified}, {article} {kind}"


def entry_wrapper(value: str, described: str, name: str = "agent") -> str:
    """The wrapper's text: ``name(obs, config)`` calling the callable that the expression ``value`` gives."""
    return _WRAPPER.format(value=value, described=described, name=name)


def is_wrapper_code(code: object, module_globals: dict) -> bool:
    """Whether a frame (its code and globals) is the wrapper's own."""
    names = getattr(code, "co_names", ())
    return all(name in names for name in WRAPPER_GLOBALS) and callable(module_globals.get("_AGENT"))


def is_loader_code(module_globals: dict) -> bool:
    """Whether a frame runs the single file's own code (its module loader, the wrapper), not an embedded module:
    the file's globals hold the registry of embedded sources (``building.template``)."""
    return "_SOURCES" in module_globals and "_LOADED" in module_globals


def entry_site(value: Any) -> tuple[str, int, str] | None:
    """(file, line, name) where the Python code run by calling ``value`` is defined: a function's ``def``, an
    object's ``__call__``, a class's ``__new__`` or ``__init__``, a partial's function; None for C code.
    (``building/kaggle_check.py`` has its own copy, ``callable_site``: that file imports nothing of the project.)"""
    if isinstance(value, functools.partial):
        return entry_site(value.func)
    if isinstance(value, type):
        for name in ("__new__", "__init__"):
            method = value.__dict__.get(name)
            method = getattr(method, "__func__", method)
            if hasattr(method, "__code__"):
                return method.__code__.co_filename, method.__code__.co_firstlineno, f"{value.__name__}.{name}"
        return None
    code = getattr(value, "__code__", None)
    if code is None:
        code = getattr(getattr(type(value), "__call__", None), "__code__", None)
        if code is None:
            return None
        return code.co_filename, code.co_firstlineno, f"{type(value).__name__}.__call__"
    return code.co_filename, code.co_firstlineno, getattr(value, "__name__", code.co_name)


__all__ = ["WRAPPER_GLOBALS", "describe_entry", "entry_site", "entry_wrapper", "is_loader_code", "is_wrapper_code"]
