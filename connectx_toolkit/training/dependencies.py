"""The optional packages the environments need, and the one line that says how to install a missing one.

gymnasium and PettingZoo are not in requirements.txt (the evaluator and the builder need neither):
``pip install -r requirements-training.txt`` (or ``pip install gymnasium pettingzoo``) adds them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

INSTALL = "pip install -r requirements-training.txt (or: pip install gymnasium pettingzoo)"


class MissingDependency(ImportError):
    """A package the environments need is not installed; the message is one line saying how to install it."""


def need(module: str, wanted_by: str) -> ModuleType:
    """Import ``module`` or raise ``MissingDependency`` naming who wanted it and how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependency(f"{wanted_by} needs {module.split('.')[0]}, which is not installed: {INSTALL}",
                                name=module) from None
