"""The error this package raises for the user: one line, exit 2 (no traceback, nothing half-written)."""

from __future__ import annotations


class KaggleError(Exception):
    """Missing credentials, an unknown submission, another competition's submission, no network, a refusal
    from Kaggle's API: ``str(error)`` is one line meant for the user."""
