"""Kaggle's ``Struct``: the dict with attribute access agents get as ``obs`` and ``config``.

Agents read ``obs.board`` and ``obs["board"]`` alike; ``structify`` copies nested dicts and lists into
that shape exactly as ``kaggle_environments.utils.structify`` does (a fresh copy per call, so what an
agent does to its observation never reaches the referee).
"""

from __future__ import annotations

from typing import Any


class Struct(dict):
    """A dict whose keys are also attributes (a missing attribute raises AttributeError, as Kaggle's)."""

    def __init__(self, **entries: Any) -> None:
        entries = {key: value for key, value in entries.items() if key != "items"}
        dict.__init__(self, entries)
        self.__dict__.update(entries)

    def __setattr__(self, attr: str, value: Any) -> None:
        self.__dict__[attr] = value
        self[attr] = value


_SCALARS = frozenset((int, float, str, bool, type(None)))
_STRINGS = frozenset((str,))


def structify(value: Any) -> Any:
    """Nested dicts as ``Struct``s, lists copied."""
    if isinstance(value, list):
        if _SCALARS.issuperset(map(type, value)):  # a board: nothing inside to convert (a move's hot path)
            return list(value)
        return [structify(item) for item in value]
    if isinstance(value, dict):
        entries = {key: item if type(item) in _SCALARS else structify(item) for key, item in value.items()}
        if not _STRINGS.issuperset(map(type, entries)):
            return Struct(**entries)  # raises TypeError, as Kaggle's does
        struct = Struct.__new__(Struct)  # ``Struct(**entries)`` without copying the entries twice more
        entries.pop("items", None)
        dict.update(struct, entries)
        struct.__dict__.update(entries)
        return struct
    return value
