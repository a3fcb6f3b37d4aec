"""Turn an agent argument ("greedy", "path/to/submission.py", "negamax") into something a game can load.

Three kinds of agent, looked up in this order:

- a ``.py`` file (or any existing path): loaded per game exactly as Kaggle loads a submission —
  ``kaggle_environments.agent.build_agent`` reads the source and, on the first move, ``exec``s it and takes
  the last callable (``get_last_callable``);
- a module ``agents.<name>`` exposing ``agent(obs, config)``: a fresh module instance per game, so two
  seats (or two games) never share module state;
- a Kaggle built-in (``random``, ``negamax``).

``resolve_agent`` checks all of this up front (a broken file is executed once in a throwaway child
process, so a file that hangs or crashes on load cannot take the caller with it).
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing
import os
import subprocess
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass
from io import StringIO
from typing import Any, Callable

BUILTINS = ("random", "negamax")
LOAD_CHECK_SECONDS = 60.0  # how long a file may take to execute its top level when it is checked


class AgentSpecError(ValueError):
    """An agent argument that names nothing usable; the message is one line meant for the user."""


@dataclass(frozen=True)
class AgentSpec:
    """A resolved agent: ``kind`` is "file", "module" or "builtin"; picklable (plain strings only).

    ``name`` is what reports show (the argument as the user gave it); ``target`` is an absolute file
    path, a dotted module name or a built-in name.
    """

    name: str
    kind: str
    target: str

    def load(self) -> Callable[..., Any]:
        """A fresh agent callable for one game (call it in the process that plays the game)."""
        if self.kind == "file":
            from kaggle_environments.agent import build_agent

            callable_agent, _ = build_agent(self.target, {}, "connectx")
            return callable_agent
        if self.kind == "module":
            spec = importlib.util.find_spec(self.target)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.agent
        if self.kind == "builtin":
            from kaggle_environments.envs.connectx.connectx import agents

            return agents[self.target]
        raise AgentSpecError(f"unknown agent kind {self.kind!r}")


def resolve_agent(spec: str, sandbox: bool = False) -> AgentSpec:
    """Resolve a command-line agent argument; raises ``AgentSpecError`` (one line) when unusable.

    ``sandbox``: a file's load check runs inside a bubblewrap sandbox (see ``sandbox``)."""
    if not spec or not spec.strip():
        raise AgentSpecError("empty agent name")
    if spec.endswith(".py") or os.sep in spec or os.path.isfile(spec):
        return _resolve_file(spec, sandbox)
    if spec.isidentifier() and _module_exists(f"agents.{spec}"):
        return _resolve_module(spec)
    if spec in BUILTINS:
        return AgentSpec(spec, "builtin", spec)
    raise AgentSpecError(
        f"unknown agent {spec!r}: not a file, not a module in agents/, not a Kaggle built-in {BUILTINS}"
    )


def _module_exists(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


def _resolve_module(name: str) -> AgentSpec:
    dotted = f"agents.{name}"
    try:
        with redirect_stdout(StringIO()):
            module = importlib.import_module(dotted)
    except Exception as error:  # a broken module is a user error, reported in one line
        raise AgentSpecError(f"agent module {dotted} failed to import: {type(error).__name__}: {error}") from None
    if not callable(getattr(module, "agent", None)):
        raise AgentSpecError(f"agent module {dotted} has no callable 'agent'")
    return AgentSpec(name, "module", dotted)


def _resolve_file(path: str, sandbox: bool = False) -> AgentSpec:
    if not os.path.isfile(path):
        raise AgentSpecError(f"agent file {path!r} does not exist")
    try:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise AgentSpecError(f"agent file {path!r} cannot be read: {error}") from None
    try:
        compile(source, path, "exec")
    except SyntaxError as error:
        raise AgentSpecError(f"agent file {path!r} has a syntax error (line {error.lineno}): {error.msg}") from None
    problem = _check_loads(os.path.abspath(path), sandbox)
    if problem:
        raise AgentSpecError(f"agent file {path!r} cannot be loaded as a Kaggle submission: {problem}")
    return AgentSpec(path, "file", os.path.abspath(path))


def _check_loads(path: str, sandbox: bool = False) -> str | None:
    """Execute the file with Kaggle's loader in a child process; None if it yields a callable.

    The child is forked, or with ``sandbox`` a fresh interpreter inside a sandbox that sees the file."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    sys.stdout.flush()
    sys.stderr.flush()
    if sandbox:
        from sandbox import Sandbox

        child = Sandbox(files=(path,)).popen(
            [sys.executable, "-c", _SANDBOXED_LOAD, path, str(send.fileno())], pass_fds=(send.fileno(),),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        exit_code, kill, join = child.poll, child.kill, child.wait
    else:
        child = context.Process(target=_load_in_child, args=(path, send), daemon=True)
        child.start()
        exit_code, kill, join = (lambda: child.exitcode), child.kill, child.join
    send.close()
    try:
        if receive.poll(LOAD_CHECK_SECONDS):
            return receive.recv()
        return f"loading took longer than {LOAD_CHECK_SECONDS:.0f} s"
    except EOFError:
        join()
        return f"the loader process died (exit code {exit_code()})"
    finally:
        if exit_code() is None:
            kill()
        join()


_SANDBOXED_LOAD = """import sys
from multiprocessing.connection import Connection
from evaluation.agents import _load_in_child
_load_in_child(sys.argv[1], Connection(int(sys.argv[2])))
"""


def _load_in_child(path: str, send: Any) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        from kaggle_environments.agent import get_last_callable

        with open(path, encoding="utf-8") as handle:
            get_last_callable(handle.read(), path=path)
        send.send(None)
    except BaseException as error:  # anything the file does wrong is the answer, not a crash
        message = str(error) or type(error).__name__
        if message.startswith("Invalid raw Python: "):
            message = message[len("Invalid raw Python: "):]
        if "list index out of range" in message:
            message = "it defines no callable"
        send.send(message.splitlines()[0] if message else type(error).__name__)
