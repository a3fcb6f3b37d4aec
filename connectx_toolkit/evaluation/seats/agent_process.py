"""One seat's agent in a process of its own, driven by the referee over a socket (``AgentProcess``).

The referee never runs in an agent's process and two agents never share one. The process is forked
from the referee's worker (warm: the interpreter and numpy are already loaded) or, with ``sandbox=True``,
started fresh inside its own bubblewrap sandbox (``sandbox.Sandbox``: no network, no home, a private
/tmp, its own pid namespace). It stays alive across games and never runs an agent's file itself: each game is
played by a process it forks for that game (``evaluation.seats.agent_server``), which runs the file once, at move 1,
and is killed when the game ends (``end_game``), so each game starts from a fresh process that has run the file
once, as on Kaggle (the toolkit's module agents and Kaggle's built-ins are reloaded in it at each game instead);
the load is charged to move 1; each game has a numba cache of its own, in a private
folder (``cache_root``: made here for a forked process and removed with it; the sandbox's private /tmp for a
sandboxed one), never the user's.

``act()`` sends the observation and waits for the answer until the hard deadline (act timeout + what is
left of the bank, plus a small slack): past it the process is killed and the move is ``timed_out``.
Everything read from the agent's process is untrusted: frames are parsed without blocking, a frame
that is not a well-formed answer costs the agent its move (ERROR), answers to earlier requests (a
forked child answering late) are dropped. The agent's stdout and stderr go to a pipe the referee
drains; ``logs()`` gives the game's last lines.
"""

from __future__ import annotations

import os
import select
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

from connectx_toolkit.evaluation.seats import wire
from connectx_toolkit.evaluation.seats.agent_kinds import BUILT, BUNDLE, CALLABLE, FILE
from connectx_toolkit.evaluation.seats.agent_move import AgentMove, decode_action
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
from connectx_toolkit.evaluation.seats.process_limits import own_multiprocessing, process_tree

__all__ = ["AgentMove", "AgentProcess", "DEFAULT_MEMORY_MB"]

DEFAULT_MEMORY_MB = 2048  # address space an agent may add on top of its process's own
LOG_LINES = 20  # lines of each seat's output a game's record keeps
KILL_SLACK_SECONDS = 0.05  # past Kaggle's own deadline, so that Kaggle's rule (not ours) decides TIMEOUT
MAX_ANSWER_BYTES = 64 * 1024  # an answer is a few dozen bytes
LOG_BYTES = 64 * 1024  # of output kept per game (the last of it)
HEADER_BYTES = wire.HEADER_BYTES


