"""The agent processes a worker keeps between games (``KeptAgents``): started once, reused for speed.

Each game takes one process per seat (two for a self-play game) and gives them back when it ends; a
process that was killed (timeout, crash) is restarted by its next ``new_game``. Only a few idle ones are
kept (a league cycles through many agents).
"""

from __future__ import annotations

from connectx_toolkit.evaluation.seats.agent_process import DEFAULT_MEMORY_MB, AgentProcess
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec

MAX_IDLE = 6


class KeptAgents:
    """Idle ``AgentProcess``es by agent, most recently used last."""

    def __init__(self, *, sandbox: bool = False, memory_mb: int = DEFAULT_MEMORY_MB,
                 widen_to: frozenset[int] | None = None) -> None:
        self.sandbox = sandbox
        self.memory_mb = memory_mb
        self.widen_to = widen_to  # see ``AgentProcess``
        self._idle: list[AgentProcess] = []

    def acquire(self, spec: AgentSpec) -> AgentProcess:
        for index in range(len(self._idle) - 1, -1, -1):
            if self._idle[index].spec == spec:
                return self._idle.pop(index)
        return AgentProcess(spec, sandbox=self.sandbox, memory_mb=self.memory_mb, widen_to=self.widen_to)

    def release(self, process: AgentProcess) -> None:
        self._idle.append(process)
        while len(self._idle) > MAX_IDLE:
            self._idle.pop(0).close()

    def close(self) -> None:
        for process in self._idle:
            process.close()
        self._idle.clear()
