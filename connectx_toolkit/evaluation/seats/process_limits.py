"""Limits a child process of the evaluator puts on itself: die with its parent, cap its memory.

Standard library only, and no import of the rest of the evaluator: both a referee's worker
(``evaluation.scheduling.worker``) and an agent's host (``evaluation.seats.agent_server``) call these as they start.
"""

from __future__ import annotations

import ctypes
import resource
import signal


def die_with_parent() -> None:
    """Ignore SIGINT (the parent decides) and die with the parent, even when it is SIGKILLed (Linux)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def adopt_orphans() -> None:
    """Become the subreaper of what this process starts (Linux): a grandchild whose parent died is
    reparented here, not to init, so that it can still be found among this process's descendants and
    killed when the game ends."""
    try:
        ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def cap_address_space(memory_mb: int) -> None:
    """Let this process add at most ``memory_mb`` to its address space (more is MemoryError); 0: no cap."""
    if memory_mb <= 0:
        return
    limit = _address_space() + memory_mb * 1024 * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        pass


def _address_space() -> int:
    """This process's current virtual memory size in bytes (the cap is set relative to it)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
