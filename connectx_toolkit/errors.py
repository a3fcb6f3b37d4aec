"""The one error every layer raises for bad input: ``UsageError``.

It sits at the bottom of the package, below every room, so the settings of a match, the gate, the league, the
analysis, the board and the ladder may all raise it; the command line (``connectx_toolkit.cli``) turns it into
one line on stderr and exit 2, the Python API lets it through (it is a ``ValueError``).
"""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(ValueError):
    """Bad input to a front door (``connectx``, the old scripts, the Python API): one line for the user; the
    command line exits 2."""
