"""The agent folders the training tools write (``OUT/main.py`` and ``OUT/data/...``), and the one rule for
replacing one: a folder may be new, empty, or one the same tool wrote (its ``main.py`` starts with the tool's
marker line); someone's own ``main.py`` is never overwritten."""

from __future__ import annotations

import os


def why_not_writable(out: str, marker: str, writer: str) -> str | None:
    """Why the tool ``writer`` (whose ``main.py`` files start with ``marker``) may not write the agent folder
    ``out``, in a few words after the folder's name; None when it may."""
    if os.path.exists(out) and not os.path.isdir(out):
        return "exists and is not a folder"
    main = os.path.join(out, "main.py")
    if os.path.exists(main):
        with open(main, encoding="utf-8", errors="replace") as handle:
            if not handle.readline().startswith(marker):
                return f"its main.py was not written by {writer}; choose another folder"
    return None
