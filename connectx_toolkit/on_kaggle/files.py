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
from typing import Any

from connectx_toolkit.atomic import write_atomically, writer_of

__all__ = ["LadderFolder"]


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
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomically(path, data)

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
                writer = writer_of(name)
                if writer is not None and not _alive(writer):
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
