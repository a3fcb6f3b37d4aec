"""How games are played: the board, the openings, Kaggle's clock and where the games run.

One frozen object travels from the front door (``evaluate.py``'s flags, the Python API, the gate, the
league) down to the match, the pool and its workers; each takes the fields it needs from it. It checks its
own fields when it is made, whichever door made it, and so do the settings built on it (a match's, the
gate's, the league's): bad input is one ``UsageError`` line, which ``evaluate.py`` turns into exit 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectx_toolkit.agents.core import Config
from connectx_toolkit.errors import UsageError  # re-exported: its home before connectx_toolkit.errors
from connectx_toolkit.evaluation.referees.played import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE, DEFAULT_REFEREE, REFEREES
from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "PROCESS", "PlaySettings", "RAY", "UsageError"]

PROCESS, RAY = "process", "ray"  # local worker processes, or a Ray cluster
BACKENDS = (PROCESS, RAY)
DEFAULT_BACKEND = PROCESS


@dataclass(frozen=True, kw_only=True)
class PlaySettings:
    """The board, the openings, Kaggle's clock and where the games run.

    Every field is the ``evaluate.py`` option of the same name (``memory_mb`` 0: no cap), with the same
    default; keyword-only, so the settings built on it keep their own fields first.
    """

    rows: int = Config().rows
    columns: int = Config().columns
    inarow: int = Config().inarow
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

    def __post_init__(self) -> None:
        """Each field's rule, once for every door; raises ``UsageError``."""
        try:
            Config(self.rows, self.columns, self.inarow)
        except ValueError as error:
            raise UsageError(f"--{error}") from None  # "rows must be ...": the flag's name, as the other rules
        if self.workers is not None and not (type(self.workers) is int and self.workers >= 1):
            raise UsageError(f"--workers must be an integer >= 1, got {self.workers!r}")
        if not _number(self.act_timeout) or not self.act_timeout > 0:
            raise UsageError(f"--act-timeout must be > 0, got {self.act_timeout!r}")
        if not _number(self.overage) or not self.overage >= 0:
            raise UsageError(f"--overage must be >= 0, got {self.overage!r}")
        if not (type(self.memory_mb) is int and self.memory_mb >= 0):
            raise UsageError(f"--memory-mb must be an integer >= 0 (0: no cap), got {self.memory_mb!r}")
        if self.referee not in REFEREES:
            raise UsageError(f"--referee must be one of {', '.join(REFEREES)}, got {self.referee!r}")
        if self.backend not in BACKENDS:
            raise UsageError(f"--backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.sandbox and self.backend != PROCESS:
            raise UsageError("--sandbox runs games on the local process backend; drop --backend ray")

    @property
    def config(self) -> Config:
        """The board: ``rows`` x ``columns``, ``inarow`` to win."""
        return Config(self.rows, self.columns, self.inarow)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
