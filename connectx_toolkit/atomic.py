"""Whole-file writes: a file the toolkit writes appears whole or not at all.

``write_atomically`` writes to a temporary file beside the target (the same folder, so the rename stays on
one filesystem and is a single step), forces its data to the disk, and renames it over the target with
``os.replace``. A reader, or a run cut short at any point, sees the old file or the new one, never half of
one; after a crash a file renamed into place is not left empty, since its data reached the disk first. On
any error the temporary file is removed and the target is untouched.

The temporary file is named ``.NAME.PID.LETTERS.tmp`` (hidden, the writer's process id, random letters so
that two threads never share one): ``writer_of`` reads the process id back, so a tool that tidies a folder
can remove what a killed run left without touching the files of a run still writing.

A bottom floor: the standard library only, so every layer of the toolkit may import it.
"""

from __future__ import annotations

import os
import re
import secrets
import string

__all__ = ["write_atomically", "write_figure", "writer_of"]

_LETTERS = string.ascii_lowercase  # no digits: the process id before them is read back unambiguously
# The letters are optional so that a temporary file of the older form ``.NAME.PID.tmp`` is recognised too.
_TEMPORARY = re.compile(r"^\..+\.(\d+)(?:\.[a-z]+)?\.tmp$")


def write_atomically(path: str | os.PathLike[str], content: str | bytes, *, permissions: int | None = None) -> None:
    """Replace ``path`` with ``content`` (text is written as UTF-8, byte for byte otherwise) in one step.

    The folder must exist. ``permissions``: the file's mode bits (default: those ``open`` gives a new file,
    0o666 less the umask)."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder, name = os.path.split(os.path.abspath(os.fspath(path)))
    while True:
        letters = "".join(secrets.choice(_LETTERS) for _ in range(8))
        temporary = os.path.join(folder, f".{name}.{os.getpid()}.{letters}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:  # another writer drew the same letters: draw again
            continue
    try:
        with open(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if permissions is not None:
            os.chmod(temporary, permissions)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def writer_of(name: str) -> int | None:
    """The process id of the run that is writing (or was, if it was killed) the temporary file ``name`` (a
    file name, not a path); None when ``name`` is not one of ``write_atomically``'s temporary files."""
    match = _TEMPORARY.match(name)
    return int(match.group(1)) if match else None


def write_figure(figure: object, path: str | os.PathLike[str]) -> str:
    """Render a matplotlib ``figure`` as a PNG into memory, close it (always: pyplot keeps every open figure), and
    write the PNG to ``path`` whole, its folder made if needed; returns ``path`` as a string. The plots of the
    analysis and of the accuracy report are written so (matplotlib is imported by their callers, not here)."""
    import io

    image = io.BytesIO()
    try:
        figure.savefig(image, format="png")  # type: ignore[attr-defined]
    finally:
        import matplotlib.pyplot as plt

        plt.close(figure)  # type: ignore[arg-type]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomically(path, image.getvalue())
    return os.fspath(path)
