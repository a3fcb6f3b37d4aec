"""Our agent's log of an episode, as Kaggle's runner records it: per step ``{"duration", "stdout", "stderr"}``
(``kaggle_environments.agent.Agent.act``; a step where the agent did not move is ``{}``). An exception the
agent raised is in that step's ``stderr`` as a Python traceback; the agent's own ``file:line`` is its
innermost frame outside the standard library, site-packages and kaggle_environments, told in one line as
the evaluator tells an error (``main.py:12 in agent: ValueError: boom (raised in json/decoder.py:355)``).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

__all__ = ["LAST_LINES", "log_lines", "own_error", "read_log"]

LAST_LINES = 10
MARKERS = re.compile(r"^\s*[\^~]+\s*$")  # the lines under a traceback's source line that point at the call
FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (.+)$')
LIBRARY = re.compile(r"/(site-packages|dist-packages|kaggle_environments)/|/lib/python3[.\d]*/|^<frozen ")


def read_log(path: str) -> list[dict[str, Any]] | None:
    """The log's step entries (a list of steps, or of steps' lists of agents, is flattened); None when the
    file is absent or not a log."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return None
    entries: list[dict[str, Any]] = []
    _flatten(document, entries)
    return entries if entries or isinstance(document, list) else None


def _flatten(value: Any, into: list[dict[str, Any]]) -> None:
    if isinstance(value, dict):
        if any(key in value for key in ("stdout", "stderr", "duration")) or not value:
            into.append(value)
    elif isinstance(value, list):
        for item in value:
            _flatten(item, into)


def log_lines(entries: list[dict[str, Any]]) -> list[str]:
    """Every printed line, in order, after the agent's move it was printed in: ``move 4: text`` (the 4th
    entry with a duration: the runner's entries for steps where the agent did not move are empty, and
    how the entries line up with the replay's steps is the runner's business). A traceback's ``^^^^``
    marker lines are left out."""
    lines = []
    moves = 0
    for entry in entries:
        if "duration" in entry:
            moves += 1
        for stream in ("stdout", "stderr"):
            text = entry.get(stream) or ""
            lines += [f"move {moves}: {line}" for line in str(text).splitlines()
                      if line.strip() and not MARKERS.match(line)]
    return lines


def own_error(entries: list[dict[str, Any]]) -> str | None:
    """The last traceback in the log, in one line naming the agent's own frame first; None without one."""
    text = "\n".join(str(entry.get("stderr") or "") for entry in entries)
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return None
    frames, exception = [], ""
    for line in text[start:].splitlines()[1:]:
        match = FRAME.match(line)
        if match:
            frames.append((match.group(1), int(match.group(2)), match.group(3).strip()))
        elif line.strip() and not line[:1].isspace():
            exception = line.strip()  # the last unindented line: "ValueError: boom"
    own = [frame for frame in frames if not LIBRARY.search(frame[0])]
    parts = []
    if own:
        path, number, function = own[-1]
        parts.append(f"{os.path.basename(path)}:{number} in {function}: ")
    parts.append(exception or "an exception (its last line is not in the log)")
    if frames and (not own or frames[-1] != own[-1]):
        path, number, _ = frames[-1]
        parts.append(f" (raised in {_library_name(path)}:{number})")
    return "".join(parts)


def _library_name(path: str) -> str:
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in path:
            return path.split(marker, 1)[1]
    match = re.search(r"/lib/python3[.\d]*/(.+)$", path)
    return match.group(1) if match else os.path.basename(path)
