"""The board's agent seat: the agent plays in a process of its own, killed when it overruns Kaggle's clock.

:class:`AgentSeat` has the interface of the evaluator's per-seat agent process (``new_game()``,
``act(observation, configuration, deadline_s)``, ``close()``) so the board can play through either. The
child is forked from this process (it inherits the agent registry, so a callable given from a notebook
plays too) or, with ``sandbox``, a fresh interpreter inside a bubblewrap sandbox. Messages are JSON bytes
both ways: this process never unpickles what a process running the agent's code wrote.

    python -m board.agent_seat CONNECTION_FD SPEC_JSON   (the sandboxed child)
"""

from __future__ import annotations

import inspect
import json
import multiprocessing
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from multiprocessing.connection import Connection
from typing import Any

from evaluation.agent_specs import AgentSpec

__all__ = ["AgentSeat", "SeatMove"]

START_SECONDS = 60.0  # loading the referee and the agent, before the first move (not on the agent's clock)
ANSWER_BYTES = 1 << 16


@dataclass(frozen=True)
class SeatMove:
    """What the agent answered: ``action`` (an int, or None when it returned nothing usable), the name of
    the type it returned (Kaggle refuses anything but a plain ``int``), its time, its error, a timeout."""

    action: int | None
    action_type: str
    seconds: float
    error: str | None = None
    timed_out: bool = False


class AgentSeat:
    """One agent in its own process; ``act`` blocks until it answers or its deadline kills it.

    The process dies with the thread that started it (Linux's parent-death signal follows the thread), so
    call every method from one long-lived thread.
    """

    def __init__(self, spec: AgentSpec, *, sandbox: bool = False, memory_mb: int = 2048) -> None:
        self.spec = spec
        self.sandbox = sandbox
        self.memory_mb = memory_mb
        self._connection: Connection | None = None
        self._process: Any = None

    def new_game(self) -> None:
        """A fresh agent (module state included) for the next game; a killed process is started again."""
        if self._connection is None:
            self._start()
        else:
            self._connection.send_bytes(b'{"new_game": true}')
        self._ready()

    def act(self, observation: dict[str, Any], configuration: dict[str, Any], deadline_s: float) -> SeatMove:
        """The agent's move for ``observation``; killed (``timed_out``) after ``deadline_s`` seconds."""
        if self._connection is None:
            self.new_game()
        assert self._connection is not None
        started = time.monotonic()
        try:
            self._connection.send_bytes(json.dumps({"observation": observation, "configuration": configuration}).encode())
            if not self._connection.poll(deadline_s):
                self._kill()
                return SeatMove(None, "", time.monotonic() - started, None, True)
            answer = json.loads(self._connection.recv_bytes(ANSWER_BYTES))
        except (EOFError, OSError, ValueError):
            code = self._kill()
            return SeatMove(None, "", time.monotonic() - started, f"the agent's process died (exit code {code})")
        return SeatMove(answer.get("action") if isinstance(answer.get("action"), int) else None,
                        str(answer.get("type", "")), time.monotonic() - started, answer.get("error"))

    def close(self) -> None:
        self._kill()

    def _start(self) -> None:
        parent, child = socket.socketpair()
        if self.sandbox:
            from sandbox import Sandbox

            files = (self.spec.target,) if self.spec.kind in ("file", "built") else ()
            self._process = Sandbox(files=files).popen(
                [sys.executable, "-m", "board.agent_seat", str(child.fileno()), json.dumps(asdict(self.spec)),
                 str(self.memory_mb)],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
        else:
            context = multiprocessing.get_context("fork")
            self._process = context.Process(target=_serve_fd, args=(child.fileno(), self.spec, self.memory_mb),
                                            daemon=True)
            self._process.start()
        child.close()
        self._connection = Connection(parent.detach())

    def _ready(self) -> None:
        assert self._connection is not None
        try:
            if self._connection.poll(START_SECONDS):
                answer = json.loads(self._connection.recv_bytes(ANSWER_BYTES))
                if answer.get("error"):
                    raise RuntimeError(f"agent {self.spec.name} cannot start: {answer['error']}")
                return
        except (EOFError, OSError, ValueError):
            pass
        code = self._kill()
        raise RuntimeError(f"agent {self.spec.name} did not start (exit code {code})")

    def _kill(self) -> int | None:
        process, self._process = self._process, None
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if process is None:
            return None
        if isinstance(process, subprocess.Popen):
            process.kill()
            return process.wait()
        process.kill()
        process.join()
        return process.exitcode


def _serve_fd(fd: int, spec: AgentSpec, memory_mb: int) -> None:
    _serve(Connection(fd), spec, memory_mb)


def _serve(connection: Connection, spec: AgentSpec, memory_mb: int) -> None:
    """Child main loop: (re)load the agent, answer each observation, until the pipe closes."""
    from evaluation.worker import isolate

    isolate(memory_mb)  # as the evaluator's workers: no SIGINT, die with the board, silent, memory capped
    from kaggle_environments.utils import Struct

    agent = None
    message: dict[str, Any] = {"new_game": True}
    while True:
        if message.get("new_game"):
            try:
                agent = spec.load()
                connection.send_bytes(b"{}")
            except BaseException as error:  # the agent's own code failed: the answer, not a crash
                connection.send_bytes(json.dumps({"error": _describe(error)}).encode())
        else:
            connection.send_bytes(json.dumps(_act(agent, Struct(**message["observation"]),
                                                  Struct(**message["configuration"]))).encode())
        try:
            message = json.loads(connection.recv_bytes())
        except (EOFError, OSError):
            return


def _act(agent: Any, observation: Any, configuration: Any) -> dict[str, Any]:
    try:
        action = agent(*(observation, configuration)[:_arguments(agent)])
    except BaseException as error:
        return {"action": None, "type": "", "error": _describe(error)}
    plain = action if type(action) is int else None
    return {"action": plain, "type": type(action).__name__}


def _arguments(agent: Any) -> int:
    """How many of (observation, configuration) the agent takes, as Kaggle cuts the call."""
    try:
        parameters = inspect.signature(agent).parameters.values()
    except (TypeError, ValueError):
        return 2
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return 2
    return min(2, sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters))


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}".splitlines()[0]


def main(argv: list[str]) -> None:
    fd, spec, memory_mb = int(argv[0]), AgentSpec(**json.loads(argv[1])), int(argv[2])
    _serve(Connection(fd), spec, memory_mb)


if __name__ == "__main__":
    main(sys.argv[1:])
