"""The optional packages the environments need, and the one line that says how to install a missing one.

gymnasium and PettingZoo are in requirements.txt (``bash run.sh`` installs them), but the package declares no
dependencies of its own (a wheel installed in a notebook brings none), and the evaluator and the builder need
neither: where they are missing, ``pip install gymnasium==1.2.0 pettingzoo==1.27.0`` adds them.
"""

from __future__ import annotations

INSTALL = "pip install gymnasium==1.2.0 pettingzoo==1.27.0"


class MissingDependency(ImportError):
    """A package the environments need is not installed; the message is one line saying how to install it."""

