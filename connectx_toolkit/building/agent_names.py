"""An agent argument's name where a person reads it (a table, a header, a results file's name): the one home.

An agent is named by the file or folder its argument names, with ``:FUNCTION`` when it picks one. A path with
a ``.`` or ``..`` part (``connectx match . random`` run from the agent's folder, ``../v1/``) is named by what it
resolves to, never ``.``: the folder's real name. Module and built-in names (``greedy``, ``agents.greedy``,
``random``) stay as they are.
"""

from __future__ import annotations

import os
import re

# Suffixes a file name loses in a results file's name (``my_bot.py`` -> ``my_bot``); a dotted module name keeps
# its dots (``agents.greedy``).
FILE_SUFFIXES = (".tar.gz", ".tgz", ".ipynb", ".py")


def split_suffix(name: str) -> tuple[str, str]:
    """``("~/bots/bot.py", ":act")`` for ``~/bots/bot.py:act``; ``(name, "")`` without a function part."""
    base, sep, function = name.rpartition(":")
    if sep and base and function.isidentifier():
        return base, f":{function}"
    return name, ""


def resolved(name: str) -> str:
    """``name`` as given, unless its path has a ``.`` or ``..`` part: then the absolute path it names
    (``.`` -> ``/home/me/bots/my_bot``), with its ``:FUNCTION``."""
    path, suffix = split_suffix(name)
    parts = path.replace(os.sep, "/").split("/")
    if not any(part in (".", "..") for part in parts):
        return name
    return os.path.normpath(os.path.abspath(os.path.expanduser(path))) + suffix


def shown_name(name: str, parts: int = 1) -> str:
    """The last ``parts`` parts of the path ``name`` gives, with its ``:FUNCTION`` (``~/bots/v2/main.py:act`` ->
    ``main.py:act``; ``.`` -> the folder's own name); a name that is no path stays as it is."""
    path, suffix = split_suffix(resolved(name))
    bits = [bit for bit in path.replace(os.sep, "/").split("/") if bit]
    return "/".join(bits[-parts:]) + suffix if bits else name


def file_stem(name: str) -> str:
    """The agent's name fit for a file name (``results/<stem>-vs-...``): its file or folder name without its
    function, a file's suffix or characters a file name should not carry (``submissions/my agent.py`` ->
    ``my_agent``); ``agent`` when nothing is left."""
    base = shown_name(split_suffix(name)[0])
    for suffix in FILE_SUFFIXES:
        if base.endswith(suffix) and base != suffix:
            base = base[:-len(suffix)]
            break
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", base).strip("._") or "agent"


__all__ = ["file_stem", "resolved", "shown_name", "split_suffix"]
