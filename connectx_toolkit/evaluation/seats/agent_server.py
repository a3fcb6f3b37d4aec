"""The agent's side of ``evaluation.seats.agent_process``: a process that holds one seat's agent and answers moves.

Started forked from the referee's worker (``serve``) or, with ``--sandbox``, as a fresh interpreter inside
its own bubblewrap sandbox::

    python -m evaluation.seats.agent_server SOCKET_FD KIND TARGET FUNCTION MEMORY_MB [CPUS]

It reads requests from its socket and writes one answer per move, each a frame (4-byte big-endian
length, then JSON): ``{"op": "game", "seed": S}`` starts a game. An agent's file is played by a process forked
for the game from this one, which never runs the file itself: the game's process runs it once, lazily inside its
first move, as Kaggle's loader ``exec``s a submission once in an episode's process, inside move 1 (so loading is
charged to move 1, and a file that sets ``multiprocessing``'s start method at load, or counts on running once,
runs as it does on Kaggle); what this process imported before (numpy: ``warm_up``) stays imported, what a game
imports goes with its process. The referee ends a game by killing its process (``AgentProcess.end_game``). A
module agent of the toolkit's, a built-in or a callable is loaded afresh in this process at each game's first move
(a fresh module object), its imports kept. ``{"op": "act", "id": K, "observation": ..., "configuration": ...}`` asks for a
move (the configuration only when it differs from the last one sent to the game's process: a game's never
changes), answered by ``{"id": K, "action": [kind, value, type],
"error": None | "one line"}`` (the action's type preserved, see ``agent_move``). Its stdout and stderr
are the pipe the referee keeps the game's logs from. Nothing the referee reads from here is unpickled.

Caches as on Kaggle, which loads a submission once per episode on a fresh machine: every game gets a numba cache
of its own (``NUMBA_CACHE_DIR``, a new folder under ``CACHE_ROOT`` per game, the last game's removed), so an
``@njit(cache=True)`` agent compiles afresh each game, never on a cache an earlier game or an earlier run of the
user's wrote (with ``NUMBA_CACHE_DIR`` set numba's first locator, ``UserProvidedCacheLocator``, caches there and
never beside the file: a stale or corrupt ``__pycache__/*.nbi`` in the user's folder is neither read nor written).
The agent still sees its file where it lies, under its own name (``__file__``-less, as Kaggle's loader runs it).
No bytecode is written either: nothing lands in the user's folder.

``CPUS`` (comma-separated): the process starts on its worker's core (a move's round trip then stays on
one core); once its agent runs a second thread or forks a process, every thread of it (and the processes it
forks, which inherit its mask) may use all of ``CPUS``.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import mmap
import os
import random
import shutil
import signal
import sys
import time
from typing import Any, Callable

from connectx_toolkit.building.kaggle_rules import NO_CALLABLE, call, format_agent_error, last_callable, raised_in
from connectx_toolkit.evaluation.seats import wire
from connectx_toolkit.evaluation.seats.agent_kinds import BUILTIN, CALLABLE, LOADED_FROM_FILE, MODULE
from connectx_toolkit.evaluation.seats.agent_move import encode_action
from connectx_toolkit.evaluation.seats.observation import structify

MAX_REQUEST_BYTES = 16 * 1024 * 1024
SANDBOX_CACHE_ROOT = "/tmp/connectx-caches"  # in the sandbox's private /tmp, gone with it
SLOW_MOVE_SECONDS = 0.002  # a move at least this long is followed by a look at the process's threads


def serve(sock_fd: int, kind: str, target: str, function: str, memory_mb: int, sandboxed: bool = False,
          cpus: frozenset[int] | None = None, cache_root: str | None = None) -> None:
    """Answer requests until the socket closes; ``cpus``: what to widen to once the agent runs threads or
    starts a process;
    ``cache_root``: where each game's own numba cache goes (a folder only this process writes to; by default
    ``SANDBOX_CACHE_ROOT``, in a sandbox's private /tmp).

    An agent's file (what Kaggle loads: ``LOADED_FROM_FILE``) is never loaded here: each game is played by a
    process forked from this one for that game (``_play_game``), which runs the file once, at its first move, as
    Kaggle runs a submission's file once in the process of an episode (a file that chooses ``multiprocessing``'s
    start method at load, or counts on running once, runs as it runs there). The toolkit's own module agents,
    Kaggle's built-ins and callables are loaded afresh here at each game, as fresh module objects: a fork a game
    costs a few milliseconds to tens of them (the more this process holds), which fast agents' runs would pay
    many times over."""
    cache_root = cache_root or SANDBOX_CACHE_ROOT
    warm_up(kind, target)  # before the memory cap, as the referee's own process had it imported
    isolate(memory_mb)
    sys.dont_write_bytecode = True  # the modules an agent imports from its folder: no __pycache__ there
    gc.freeze()  # what was inherited stays out of the collector's way (and its pages shared with the referee)
    requests = _Requests(sock_fd)
    games, seed = 0, 0
    request = requests.next()
    while request is not None:
        if request.get("op") == "game":
            if sandboxed:
                _kill_leftovers()
            else:
                _reap_leftovers()
            games += 1
            fresh_caches(cache_root, games)
            seed = int(request.get("seed", 0))
            request = requests.next()
            if request is None:
                return
            continue
        # the game's first move (a move without a "game" before it starts one too)
        if kind in LOADED_FROM_FILE:  # a process of its own plays it
            request = _play_game(requests, request, sock_fd, kind, target, function, cpus, seed)
        else:
            _seed(seed)
            request = _answer_moves(requests, request, sock_fd, kind, target, function, cpus, bytearray(1))


def _play_game(requests: "_Requests", first: dict[str, Any], sock_fd: int, kind: str, target: str, function: str,
               cpus: frozenset[int] | None, seed: int) -> dict[str, Any] | None:
    """Fork the game's own process, which loads the agent once and answers ``first`` and every move after it,
    until the referee ends the game by killing it (``AgentProcess.end_game``) or the socket closes; then the
    next request, read here. A game process that reads the start of another game (the referee did not end the
    game first) hands it back through a pipe and exits: the next game is played by a fresh process."""
    handoff, handing = os.pipe()
    moving = mmap.mmap(-1, 1)  # shared with the game's process: 1 while it owes the referee an answer
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(handoff)
            from connectx_toolkit.evaluation.seats.process_limits import die_with_parent

            die_with_parent()  # (not inherited across a fork): dies with the process it was forked from
            _seed(seed)  # here: ``random`` reseeds itself in a forked child
            if _answer_moves(requests, first, sock_fd, kind, target, function, cpus, moving) is not None:
                data = requests.last + requests.pending  # the next game's start, handed back as it arrived
                while data:
                    data = data[os.write(handing, data):]
        finally:
            os._exit(0)
    os.close(handing)
    requests.pending = b""  # what was read ahead is the game process's now
    status = 0
    while True:
        try:
            status = os.waitpid(pid, 0)[1]
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            break
    if moving[0]:  # it died in the middle of a move (the referee ends a game between moves): so does this
        _die_as(os.waitstatus_to_exitcode(status))  # process, so that the referee sees the agent's process die
    os.set_blocking(handoff, False)
    handed = b""
    try:
        while chunk := os.read(handoff, 65536):
            handed += chunk
    except (BlockingIOError, OSError):
        pass
    os.close(handoff)
    requests.pending = handed + requests.pending
    return requests.next()


def _answer_moves(requests: "_Requests", request: dict[str, Any] | None, sock_fd: int, kind: str, target: str,
                  function: str, cpus: frozenset[int] | None, moving: Any) -> dict[str, Any] | None:
    """Load the agent at the first move, answer every move until the socket closes (None) or the next game
    starts (its request returned); ``moving[0]`` is 1 while an answer is owed."""
    agent: Callable[..., Any] | None = None
    configuration: dict[str, Any] = {}
    if cpus and not _NARROW:
        _NARROW.append(cpus)
        # A process the agent forks inherits its mask: widen first, so that its workers spread over the cores as
        # they do under Kaggle's runner (pinned to one core with it, they and the main process each got a share
        # of it, and a search split among them lost its races far more often: issue 54)
        os.register_at_fork(before=lambda: _widen_once(_NARROW))
    while request is not None:
        if request.get("op") == "game":
            return request
        if request.get("op") == "act":
            moving[0] = 1
            reply: dict[str, Any] = {"id": request.get("id"), "action": None, "error": None}
            action = None
            started, first = time.perf_counter(), agent is None
            try:
                if "configuration" in request:
                    configuration = request["configuration"]
                    if kind in LOADED_FROM_FILE:
                        configuration["__raw_path__"] = target  # what Kaggle's file loader adds
                if agent is None:
                    agent = load(kind, target, function)
                action = call(agent, structify(request["observation"]), structify(configuration))
                if type(action) is not int:
                    reply["action"] = encode_action(action)
            except BaseException as error:  # anything the agent does wrong is its move's error
                reply["error"] = _describe(error)
                if agent is not None and raised_in(error) is call.__code__:
                    # raised by the call itself (a class, or a callable that takes other arguments): say what
                    # was called, not this line
                    name = getattr(agent, "__name__", type(agent).__name__)
                    reply["error"] = (f"{type(error).__name__}: {error} (calling {name}(observation, configuration)"
                                      f" as the agent)")
                reply["action"] = encode_action(None)
                action = None
            for output in (sys.stdout, sys.stderr):
                try:
                    output.flush()
                except Exception:  # the agent closed or replaced it
                    pass
            if _NARROW and _NARROW[0] and (first or time.perf_counter() - started > SLOW_MOVE_SECONDS):
                # (threads that only quick moves start are not worth a check every move); processes started
                # without a fork of this one (spawned: a new program) have its old mask: widened with it
                processes = _started_processes()
                if processes or _threads() > 1:
                    _widen_once(_NARROW, processes)
            # cleared before the answer goes: once the referee has it, it may end the game (kill this process)
            # at any moment, and its host must not take that for a death in the middle of a move
            moving[0] = 0
            if type(action) is int and type(reply["id"]) is int:  # the usual answer, written without the encoder
                _write_body(sock_fd, b'{"id":%d,"action":["int",%d,"int"],"error":null}' % (reply["id"], action))
            else:
                if reply["action"] is None:
                    reply["action"] = encode_action(action)
                _write_frame(sock_fd, reply)
        request = requests.next()
    return None


_NARROW: list[frozenset[int] | None] = []  # the CPUs to widen this process to (once: then None)


def _die_as(code: int) -> None:
    """End this process as its game's process ended: the same exit code, or the same signal."""
    if code < 0:
        try:
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        except (OSError, ValueError):
            pass
    os._exit(code if code > 0 else 1)