class AgentProcess:
    """``spec``'s agent in its own process (see the module docstring)."""

    def __init__(self, spec: AgentSpec, *, sandbox: bool = False, memory_mb: int = DEFAULT_MEMORY_MB,
                 widen_to: frozenset[int] | None = None) -> None:
        if sandbox and spec.kind == CALLABLE:
            raise ValueError("a callable agent cannot run in the sandbox (it lives in this process): save it to a file")
        self.spec = spec
        # A Kaggle bundle runs only where Kaggle unpacks it, /kaggle_simulations/agent, which its own
        # sandbox shows it: so each of two bundles in one game sees its own.
        self.sandbox = sandbox or spec.kind == BUNDLE
        self.memory_mb = memory_mb
        self.widen_to = widen_to  # started on this process's core; all of these once its agent runs threads
        self.pid: int | None = None
        self._popen: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self._out: int | None = None
        self._buffer = b""
        self._output = bytearray()
        self._next_id = 0
        self._configuration: dict | None = None  # the last one sent: the process keeps it
        self._poll: Any = None
        self._game_request = b""  # the start of a game, not yet sent
        self._host: int | None = None  # in a sandbox, the pid of the interpreter serving the agent
        self._cache_root: str | None = None  # a forked process's caches (numba's, one folder per game), removed with it

    # -- life cycle -------------------------------------------------------------------------------------

    def new_game(self, seed: int = 0) -> None:
        """Start a game: the next move loads the agent afresh. A dead process is replaced first."""
        ready = self._ready_now()
        if self._out in ready:
            self._drain_output()
        self._output.clear()
        if not self.alive():
            self._stop()
            self._start()
        else:
            self._kill_started()  # the last game's process, if ``end_game`` did not end it: each game has its own
            if self._sock is not None and self._sock.fileno() in ready:
                self._discard_pending()
        self._buffer = b""
        self._configuration = None  # the game's process is new: the first move carries the configuration
        # sent with the first move's request: one wake-up of the agent's process fewer per game
        self._game_request = _frame({"op": "game", "seed": seed})

    def act(self, observation: dict, configuration: dict, deadline_s: float) -> AgentMove:
        """The agent's answer to one move, or ``timed_out`` once ``deadline_s`` (+ slack) has passed."""
        start = time.perf_counter()
        if self._sock is None:
            return AgentMove(None, 0.0, "the agent's process is not running")
        self._next_id += 1
        wanted = self._next_id
        request = {"op": "act", "id": wanted, "observation": observation}
        if configuration != self._configuration:
            request["configuration"] = configuration
            self._configuration = dict(configuration)  # a copy: what was sent, whatever the caller does next
        if not self._send(request, self._game_request):
            self._kill()
            return AgentMove(None, time.perf_counter() - start, "the agent's process stopped reading its requests")
        limit = start + deadline_s + KILL_SLACK_SECONDS
        sock, out = self._sock.fileno(), self._out
        ready: set[int] = set()
        while True:
            left = limit - time.perf_counter()
            if left > 0:
                ready = {fd for fd, _ in self._poll.poll(left * 1000)}
                if out in ready:
                    self._drain_output()
            for frame in self._frames() if sock in ready or left <= 0 else ():
                if frame is _BROKEN:
                    self._kill()
                    return AgentMove(None, time.perf_counter() - start,
                                     "the agent's process wrote something that is not an answer to its pipe")
                answer = _answer(frame, wanted)
                if answer is _BROKEN:
                    self._kill()
                    return AgentMove(None, time.perf_counter() - start,
                                     "the agent's process sent a malformed answer")
                if answer is not None:
                    action, error = answer
                    return AgentMove(action, time.perf_counter() - start, error)
            if self._sock is None:
                code = self._reap()
                return AgentMove(None, time.perf_counter() - start, f"the agent's process died (exit code {code})")
            if left <= 0:
                self._kill()
                return AgentMove(None, time.perf_counter() - start, None, timed_out=True)

    def logs(self) -> list[str]:
        """The last lines the agent printed (stdout and stderr) since ``new_game``."""
        if self._out in self._ready_now():
            self._drain_output()
        text = self._output.decode("utf-8", "replace")
        return [line for line in text.splitlines() if line.strip()][-LOG_LINES:]

    def peak_memory_mb(self) -> float | None:
        """The peak resident memory (MB) of the agent's process since the last call (the largest of its
        processes', a sandbox's included), or None where Linux's ``/proc`` cannot tell."""
        if self.pid is None:
            return None
        return _peak_mb(process_tree(self.pid))

    def end_game(self) -> float | None:
        """The game is over: kill every process the agent started (a ``multiprocessing`` pool, a worker it
        forked; as Kaggle's episode ends with its container, nothing of the agent's outlives the game) and
        return ``peak_memory_mb()`` (read first, in the same walk of the agent's processes). The host
        process stays, kept for the next game."""
        if self.pid is None:
            return None
        tree = process_tree(self.pid)
        peak = _peak_mb(tree)
        self._kill_started(tree)
        return peak

    def _kill_started(self, tree: list[int] | None = None) -> None:
        """Kill the game's process and everything it started; the host stays (``tree``: the process tree from
        ``self.pid``, when the caller has walked it already)."""
        if self.pid is None:
            return
        tree = process_tree(self.pid) if tree is None else tree
        if self._popen is None:
            started = tree[1:]
        else:  # bubblewrap's processes hold the sandbox's: only what its interpreter started goes
            host = self._host_pid(tree)
            started = process_tree(host)[1:] if host is not None else []
        for pid in started:
            try:
                os.kill(pid, signal.SIGKILL)  # the host reaps them (it is their parent or subreaper)
            except (ProcessLookupError, PermissionError):
                pass

    def _host_pid(self, tree: list[int]) -> int | None:
        """In a sandbox, the pid of the interpreter serving the agent that bubblewrap started (found once by
        its command line, then kept)."""
        if self._host is None or self._host not in tree:
            self._host = None
            for pid in tree:
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as handle:  # not bubblewrap's, which holds it too
                        if handle.read().split(b"\0")[1:4] == [b"-u", b"-m", _SERVER_MODULE]:
                            self._host = pid
                            break
                except OSError:
                    pass
        return self._host

    def alive(self) -> bool:
        if self.pid is None:
            return False
        if self._popen is not None:
            return self._popen.poll() is None
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid:
            self.pid = None
            return False
        return True

    def close(self) -> None:
        """Stop the process (and, in a sandbox, everything it started)."""
        self._stop()

    def __enter__(self) -> "AgentProcess":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------------------

    def _start(self) -> None:
        parent, child = socket.socketpair()
        out_read, out_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        if self.sandbox:
            self._popen = self._start_in_sandbox(child, out_write)
            self.pid = self._popen.pid
        else:
            self._cache_root = tempfile.mkdtemp(prefix="connectx-agent-caches-")
            self.pid = self._fork_agent(child, out_write)
        child.close()
        os.close(out_write)
        parent.setblocking(False)
        os.set_blocking(out_read, False)
        self._sock, self._out, self._buffer = parent, out_read, b""
        self._configuration = None
        self._poll = select.poll()
        for fd in (parent.fileno(), out_read):
            self._poll.register(fd, select.POLLIN)

    def _start_in_sandbox(self, child: socket.socket, out_write: int) -> subprocess.Popen:
        """A fresh interpreter serving the agent inside a bubblewrap sandbox of its own, which shows it the
        agent's file (a bundle at Kaggle's place for it) beyond the system, the environment and the project."""
        from connectx_toolkit.sandbox import Sandbox

        from connectx_toolkit.building import BUNDLE_ROOT

        spec = self.spec
        files = (spec.target,) if spec.kind in (FILE, BUILT) else ()
        mounts = ((spec.folder, BUNDLE_ROOT),) if spec.kind == BUNDLE else ()
        argv = [sys.executable, "-u", "-m", "connectx_toolkit.evaluation.seats.agent_server", str(child.fileno()), spec.kind, spec.target,
                spec.function, str(self.memory_mb), ",".join(map(str, sorted(self.widen_to or ())))]
        return Sandbox(files=files, mounts=mounts).popen(argv, pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL,
                                                         stdout=out_write, stderr=out_write)

    def _fork_agent(self, child: socket.socket, out_write: int) -> int:
        """A fork of this process (warm: its modules already loaded) serving the agent; its pid."""
        spec = self.spec
        pid = os.fork()
        if pid == 0:  # the agent's process: nothing of the referee's open files, its own session
            try:
                os.setsid()
                os.dup2(out_write, 1)
                os.dup2(out_write, 2)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                keep = child.fileno()
                os.closerange(3, keep)
                os.closerange(keep + 1, 1 << 20)
                _unmap_shared_memory()
                own_multiprocessing()
                _default_signals()
                sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
                sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
                from connectx_toolkit.evaluation.seats.agent_server import serve

                serve(keep, spec.kind, spec.target, spec.function, self.memory_mb, cpus=self.widen_to,
                      cache_root=self._cache_root)
            finally:
                os._exit(0)
        return pid

    def _ready_now(self) -> set[int]:
        """The descriptors (the socket, the output pipe) with something to read right now: one system
        call, where trying to read each would be one each and an exception."""
        return {fd for fd, _ in self._poll.poll(0)} if self._poll is not None else set()

    def _send(self, message: dict[str, Any], before: bytes = b"") -> bool:
        if self._sock is None:  # closed
            return False
        try:
            self._sock.sendall(before + _frame(message))
            self._game_request = b""
            return True
        except (BlockingIOError, OSError, AttributeError):
            return False

    def _frames(self) -> list[Any]:
        """Complete frames received so far (``_BROKEN`` for one that cannot be an answer); closes the
        socket on end of file."""
        frames: list[Any] = []
        while self._sock is not None:
            try:
                chunk = self._sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._sock.close()
                self._sock = None
                break
            self._buffer += chunk
            if len(self._buffer) > 4 * MAX_ANSWER_BYTES or _complete(self._buffer):
                break
        while len(self._buffer) >= HEADER_BYTES:
            length = wire.body_length(self._buffer)
            if length > MAX_ANSWER_BYTES:
                frames.append(_BROKEN)
                self._buffer = b""
                break
            if len(self._buffer) < HEADER_BYTES + length:
                break
            body, self._buffer = self._buffer[HEADER_BYTES:HEADER_BYTES + length], self._buffer[HEADER_BYTES + length:]
            try:
                frames.append(wire.decode(body.decode()))
            except ValueError:
                frames.append(_BROKEN)
        return frames

    def _discard_pending(self) -> None:
        """Drop whatever arrived between moves (late answers of earlier moves, a child's chatter)."""
        if self._sock is None:
            return
        self._frames()
        self._buffer = b""

    def _drain_output(self) -> None:
        if self._out is None:
            return
        while True:
            try:
                chunk = os.read(self._out, 65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            if not chunk:  # every writer closed it: stop watching it (an end of file is always "ready")
                try:
                    self._poll.unregister(self._out)
                except (AttributeError, KeyError, ValueError):
                    pass
                return
            self._output += chunk
            if len(self._output) > LOG_BYTES:
                del self._output[:len(self._output) - LOG_BYTES]

    def _kill(self) -> None:
        """Kill the process now (a timeout, a broken pipe), with everything it started; ``new_game``
        starts a fresh one."""
        if self.pid is not None:
            started = process_tree(self.pid)[1:] if self._popen is None else []
            try:
                if self._popen is not None:
                    self._popen.kill()  # bubblewrap's --die-with-parent takes the whole sandbox with it
                else:
                    os.kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if self._popen is None:
                try:  # what it started in its own session (it may not have made the session yet: see above)
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                for pid in started:  # and what left the session (a child's own setsid)
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
        self._reap()
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _reap(self) -> int | None:
        if self.pid is None:
            return None
        code = None
        if self._popen is not None:
            self._popen.kill()
            code = self._popen.wait()
        else:
            try:
                _, status = os.waitpid(self.pid, 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                pass
        self.pid = None
        return code

    def _stop(self) -> None:
        self._kill()
        self._drain_output()
        if self._out is not None:
            os.close(self._out)
            self._out = None
        self._popen = None
        if self._cache_root is not None:  # its process is dead: nobody writes there any more
            shutil.rmtree(self._cache_root, ignore_errors=True)
            self._cache_root = None


_BROKEN = object()
_SERVER_MODULE = b"connectx_toolkit.evaluation.seats.agent_server"


def _frame(message: dict[str, Any]) -> bytes:
    return wire.frame(wire.encode(message))



def _peak_mb(pids: list[int]) -> float | None:
    peaks = [peak for pid in pids if (peak := _take_peak_kb(pid)) is not None]
    return round(max(peaks) / 1024, 1) if peaks else None


def _take_peak_kb(pid: int) -> int | None:
    """A process's peak resident set (``VmHWM``, kB), then reset it (``clear_refs`` 5) so that the next
    reading covers the next game only."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            peak = next((int(line.split()[1]) for line in handle if line.startswith("VmHWM:")), None)
    except (OSError, ValueError, IndexError):
        return None
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass
    return peak


def _default_signals() -> None:
    """In a forked agent process: the signals' default actions, as an agent's process has on Kaggle. Otherwise the
    agent and every process it starts inherit the evaluator's handlers (``evaluate.py`` turns SIGTERM into
    KeyboardInterrupt, a worker ignores SIGINT): a pool worker the agent terminates would unwind through the
    evaluator's code and print its traceback into the agent's log instead of ending."""
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_DFL)


def _unmap_shared_memory() -> None:
    """In a forked agent process: unmap the shared memory inherited from the evaluator (the workers'
    deadline cells live there), so that an agent that finds them through its copy of the worker's
    memory cannot write them; touching them afterwards is a crash of its own process."""
    import ctypes
    from multiprocessing import heap

    munmap = ctypes.CDLL(None, use_errno=True).munmap
    munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    for arena in list(getattr(heap.BufferWrapper._heap, "_arenas", ())):  # pyright: ignore[reportAttributeAccessIssue]  multiprocessing's private heap, whose arenas are unmapped here
        try:
            address = ctypes.addressof(ctypes.c_char.from_buffer(arena.buffer))
        except (TypeError, ValueError, BufferError):
            continue
        munmap(address, arena.size)


def _complete(buffer: bytes) -> bool:
    """Does ``buffer`` hold at least one whole frame (so that reading on would only wait)?"""
    return len(buffer) >= HEADER_BYTES and len(buffer) >= HEADER_BYTES + wire.body_length(buffer)


def _answer(frame: Any, wanted: int) -> Any:
    """``(action, error)`` for the answer to request ``wanted``; None for an answer to another request;
    ``_BROKEN`` for a frame that is no answer at all."""
    if type(frame) is dict and frame.get("id") == wanted and frame.get("error") is None:
        action = frame.get("action")  # the usual answer, a plain column: no more checks needed
        if type(action) is list and len(action) == 3 and action[0] == "int" and type(action[1]) is int:
            return action[1], None
    if not isinstance(frame, dict) or not isinstance(frame.get("id"), int):
        return _BROKEN
    if frame["id"] != wanted:
        return None
    error = frame.get("error")
    if error is not None and not isinstance(error, str):
        return _BROKEN
    try:
        action = decode_action(frame.get("action"))
    except ValueError:
        return _BROKEN
    return action, (error[:1000] if error is not None else None)
