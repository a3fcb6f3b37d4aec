"""The one exception type the builder raises, and its two kinds (bad input, failed validation)."""

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


def format_agent_error(error: BaseException) -> str:
    """One line for an agent's exception: its own innermost frame first, then where a library raised it.

    E.g. ``lib_error.py:5 in agent: JSONDecodeError: Expecting value: ... (raised in json/decoder.py:355)``.
    "Own" frames are those whose file is not in the standard library, site-packages or kaggle_environments.
    """
    import os
    import sysconfig
    import traceback

    library_roots = tuple(os.path.normpath(path) + os.sep for path in {
        sysconfig.get_paths().get("stdlib", ""), sysconfig.get_paths().get("purelib", ""),
        sysconfig.get_paths().get("platlib", "")} if path)

    def is_library(filename: str) -> bool:
        path = os.path.normpath(os.path.abspath(filename)) if not filename.startswith("<") else filename
        return path.startswith(library_roots) or "kaggle_environments" in path or "site-packages" in path

    frames = traceback.extract_tb(error.__traceback__)
    message = str(error).splitlines()[0] if str(error).strip() else ""
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    own = [frame for frame in frames if not is_library(frame.filename)]
    if not own:
        return text
    last = own[-1]
    line = f"{os.path.basename(last.filename)}:{last.lineno} in {last.name}: {text}"
    if frames and frames[-1] is not last and is_library(frames[-1].filename):
        raised = frames[-1]
        parts = os.path.normpath(raised.filename).split(os.sep)
        line += f" (raised in {'/'.join(parts[-2:])}:{raised.lineno})"
    return line
