"""The submission builder behind ``build_submission.py``: any agent into one file Kaggle accepts.

Public API (stable; scripts and notebooks build on it; ``connectx_toolkit.build`` at the package's top hands its
arguments to ``building.build``):

- ``building.build(target, out="submission.py", *, function=None, allow_imports=(), paths=(), verbose=False)
  -> BuildReport`` — build, validate in a clean interpreter with Kaggle's loader and referee, write
  atomically; ``out`` ending in ``.tar.gz`` writes a Kaggle bundle, validated unpacked at
  /kaggle_simulations/agent; ``paths`` are import roots after the agent's folder, before ``PYTHONPATH``'s.
  ``target``: a module in ``agents/``, a dotted module, a ``.py`` file or folder anywhere,
  ``TARGET:FUNCTION``, ``NOTEBOOK.ipynb:FUNCTION``, or a function object from a notebook / ``__main__``.
  Raises ``BuildError``.
- ``building.build_text(target, ...) -> (text, modules, data)`` — the file without validating it.
- ``building.ANY_EXTERNAL`` — in ``allow_imports``: every import is allowed. For a build that is never
  uploaded (``evaluate.py`` builds a folder or ``FILE:FUNCTION`` agent with ``build_text(target,
  allow_imports=(ANY_EXTERNAL,))``).
- ``building.split_function(target) -> (base, function | None)`` — ``TARGET:FUNCTION`` taken apart as the
  builder reads it; raises ``InputError`` (a ``BuildError``) for a function part that is not a name.
- ``building.BuildError`` — the one exception type; ``str(error)`` is one line, ``error.exit_code`` is
  2 for bad input and 1 for a failed validation (``ValidationError``, with ``.report``).
- ``building.agent_shape(target, paths=()) -> AgentShape`` — the module graph, entry point and Kaggle's
  last callable of an agent, read without building it (the evaluator decides from it how to load an agent);
  ``building.bundle_folder``/``building.unpack_bundle`` — a Kaggle bundle unpacked into a folder.
- ``building.format_agent_error(error) -> str`` — one line, the agent's own innermost frame first.

A build is one way through one module per stage, each handing the next a plain value: ``targets`` (what
AGENT means, with its import roots: ``roots``, ``entry_point``, ``closure`` for function objects,
``notebook`` for notebooks) → ``modules`` (the module graph) → ``data`` (data files) → ``template`` (one
file) or ``bundle`` (a Kaggle ``.tar.gz``) → ``validation`` (``kaggle_check.py`` in a clean interpreter);
``pipeline`` runs them in that order. ``sources`` holds the plain values they share (``Project``, ``Module``);
``kaggle_rules`` Kaggle's loading rules, with the one entry wrapper both a single file and a bundle's
``main.py`` end with (an entry of any callable kind, called as Kaggle calls it); ``reads`` judges the
files the agent opened while it was checked (a refusal at its own ``file:line``, or a note in
``BuildReport.notes``).
"""

import importlib
from typing import Any

# The public names, imported on first use: a module of the package (``kaggle_rules``, which an agent's
# process imports to load and call its agent) costs nothing of the rest of the builder.
_PUBLIC = {
    "DEFAULT_OUT": "pipeline", "BuildReport": "pipeline", "build": "pipeline", "build_text": "pipeline",
    "BUNDLE_ROOT": "bundle", "unpack_bundle": ("bundle", "unpack"),
    "BuildError": "errors", "InputError": "errors", "ValidationError": "errors",
    "format_agent_error": "kaggle_rules",
    "AgentShape": "shape", "agent_shape": "shape", "bundle_folder": "shape",
    "ANY_EXTERNAL": "sources", "ROOT": "sources", "Project": "sources",
    "split_function": "targets",
}

__all__ = sorted(_PUBLIC)  # pyright: ignore[reportUnsupportedDunderAll]  the names are _PUBLIC's keys, loaded on first use by __getattr__


def __getattr__(name: str) -> Any:
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = where if isinstance(where, tuple) else (where, name)
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
    globals()[name] = value
    return value
