"""The one exception type the builder raises and its two kinds (bad input, failed validation). An agent's own
exception is told in one line by ``building.kaggle_rules.format_agent_error``."""

from __future__ import annotations


class BuildError(Exception):
    """A build that did not produce a file; ``str(error)`` is one line meant for the user.

    ``exit_code`` is what the command line exits with: 2 for bad input, 1 for a failed validation.
    """

    exit_code = 2


class InputError(BuildError):
    """Bad input: unknown agent, forbidden import, a global that cannot be carried, a missing data file..."""


class ValidationError(BuildError):
    """The built file failed Kaggle's checks in the clean interpreter; ``report`` holds the details."""

    exit_code = 1

    def __init__(self, message: str, report: dict | None = None) -> None:
        super().__init__(message)
        self.report = report or {}