# Callables given from Python (``evaluation.seats.agent_specs`` registers them, by token), played live: filled
# before the worker processes fork, so they and the agent processes they fork inherit it.
CALLABLES: dict[str, Callable[..., Any]] = {}


def load(kind: str, target: str, function: str) -> Callable[..., Any]:
    """A fresh agent callable: a file as Kaggle's ``get_last_callable`` loads it (``exec`` in a fresh
    dict, its folder on ``sys.path`` meanwhile, the last callable), a module as a fresh module object."""
    if kind in LOADED_FROM_FILE:
        with open(target, encoding="utf-8") as handle:
            source = handle.read()
        code = compile(source, target, "exec")
        namespace: dict[str, Any] = {}
        sys.path.append(os.path.dirname(target))
        try:
            exec(code, namespace)
        finally:
            sys.path.pop()
        entry = last_callable(namespace)
        if entry is None:
            raise ValueError(NO_CALLABLE)
        return entry
    if kind == MODULE:
        spec = importlib.util.find_spec(target)
        if spec is None or spec.loader is None:  # as importing it would say
            raise ModuleNotFoundError(f"No module named {target!r}", name=target)
        module = importlib.util.module_from_spec(spec)
        code = _module_code(spec)
        if code is None:  # a loader without code objects
            spec.loader.exec_module(module)
        else:
            exec(code, module.__dict__)  # a fresh module object, as ``exec_module`` makes it
        return getattr(module, function)
    if kind == BUILTIN:
        from kaggle_environments.envs.connectx.connectx import agents

        return agents[target]
    if kind == CALLABLE:
        return CALLABLES[target]
    raise ValueError(f"unknown agent kind {kind!r}")


