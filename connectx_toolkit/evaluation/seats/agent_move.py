"""One move as an agent answered it (``AgentMove``), and the typed wire form of its action.

Kaggle's referee treats the returned value by its type: ``None`` becomes column 0, a plain ``int`` is a
column, ``True``/``False``, numpy integers and strings are INVALID, a float crashes the referee. An agent
running in another process must therefore send its action with its type preserved; ``encode_action`` and
``decode_action`` are that wire form (JSON-able, never a pickle: the referee must not unpickle what an
agent's process wrote).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

ACTION_KINDS = ("none", "int", "bool", "numpy_int", "float", "str", "other")


@dataclass
class AgentMove:
    """What one call of an agent gave: ``action`` as returned (type preserved), the wall ``seconds`` the
    referee measured, the agent's ``error`` text if it raised, and ``timed_out`` if it was killed at the
    hard deadline."""

    action: Any
    seconds: float
    error: str | None = None
    timed_out: bool = False


class UnsupportedAction:
    """Stands for a returned value of a type no referee accepts (a list, a numpy float32...)."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name = type_name
        self.text = text

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnsupportedAction) and (self.type_name, self.text) == (other.type_name, other.text)

    def __hash__(self) -> int:
        return hash((self.type_name, self.text))


def encode_action(value: Any) -> list[Any]:
    """``[kind, value, type name]``: JSON-able, with what the referee's checks need to know."""
    if value is None:
        return ["none", None, "NoneType"]
    if isinstance(value, bool):
        return ["bool", bool(value), "bool"]
    if isinstance(value, int):
        return ["int", int(value), "int"]
    if isinstance(value, float):
        number = float(value)
        return ["float", number if math.isfinite(number) else repr(number), type(value).__name__]
    if isinstance(value, str):
        return ["str", str(value)[:200], "str"]
    numpy = _numpy()
    if numpy is not None and isinstance(value, numpy.integer):
        return ["numpy_int", int(value), type(value).__name__]
    return ["other", _short_repr(value), type(value).__name__]


def decode_action(wire: Any) -> Any:
    """The value ``encode_action`` described, of the same kind (raises ValueError on a malformed one)."""
    if not isinstance(wire, list) or len(wire) != 3 or wire[0] not in ACTION_KINDS or not isinstance(wire[2], str):
        raise ValueError("not an action")
    kind, value, type_name = wire
    if kind == "none":
        return None
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "int" and type(value) is int:
        return value
    if kind == "float" and (type(value) in (int, float) or value in ("nan", "inf", "-inf")):
        return float(value)
    if kind == "str" and isinstance(value, str):
        return value
    if kind == "numpy_int" and type(value) is int:
        numpy = _numpy()
        if numpy is None:
            return UnsupportedAction(type_name[:40], str(value))
        try:
            return numpy.dtype(type_name).type(value)
        except (TypeError, ValueError, OverflowError):
            return UnsupportedAction(type_name[:40], str(value))
    if kind == "other" and isinstance(value, str):
        return UnsupportedAction(type_name[:40], value[:200])
    raise ValueError("malformed action")


def _short_repr(value: Any) -> str:
    try:
        return repr(value)[:200]
    except Exception:  # an agent's object whose __repr__ raises
        return "?"


def _numpy() -> Any:
    import sys

    return sys.modules.get("numpy")
