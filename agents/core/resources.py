"""Data files an agent needs (weights, opening books), read the same way in development and on Kaggle.

In the repository a resource is a file in ``agents/data/``. A built submission cannot touch the file
system, so ``build_submission.py`` finds every ``load_resource("literal name")`` call in the modules it
inlines, embeds those files, and hands them to this module as ``__embedded_resources__`` before its
code runs. Names must therefore be string literals.
"""

from __future__ import annotations

import os

# Set by the submission loader; absent when running from the repository.
_EMBEDDED: "dict[str, bytes] | None" = globals().get("__embedded_resources__")

DATA_DIR = "agents/data"  # where resources live, relative to the repository root


def resource_path(name: str) -> str:
    """The file behind ``name`` in the repository (not meaningful inside a built submission)."""
    here = os.path.dirname(os.path.abspath(globals().get("__file__", ".")))
    return os.path.join(os.path.dirname(here), "data", name)


def load_resource(name: str) -> bytes:
    """The bytes of resource ``name``; raises FileNotFoundError if it does not exist."""
    if _EMBEDDED is not None:
        if name not in _EMBEDDED:
            raise FileNotFoundError(f"resource {name!r} was not embedded in this submission")
        return _EMBEDDED[name]
    with open(resource_path(name), "rb") as handle:
        return handle.read()


def has_resource(name: str) -> bool:
    if _EMBEDDED is not None:
        return name in _EMBEDDED
    return os.path.exists(resource_path(name))
