"""Limits a child process of the evaluator puts on itself (die with its parent, cap its memory), the processes it
started (``process_tree``), and a forked agent process made multiprocessing's main process (``own_multiprocessing``).

Standard library only, and no import of the rest of the evaluator: both a referee's worker
(``evaluation.scheduling.worker``) and an agent's host (``evaluation.seats.agent_server``) call these as they start.
"""

from __future__ import annotations

import ctypes
import os
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


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux's ``/proc/PID/task/TID/children``); just ``pid`` elsewhere."""
    found, todo = [], [pid]
    while todo and len(found) < 256:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    todo.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            pass
    return found


def own_multiprocessing() -> None:
    """In a forked process that runs an agent: be ``multiprocessing``'s main process, with no start method
    chosen yet, as the agent's process on Kaggle is. Forked from a daemonic worker, it would otherwise inherit
    the worker's process object, and ``multiprocessing.Process(...).start()`` would fail with "daemonic
    processes are not allowed to have children"; the worker's children are not its own either; and a
    ``multiprocessing`` child has its start method chosen ("fork", when it started), so that an agent's
    ``set_start_method("spawn")`` would raise "context has already been set"."""
    import multiprocessing.context
    from multiprocessing import process

    class MainProcess(process.BaseProcess):  # CPython's own ``_MainProcess``, which the module deletes
        def __init__(self) -> None:
            self._identity = ()
            self._name = "MainProcess"
            self._parent_pid = None
            self._popen = None
            self._closed = False
            self._config = {"authkey": process.AuthenticationString(os.urandom(32)), "semprefix": "/mp"}  # pyright: ignore[reportAttributeAccessIssue]  multiprocessing's private state, which typeshed leaves out

        def close(self) -> None:
            pass

    process._current_process = MainProcess()  # pyright: ignore[reportAttributeAccessIssue]  (the same private state)
    process._parent_process = None  # pyright: ignore[reportAttributeAccessIssue]  (the same private state)
    process._children = set()  # pyright: ignore[reportAttributeAccessIssue]  (the same private state)
    default = multiprocessing.context._default_context  # pyright: ignore[reportAttributeAccessIssue]  (the same)
    setattr(default, "_actual_context", None)  # (private too: typeshed's DefaultContext does not have it)
