"""A clean interpreter kept ready: each check is a child forked from it rather than a fresh ``python -I``.

The builder's validation and the gate's load check each run in a clean interpreter (``python -I`` in an empty
folder, the editable install forgotten) that first imports kaggle_environments: about 0.5 s of CPU before the
agent's file is even read, paid again by every check. A process that checks more than once (a notebook
building variants, the Python API in a loop, a test run) starts one such interpreter,
``kaggle_check.py --serve``, which does that part once and forks a child for each command. The child is what
the fresh interpreter would be at that point: same executable and flags, the editable install forgotten,
kaggle_environments imported and one episode run, then the command's folder, environment and arguments,
stdin from /dev/null, its own stdout and stderr, the code or script run as ``__main__``. What differs: its
process id and parent, and the string hash seed, which it shares with the kept interpreter (a fresh one
draws its own).

``run_clean`` returns what ``subprocess.run`` would for the command, and runs the command itself where no
kept interpreter can serve: a command other than this interpreter's ``-I`` (the sandbox's, and a check with
packages ``--allow-import`` admits from outside the interpreter, which ``kaggle_check`` puts on the import
path before kaggle_environments is imported, are run fresh by their callers), a process forked from the one
that started the interpreter, a second thread checking at the same time, or ``CONNECTX_CLEAN_ROOM=fresh`` in
the environment (the reference path, one variable away).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Sequence

CHECK_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kaggle_check.py")
FRESH = "CONNECTX_CLEAN_ROOM"  # set to "fresh": every check in a fresh interpreter
START_SECONDS = 120.0  # the kept interpreter's start (kaggle_environments' import and one episode)


def run_clean(command: Sequence[str], *, cwd: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, cwd=cwd, timeout=timeout, capture_output=True, text=True, stdin=DEVNULL)``
    for a ``command`` of this interpreter in isolated mode (``[sys.executable, "-I", "-c", CODE, ...]`` or
    ``[sys.executable, "-I", SCRIPT, ...]``), answered by a child of the kept interpreter where one can
    serve. Raises ``subprocess.TimeoutExpired`` as ``subprocess.run`` does."""
    command = list(command)
    kept = command[:2] == [sys.executable, "-I"] and len(command) > 2 and os.environ.get(FRESH) != "fresh"
    server = _server() if kept else None
    if server is not None and server.lock.acquire(blocking=False):
        try:
            done = server.run(command, cwd, timeout)
        finally:
            server.lock.release()
        if done is not None:
            return done
        _give_up(server)
    return subprocess.run(command, cwd=cwd, timeout=timeout, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)


class _KeptInterpreter:
    """``kaggle_check.py --serve`` and the two lines it answers each request with (see ``kaggle_check.serve``)."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.pending = b""
        self.process = subprocess.Popen([sys.executable, "-I", CHECK_SCRIPT, "--serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd="/")
        self.alive = self._reply(time.monotonic() + START_SECONDS) == {"ready": True}

    def run(self, command: list[str], cwd: str, timeout: float) -> subprocess.CompletedProcess[str] | None:
        """What the fresh ``command`` would give; None if the kept interpreter could not answer (it died)."""
        with tempfile.TemporaryDirectory(prefix="connectx-clean-") as folder:
            out, err = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
            for name in (out, err):
                open(name, "wb").close()
            request = {"argv": command[2:], "cwd": os.path.abspath(cwd), "env": dict(os.environ),
                       "stdout": out, "stderr": err}
            deadline = time.monotonic() + timeout
            try:
                assert self.process.stdin is not None
                self.process.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
                self.process.stdin.flush()
            except OSError:
                self.alive = False
                return None
            started = self._reply(deadline)
            if not started or "pid" not in started:
                self.alive = False
                return None
            pid = started["pid"]
            try:
                ended = self._reply(deadline)
            except BaseException:  # Ctrl-C while it runs: the check goes with the caller
                _kill_group(pid)
                raise
            if ended is None:  # out of time, or the kept interpreter died: its child goes either way
                _kill_group(pid)
                if self.process.poll() is None and self._reply(time.monotonic() + 10) is not None:
                    raise subprocess.TimeoutExpired(command, timeout)
                self.alive = False
                return None
            with open(out, encoding="utf-8", errors="replace") as handle:
                stdout = handle.read()
            with open(err, encoding="utf-8", errors="replace") as handle:
                stderr = handle.read()
        return subprocess.CompletedProcess(command, ended["exit"], stdout, stderr)

    def _reply(self, deadline: float) -> dict[str, Any] | None:
        """The next line the kept interpreter writes, parsed; None at the deadline or at its end."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            return None

    def close(self) -> None:
        """End of its stdin ends it; it is waited for (a check still running is not: it is killed)."""
        if os.getpid() != self.owner:
            return
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _kill_group(pid: int) -> None:
    """The check's child and whatever it started (the child leads a process group of its own)."""
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except OSError:
            pass


_kept: _KeptInterpreter | None = None
_failed = False  # it could not start, or died once: fresh interpreters from then on
_starting = threading.Lock()


def _give_up(server: _KeptInterpreter) -> None:
    """The kept interpreter died under a check: fresh interpreters from now on."""
    global _kept, _failed
    with _starting:
        if _kept is server:
            _kept, _failed = None, True
    server.close()


def _server() -> _KeptInterpreter | None:
    """This process's kept interpreter, started at its first check; None where it cannot serve."""
    global _kept, _failed
    with _starting:
        if _kept is not None and _kept.owner != os.getpid():  # a forked copy of the process that started it
            return None
        if _kept is None and not _failed:
            try:
                kept = _KeptInterpreter()
            except OSError:
                _failed = True
                return None
            if not kept.alive:
                kept.process.kill()
                _failed = True
                return None
            _kept = kept
            atexit.register(kept.close)
        return _kept
