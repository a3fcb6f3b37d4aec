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


def _frames(error: BaseException) -> list[tuple[traceback.FrameSummary, bool, object]]:
    """The traceback's frames, each with whether the builder wrote it (the single file's loader, the entry
    wrapper) and, for the wrapper's frame, the callable it calls. A frame of a module gathered from a
    notebook or a script is told where its user wrote the line (``In [3], line 2``)."""
    from connectx_toolkit.building.entry_wrapper import is_loader_code, is_wrapper_code

    summaries = traceback.extract_tb(error.__traceback__)
    frames = []
    tb = error.__traceback__
    for summary in summaries:
        frame = tb.tb_frame if tb is not None else None
        wrapper = frame is not None and is_wrapper_code(frame.f_code, frame.f_globals)
        toolkit = wrapper or (frame is not None and is_loader_code(frame.f_globals))
        origin = _origin(frame.f_globals, summary.lineno) if frame is not None and summary.lineno else None
        if origin is not None:
            summary = traceback.FrameSummary(origin[0], origin[1], summary.name, lookup_line=False)
        frames.append((summary, toolkit, frame.f_globals.get("_AGENT") if wrapper else None))
        tb = tb.tb_next if tb is not None else None
    return frames


CELL_ORIGINS = "__cell_origins__"  # a gathered module's own map: (first line, last line, where, its line)


def _origin(module_globals: dict, line: int) -> tuple[str, int] | None:
    """Where the user wrote line ``line`` of a gathered module: (``In [3]`` or a file, its line), or None."""
    origins = module_globals.get(CELL_ORIGINS)
    if not isinstance(origins, tuple):
        return None
    for entry in origins:
        if isinstance(entry, tuple) and len(entry) == 4 and entry[0] <= line <= entry[1]:
            return str(entry[2]), entry[3] + line - entry[0]
    return None


def _site_text(filename: str, line: int, name: str) -> str:
    """``file.py:5 in agent``; a notebook cell as ``In [3], line 2 in agent`` (``nb.ipynb cell 4, line 2``)."""
    if filename.startswith("In [") or " cell " in filename:
        return f"{os.path.basename(filename)}, line {line} in {name}"
    return f"{os.path.basename(filename)}:{line} in {name}"


def format_agent_error(error: BaseException) -> str:
    """One line naming the agent's own innermost frame first, then the library frame it was raised in.

    ``lib_error.py:5 in agent: JSONDecodeError: Expecting value: line 1 column 1 (char 0) (raised in
    json/decoder.py:355)``. Own frames are those outside the standard library, site-packages and
    kaggle_environments; a frame's file is shown by its name alone. The builder's own frames (the single
    file's loader, the entry wrapper) are never the agent's: an error raised by calling the entry itself is
    told at the entry's definition.
    """
    from connectx_toolkit.building.entry_wrapper import entry_site

    roots = _library_roots()
    frames = _frames(error)
    seen = {id(error)}
    # A loader that wraps the agent's exception (Kaggle's "Invalid raw Python") loses nothing: the cause,
    # which has the agent's own frames, is the one told.
    while not any(_library_name(f.filename, roots) is None for f, _, _ in frames):
        cause = error.__cause__ or error.__context__
        if cause is None or id(cause) in seen:
            break
        seen.add(id(cause))
        error, frames = cause, _frames(cause)
    message = " ".join(str(error).split())
    text = f"{type(error).__name__}: {message}" if message else type(error).__name__
    ours = [(f, toolkit, wrapped) for f, toolkit, wrapped in frames if _library_name(f.filename, roots) is None]
    own = [f for f, toolkit, _ in ours if not toolkit]
    site = None
    if ours and ours[-1][2] is not None:  # calling the entry itself failed (a wrong signature...)
        site = entry_site(ours[-1][2])
    elif own:
        site = (own[-1].filename, own[-1].lineno, own[-1].name)
    parts = [f"{_site_text(*site)}: "] if site else []
    cells = [f for f in own if f.filename.startswith("In [") or " cell " in f.filename]
    if site and cells and len(own) > 1 and site[0] == own[-1].filename:
        # a notebook agent's whole own traceback, outermost first, as a notebook shows it
        parts = [" → ".join(_site_text(f.filename, f.lineno, f.name) for f in own) + ": "]
    parts.append(text)
    if frames:
        last, last_is_toolkit, _ = frames[-1]
        if not last_is_toolkit and not (own and last is own[-1] and site and site[0] == last.filename):
            library = _library_name(last.filename, roots) or os.path.basename(last.filename)
            parts.append(f" (raised in {library}:{last.lineno})")
    return "".join(parts)
