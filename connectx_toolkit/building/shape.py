"""What an agent is, for the evaluator: its shape read by the builder's own stages, without building it.

``evaluate.py`` loads a plain file as Kaggle does, builds anything else with ``build_text`` and runs a
Kaggle bundle unpacked at /kaggle_simulations/agent; ``agent_shape`` tells which, with the same import roots
and entry-point rule as the builder, so the two agree on every agent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable

from connectx_toolkit.building.pipeline import prepare, render_bundle
from connectx_toolkit.building.bundle import mentions_bundle_root, unpacked
from connectx_toolkit.building.entry_point import last_callable, merely_calls
from connectx_toolkit.building.modules import discover
from connectx_toolkit.building.sources import ANY_EXTERNAL


@dataclass(frozen=True)
class AgentShape:
    """``modules``: the module graph, the entry last; ``function``: the entry point; ``last_callable``: what
    Kaggle's loader alone would call in the entry module; ``reads_bundle_root``: some module names
    /kaggle_simulations/agent, or is a compiled extension module (it runs only as a Kaggle bundle)."""

    modules: tuple[str, ...]
    function: str
    last_callable: str | None
    reads_bundle_root: bool
    merely_calls: bool = False  # the last callable only returns function(...): calling one plays the other
    kind: str = "function"  # what the entry is (``building.entry_point``): RUN_TIME_KINDS when found as the file runs


def agent_shape(target: str, paths: Iterable[str] = ()) -> AgentShape:
    """The shape of ``target`` (any import allowed: nothing is uploaded). Raises ``BuildError`` (one line)."""
    entry = prepare(target, allow_imports=(ANY_EXTERNAL,), paths=paths)
    modules = discover(entry.module, entry.project, entry.virtual_modules)
    tree = modules[-1].tree
    last = last_callable(tree)
    return AgentShape(tuple(m.name for m in modules), entry.function, last,
                      any(mentions_bundle_root(m) is not None or m.is_extension for m in modules),
                      last is not None and merely_calls(tree, last, entry.function), entry.kind)


def bundle_folder(target: str, paths: Iterable[str] = ()) -> str:
    """``target`` as the builder would bundle it, unpacked into a new temporary folder (readable by all)."""
    entry = prepare(target, allow_imports=(ANY_EXTERNAL,), paths=paths)
    return unpacked(render_bundle(entry, os.path.join(os.fspath(target), "submission.tar.gz"))[0])


__all__ = ["AgentShape", "agent_shape", "bundle_folder"]