_CODE: dict[str, Any] = {}


def _module_code(spec: Any) -> Any:
    """The module's code object, read once per process: the module itself is executed afresh every
    game, but unmarshalling its ``.pyc`` again each game cost 30 times the exec of a small module."""
    if spec.origin not in _CODE:
        get_code = getattr(spec.loader, "get_code", None)
        _CODE[spec.origin] = get_code(spec.name) if get_code is not None else None
    return _CODE[spec.origin]


def warm_up(kind: str, target: str) -> None:
    """Import what a module or built-in agent depends on, and read a module agent's code, before any timed move
    and in the process each game's process is forked from: each game still runs a fresh module, but neither
    imports its dependencies nor reads its code again (a game's process takes what it imports with it)."""
    try:
        if kind == MODULE:
            importlib.import_module(target)
            spec = importlib.util.find_spec(target)
            if spec is not None and spec.loader is not None:
                _module_code(spec)
        elif kind == BUILTIN:
            import kaggle_environments.envs.connectx.connectx  # noqa: F401
    except Exception:  # the agent's own problem: it shows at its first move
        pass


def fresh_caches(root: str, game: int) -> None:
    """Game ``game``'s own numba cache, ``ROOT/game-N`` (made by numba when the agent first caches), the previous
    game's removed: as Kaggle's fresh machine per episode, no game loads code another game compiled."""
    previous = os.environ.get("NUMBA_CACHE_DIR")
    if previous and os.path.dirname(previous) == root:
        shutil.rmtree(previous, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(root, f"game-{game}")
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba already imported (an earlier game's agent): it reads its settings again
        try:
            config.reload_config()
        except Exception:  # numba's own trouble: the agent meets it at its first move
            pass


def isolate(memory_mb: int) -> None:
    """Die with the referee, cap the address space (an agent that hoards gets MemoryError)."""
    from connectx_toolkit.evaluation.seats.process_limits import adopt_orphans, cap_address_space, die_with_parent

    die_with_parent()
    adopt_orphans()
    cap_address_space(memory_mb)


def _describe(error: BaseException) -> str:
    try:
        return format_agent_error(error)[:1000]
    except Exception:  # never let the description itself fail the answer
        return f"{type(error).__name__}"


def _seed(seed: int) -> None:
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)


class _Requests:
    """The referee's requests, frame by frame, from the socket (``wire``'s framing): what was read past the
    current frame stays in ``pending``, and ``last`` is the current frame's bytes, so that a game's process can
    hand back the start of the next game exactly as it arrived."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""
        self.last = b""

    def next(self) -> dict[str, Any] | None:
        """The next request; None at the end of the socket or for a frame too large to be one."""
        header = self._take(wire.HEADER_BYTES)
        if header is None:
            return None
        length = wire.body_length(header)
        if length > MAX_REQUEST_BYTES:
            return None
        body = self._take(length)
        if body is None:
            return None
        self.last = header + body
        return wire.decode(body.decode())

    def _take(self, size: int) -> bytes | None:
        while len(self.pending) < size:
            try:
                chunk = os.read(self.fd, max(65536, size - len(self.pending)))
            except InterruptedError:
                continue
            except OSError:
                return None
            if not chunk:
                return None
            self.pending += chunk
        taken, self.pending = self.pending[:size], self.pending[size:]
        return taken


def _write_frame(fd: int, message: dict[str, Any]) -> None:
    _write_body(fd, wire.encode(message))


def _write_body(fd: int, body: bytes) -> None:
    data = wire.frame(body)
    while data:
        data = data[os.write(fd, data):]


def _threads() -> int:
    """Threads of this process (a ``/proc`` task folder links to ``.``, ``..`` and one entry per thread)."""
    try:
        return os.stat("/proc/self/task").st_nlink - 2
    except OSError:
        return 1


def _widen_once(narrow: list[frozenset[int] | None], started: list[int] = []) -> None:  # noqa: B006 (read only)
    """Widen this process and the processes in ``started`` to ``narrow[0]`` (then None: once is enough)."""
    cpus, narrow[0] = narrow[0], None
    if cpus:
        _widen(cpus)
        for pid in started:
            try:
                os.sched_setaffinity(pid, cpus)
            except OSError:  # gone already
                pass


def _started_processes() -> list[int]:
    """The processes this one started that still run, and theirs."""
    from connectx_toolkit.evaluation.seats.process_limits import process_tree

    return process_tree(os.getpid())[1:]


def _widen(cpus: frozenset[int]) -> None:
    """Let every thread of this process (and those it starts later) run on any of ``cpus``."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        tasks = ["0"]
    for task in tasks:
        try:
            os.sched_setaffinity(int(task), cpus)
        except (OSError, ValueError):
            pass
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        pass


def _kill_leftovers() -> None:
    """In a sandbox this process is pid 2 of its own pid namespace: ``kill(-1)`` reaches exactly the
    processes the agent left behind (and reaping keeps zombies off the process cap)."""
    if os.getpid() != 2:
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _reap_leftovers() -> None:
    """Forked from a worker: the processes the agent started last game were killed when it ended
    (``AgentProcess.end_game``); reap them (orphans of theirs too: this process is their subreaper),
    and forget them in ``multiprocessing``, which would otherwise poll them at every start of a process."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == 0:
            break
    process = sys.modules.get("multiprocessing.process")
    if process is not None:
        process._children.clear()


def main(argv: list[str]) -> None:
    sock_fd, kind, target, function, memory_mb = argv[:5]
    cpus = frozenset(int(cpu) for cpu in argv[5].split(",")) if len(argv) > 5 and argv[5] else None
    try:
        import numpy  # noqa: F401  (imported before the memory cap, as the referee's own process had it)
    except ImportError:
        pass
    serve(int(sock_fd), kind, target, function, int(memory_mb), sandboxed=True, cpus=cpus)


if __name__ == "__main__":
    main(sys.argv[1:])
