"""How games are played: the board, the openings, Kaggle's clock and where the games run.

One frozen object travels from the front door (``evaluate.py``'s flags, the Python API, the gate, the
league) down to the match, the pool and its workers; each takes the fields it needs from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectx_toolkit.agents.core import Config
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "PROCESS", "PlaySettings", "RAY"]

PROCESS, RAY = "process", "ray"  # local worker processes, or a Ray cluster
BACKENDS = (PROCESS, RAY)
DEFAULT_BACKEND = PROCESS


@dataclass(frozen=True, kw_only=True)
class PlaySettings:
    """The board, the openings, Kaggle's clock and where the games run.

    Every field is the ``evaluate.py`` option of the same name (``memory_mb`` 0: no cap), with the same
    default; keyword-only, so the settings built on it keep their own fields first.
    """

    rows: int = 6
    columns: int = 7
    inarow: int = 4
    seed: int = 0
    openings: str | None = None
    workers: int | None = None
    act_timeout: float = DEFAULT_ACT_TIMEOUT
    overage: float = DEFAULT_OVERAGE
    memory_mb: int = DEFAULT_MEMORY_MB
    replays: str | None = None  # where HTML replays of lost or forfeited games go
    backend: str = DEFAULT_BACKEND  # "process" or "ray"
    sandbox: bool = False  # every agent process inside a bubblewrap sandbox
    path: tuple[str, ...] = ()  # import roots after an agent file's folder, before PYTHONPATH's (--path)
    referee: str = DEFAULT_REFEREE  # "native" (Kaggle's rules, fast) or "kaggle" (kaggle_environments' Environment)
    pin_cores: bool | None = None  # None: the backend's default (the process backend pins, Ray does not)

    @property
    def config(self) -> Config:
        """The board: ``rows`` x ``columns``, ``inarow`` to win."""
        return Config(self.rows, self.columns, self.inarow)
