"""The ladder's cache folder (default ``./ladder/SUBMISSION_ID/``): one file per episode, written whole.

    ladder/123/listing.json      the episode list as last fetched (seats, teams, states, ratings)
    ladder/123/45678.json        episode 45678's replay, byte for byte as Kaggle sent it
    ladder/123/logs/45678.json   our agent's log of that episode, as Kaggle sent it
    ladder/123/analysis/         the plot of losing moves by ply

Every file is written to a temporary name in its folder and renamed into place, so a file is either
whole or absent: a present file is never fetched again, and a run cut at any point resumes.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

__all__ = ["LadderFolder"]

TEMPORARY = re.compile(r"^\..+\.(\d+)\.tmp$")


class LadderFolder:
    """Paths in one submission's folder, and whole-file writes into it (the folder appears with its first file)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def replay(self, episode_id: int) -> str:
        return os.path.join(self.directory, f"{episode_id}.json")

    def log(self, episode_id: int) -> str:
        return os.path.join(self.directory, "logs", f"{episode_id}.json")

    @property
    def listing(self) -> str:
        return os.path.join(self.directory, "listing.json")

    @property
    def analysis(self) -> str:
        return os.path.join(self.directory, "analysis")

    def write(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` whole or not at all."""
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        temporary = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise

    def write_json(self, path: str, value: Any) -> None:
        self.write(path, (json.dumps(value, indent=1) + "\n").encode("utf-8"))

    def remove_stale_temporaries(self) -> int:
        """Delete the temporary files a killed run left (those of a live process are kept); returns how many."""
        removed = 0
        for folder in (self.directory, os.path.dirname(self.log(0))):
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                match = TEMPORARY.match(name)
                if match and not _alive(int(match.group(1))):
                    os.unlink(os.path.join(folder, name))
                    removed += 1
        return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this run has none in flight while it tidies
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
