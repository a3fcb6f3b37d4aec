"""Data files an agent needs (weights, opening books), read the same way in development and on Kaggle.

``load_resource("name")`` is the one way an agent reads a data file. Unbuilt, it reads ``data/name`` from
the nearest ``data/`` folder that holds it, starting in the calling module's own folder and going up
through its enclosing packages to its import root (the first folder that is not a package). So
``agents/solver_engine/opening_book.py`` reads ``agents/data/connect4_book.bin``, and an agent kept outside the
repository, ``~/bots/my_bot/main.py`` (or ``~/bots/my_bot/lib/model.py``), reads
``~/bots/my_bot/data/weights.json``; a notebook cell reads ``data/`` in the notebook's working directory.
The project's own ``agents/data/`` is searched last, so code anywhere (tools, tests, benchmarks) can read
the project's data by name.

A built submission cannot touch the file system: the builder finds every ``load_resource("literal")``
and ``has_resource("literal")`` call in the modules it inlines, resolves each name with
:func:`find_resource` exactly as above, embeds those files, and hands them to this module as
``__embedded_resources__`` before its code runs. Names must therefore be string literals.
"""

from __future__ import annotations

import os
import sys

# Set by the submission loader; absent when running unbuilt.
_EMBEDDED: "dict[str, bytes] | None" = globals().get("__embedded_resources__")

DATA_FOLDER = "data"  # the folder name searched for resources
# agents/data: searched last. Inside a built submission there is no file, and nothing is searched.
_AGENTS = os.path.dirname(os.path.dirname(os.path.abspath(globals().get("__file__", "."))))
PROJECT_DATA = os.path.join(_AGENTS, DATA_FOLDER)


def find_resource(name: str, module_file: str) -> str | None:
    """The file ``name`` resolves to for code in ``module_file``, or None when no ``data/`` folder has it.

    Searched: ``data/`` beside ``module_file``, then beside each enclosing package, up to and including
    the import root (the first folder without an ``__init__.py``); last, the project's ``agents/data/``.
    Code without a file on disk (a notebook cell) reads from ``data/`` in the working directory.
    """
    if not os.path.isfile(module_file):
        module_file = os.path.join(os.getcwd(), "__notebook__.py")
    folder = os.path.dirname(os.path.abspath(module_file))
    while True:
        candidate = os.path.join(folder, DATA_FOLDER, name)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if not os.path.isfile(os.path.join(folder, "__init__.py")) or parent == folder:
            break
        folder = parent
    candidate = os.path.join(PROJECT_DATA, name)
    return candidate if os.path.isfile(candidate) else None


def _caller_file(depth: int) -> str:
    """The source file of the code that called the public function (Kaggle's loader sets no __file__)."""
    return sys._getframe(depth + 1).f_code.co_filename


def load_resource(name: str) -> bytes:
    """The bytes of resource ``name``; raises FileNotFoundError if it does not exist."""
    if _EMBEDDED is not None:
        if name not in _EMBEDDED:
            raise FileNotFoundError(f"resource {name!r} was not embedded in this submission")
        return _EMBEDDED[name]
    path = find_resource(name, _caller_file(1))
    if path is None:
        raise FileNotFoundError(
            f"resource {name!r}: no {DATA_FOLDER}/{name} beside {_caller_file(1)}, its packages or the project"
        )
    with open(path, "rb") as handle:
        return handle.read()


def has_resource(name: str) -> bool:
    """Whether ``load_resource(name)`` would succeed from the calling module."""
    if _EMBEDDED is not None:
        return name in _EMBEDDED
    return find_resource(name, _caller_file(1)) is not None
