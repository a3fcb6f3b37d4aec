"""What crosses an agent's socket, both ways: frames (``frame``: a 4-byte big-endian length, then the
body) of JSON (``encode``, ``decode``), made once per move each way.

The same JSON as ``json.dumps(obj, separators=(",", ":"))`` and a strict ``json.loads``, without the
per-call set-up of the ``json`` module's wrappers (it builds its C encoder anew on every call), which
costs as much as a cheap agent's move.
"""

from __future__ import annotations

import json
from json import encoder, scanner
from typing import Any


def _unsupported(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


_ENCODER = encoder.c_make_encoder(None, _unsupported, encoder.encode_basestring_ascii, None, ":", ",", False,  # pyright: ignore[reportAttributeAccessIssue]  json.encoder's C accelerator (None without it), which typeshed leaves out
                                  False, True) if encoder.c_make_encoder else None  # pyright: ignore[reportAttributeAccessIssue]  as above
_FALLBACK = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
_SCAN = scanner.make_scanner(json.JSONDecoder())  # pyright: ignore[reportArgumentType]  the context is the decoder, as in json.decoder; typeshed names make_scanner itself
HEADER_BYTES = 4


def frame(body: bytes) -> bytes:
    """``body`` with its header."""
    return len(body).to_bytes(HEADER_BYTES, "big") + body


def body_length(data: bytes) -> int:
    """The body length announced by the header ``data`` starts with."""
    return int.from_bytes(data[:HEADER_BYTES], "big")


def encode(message: Any) -> bytes:
    """``message`` (plain dicts, lists, strings, numbers, None; no cycles) as compact ASCII JSON."""
    text = "".join(_ENCODER(message, 0)) if _ENCODER is not None else _FALLBACK(message)
    return text.encode()


def decode(text: str) -> Any:
    """The one JSON value ``text`` holds, nothing around it (raises ValueError otherwise)."""
    try:
        value, end = _SCAN(text, 0)
    except (StopIteration, RecursionError):  # not JSON; nested past the interpreter's depth
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value
