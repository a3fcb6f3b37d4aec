"""The one exception type the builder raises, its two kinds (bad input, failed validation), and how an
agent's own exception is told in one line (``format_agent_error``)."""

from __future__ import annotations

import os
import traceback


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


_PROJECT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_HARNESS = tuple(os.path.join(_PROJECT, name) for name in ("building", "evaluation", "sandbox"))


def _library_roots() -> tuple[str, ...]:
    """Folders whose frames are not the agent's own: the standard library and installed packages."""
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    roots = {paths.get("stdlib", ""), paths.get("platstdlib", ""), paths.get("purelib", ""), paths.get("platlib", "")}
    roots.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    return tuple(sorted((os.path.realpath(r) for r in roots if r), key=len, reverse=True))


def _library_name(filename: str, roots: tuple[str, ...]) -> str | None:
    """``json/decoder.py`` for a library file; None for the agent's own code."""
    real = os.path.realpath(filename) if not filename.startswith("<") else filename
    for root in roots:
        if real.startswith(root + os.sep):
            return os.path.relpath(real, root)
    if any(real.startswith(folder + os.sep) for folder in _HARNESS):
        return os.path.relpath(real, os.path.dirname(_HARNESS[0]))  # the toolkit calling the agent, not the agent
    marker = f"{os.sep}kaggle_environments{os.sep}"
    if marker in real:
        return "kaggle_environments" + os.sep + real.split(marker, 1)[1]
    if filename.startswith("<frozen "):
        return filename.strip("<>").split(" ", 1)[1]
    return None


def format_agent_error(error: BaseException) -> str:
    """One line naming the agent's own innermost frame first, then the library frame it was raised in.

    ``lib_error.py:5 in agent: JSONDecodeError: Expecting value: line 1 column 1 (char 0) (raised in
    json/decoder.py:355)``. Own frames are those outside the standard library, site-packages and
    kaggle_environments; a frame's file is shown by its name alone.
    """
    roots = _library_roots()
    frames = traceback.extract_tb(error.__traceback__)
    seen = {id(error)}
    # A loader that wraps the agent's exception (Kaggle's "Invalid raw Python") loses nothing: the cause,
    # which has the agent's own frames, is the one told.
    while not any(_library_name(f.filename, roots) is None for f in frames):
        cause = error.__cause__ or error.__context__
        if cause is None or id(cause) in seen:
            break
        seen.add(id(cause))
        error, frames = cause, traceback.extract_tb(cause.__traceback__)
    message = " ".join(str(error).split())
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    own = [f for f in frames if _library_name(f.filename, roots) is None]
    parts = []
    if own:
        frame = own[-1]
        parts.append(f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}: ")
    parts.append(text)
    if frames and (not own or frames[-1] is not own[-1]):
        last = frames[-1]
        library = _library_name(last.filename, roots) or os.path.basename(last.filename)
        parts.append(f" (raised in {library}:{last.lineno})")
    return "".join(parts)
