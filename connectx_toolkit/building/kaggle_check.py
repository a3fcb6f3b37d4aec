"""Kaggle's checks on one submission file, run in a clean interpreter.

Run as ``python -I building/kaggle_check.py SUBMISSION REPORT`` with an empty working directory:
``-I`` keeps the script's directory off ``sys.path`` and ``forget_editable_installs()`` drops the checkout
that an editable install (run.sh's ``pip install -e .``) puts there, so the file sees what it sees on
Kaggle (the standard library, numpy and kaggle_environments, nothing next to it). The script

1. confirms the project is not importable (``import connectx_toolkit`` must fail, and ``import agents`` must not
   find the toolkit's own agents);
2. loads the file with ``kaggle_environments.agent.get_last_callable`` — Kaggle's own loader — and times it,
   noting the name the callable is bound to and what kind of callable it is (``entry``);
3. plays Kaggle's validation episode (the file against itself) and one game against each built-in agent,
   through ``env.run``, each seat of the submission in a process of its own that runs the file once with
   Kaggle's ``build_agent`` (lazily, inside move 1), as Kaggle runs a submission once in an agent's process (the
   load of step 2 too has a process of its own: ``Apart``);
4. watches every file the submission opens for reading outside the Python installation, with the agent's
   own ``file:line`` that opened it: a regular file that opened here (``reads``) is data that Kaggle would
   not have, one that did not (``tries``) is a read the agent lived through or died of. Probes are not
   reads: directories, files the agent created itself (or moved into place, as numba writes its cache: in one
   of the submission's processes, for all of them), ``os.open`` that creates a file (the temp folder
   probe of ``tempfile.gettempdir()``, which torch and dill make at import), writes, ``stat``, ``access``;
   and notes the top-level packages imported from the load on (``imported``: an import inside a function runs
   only when a game calls it);
5. writes a JSON report to REPORT (not stdout: the loader echoes whatever the file prints).

Usage: ``python -I kaggle_check.py SUBMISSION REPORT [NAME=FOLDER ...]``: each ``NAME=FOLDER`` makes the
installed package NAME importable from FOLDER (a package ``--allow-import`` admits that the builder finds
outside this interpreter's own site-packages, e.g. in ``PYTHONPATH``), and nothing else of FOLDER.

Frames of code the builder generated (a file whose header says so, the entry wrapper) are never named as
the agent's: an error raised by calling the entry is told at the entry's own ``file:line``.

Kaggle's rules themselves (the loader, the entry rule, one line for an agent's error) are
``building/kaggle_rules.py``'s, loaded by path: this file depends on nothing else in the project.
``building.validation`` runs it and reads the report.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pickle
import socket
import sys
import sysconfig
from typing import Any

# (opponent, seats of the submission) in the order they are played; seat 0 moves first.
GAMES = (("itself", (0, 1)), ("random", (0,)), ("negamax", (1,)))
FAILED = ("ERROR", "INVALID", "TIMEOUT")


def _by_path(relative: str, name: str) -> Any:
    """A file of the toolkit's (``relative`` to the package), loaded by path: this script runs where the project
    is not importable; each such file depends on nothing else in the project."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), relative)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its classes name it as their module
    spec.loader.exec_module(module)
    return module


rules = _by_path(os.path.join("building", "kaggle_rules.py"), "connectx_kaggle_rules")
limits = _by_path(os.path.join("evaluation", "seats", "process_limits.py"), "connectx_process_limits")
forget_editable_installs = rules.forget_editable_installs  # (tests run it in their own clean interpreters)
summarize_traceback = rules.summarize_traceback


def load(path: str) -> dict[str, Any]:
    """Load the file as Kaggle does; report the time, the name Kaggle's callable is bound to in the file
    (``last_callable``) and what it is (``entry``: ``a function act``, ``an object, an instance of Agent, bound
    to agent``, ``a function act, through the builder's entry wrapper agent``...)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    rules.TOOLKIT.note_file(path, text)
    namespaces = watch_namespace()
    try:
        entry, seconds = rules.load_file(path, text)  # the text read once, for the header and the loader
    except rules.LoadFailure as failure:
        return {"ok": False, "reason": f"Kaggle's loader failed: {failure}"}
    namespace = namespaces[-1] if namespaces else {}
    names = [name for name, value in namespace.items() if callable(value)]  # the loader's own rule
    rules.TOOLKIT.note_entry(entry)
    name = names[-1] if names else getattr(entry, "__name__", "?")
    if rules.is_wrapper(entry):
        described = f"{rules.describe_callable(rules.unwrapped(entry))}, through the builder's entry wrapper {name}"
    else:
        described = (rules.describe_callable(entry)
                     + (f", bound to {name}" if getattr(entry, "__name__", None) != name else ""))
    report = {"ok": True, "load_s": seconds, "last_callable": name, "entry": described}
    bound = rules.wrapped_name(entry)  # the agent's own name for what the wrapper calls
    if bound is not None:
        report["entry_name"] = bound
    return report


def load_apart(path: str) -> dict[str, Any]:
    """``load(path)`` in a process of its own (``Apart``), as Kaggle loads a submission in an agent's process;
    what it learnt of the builder's frames (``rules.TOOLKIT``) is kept here, for the games' tracebacks."""
    process = Apart(lambda _: (load(path), vars(rules.TOOLKIT)))
    try:
        report, toolkit = process.ask("load")
    except EOFError:
        return {"ok": False, "reason": f"Kaggle's loader failed: the file ended its process (exit code "
                                       f"{process.exit_code})"}
    finally:
        process.close()
    vars(rules.TOOLKIT).update(toolkit)
    return report


def watch_namespace() -> list[dict[str, Any]]:
    """The dicts Kaggle's loader executes a file in (``exec(code, env)`` in ``get_last_callable``), caught
    by an audit hook as they are handed to ``exec``: the loader returns the callable, not the name it had."""
    found: list[dict[str, Any]] = []

    def hook(event: str, args: tuple) -> None:
        if event == "exec":
            caller = sys._getframe(1)
            if caller.f_code.co_name == "get_last_callable" and isinstance(caller.f_locals.get("env"), dict):
                found.append(caller.f_locals["env"])

    sys.addaudithook(hook)
    return found


def outcome(final: list[Any], seats: tuple[int, ...]) -> str:
    """The result of a finished game (``final``: the last step's per-seat states) for the submission in
    ``seats``: ``win``/``loss``/``draw``; in self-play which copy won. A game it forfeits is ``loss (timeout)``
    (``error``, ``invalid``) whatever the rewards say: Kaggle leaves the other seat 0, a draw's reward, and in
    the validation episode either copy's forfeit is the submission's."""
    forfeits = [final[seat].status for seat in seats if final[seat].status in FAILED]
    if forfeits:
        return f"loss ({forfeits[0].lower()})"
    status, reward = final[seats[0]].status, final[seats[0]].reward
    if status != "DONE":
        return status.lower()
    names = {1: "1 won", -1: "2 won", 0: "draw"} if len(seats) == 2 else {1: "win", -1: "loss", 0: "draw"}
    return names.get(reward, f"reward {reward}")


def play(path: str, opponent: str, seats: tuple[int, ...]) -> dict[str, Any]:
    """One game on Kaggle's referee; the submission sits in ``seats`` (both for the validation episode)."""
    from kaggle_environments import make

    env = make("connectx", debug=False)
    nones: list[int] = []
    own = {seat: Apart(agent_answers(path)) for seat in seats}  # each seat of the submission: a process of its own
    try:
        env.run([seat_agent(own[seat], nones) if seat in seats else opponent for seat in range(2)])
    finally:
        for process in own.values():
            process.close()
    steps: list[list[Any]] = env.steps  # Structs (attribute access), which kaggle_environments types as dicts
    final = steps[-1]
    seat = seats[0]
    moves = sum(1 for step in steps[:-1] for s in seats if step[s].status == "ACTIVE")
    durations = [
        log[s]["duration"]
        for log in env.logs
        for s in seats
        if s < len(log) and isinstance(log[s], dict) and "duration" in log[s]
    ]
    game = {
        "opponent": opponent,
        "seat": "1+2" if len(seats) == 2 else str(seat + 1),
        "result": outcome(final, seats),
        "moves": moves,
        "plies": len(env.steps) - 1,
        "max_move_s": max(durations, default=0.0),
        "failure": None,
    }
    for s in seats:
        if final[s].status in FAILED:
            game["failure"] = describe_failure(env, s)
            break
    else:
        if any(final[s].status != "DONE" for s in range(2)):
            statuses = [final[s].status for s in range(2)]
            game["failure"] = f"the episode did not finish (statuses {statuses})"
    if nones:  # the cause of whatever followed (column 0 fills up: INVALID)
        problem = f"returned None at ply {nones[0]}: Kaggle plays column 0; return an int"
        game["failure"] = f"{problem} (then {game['failure']})" if game["failure"] else problem
    return game


class Apart:
    """A process of the submission's own, forked from the check's before the file ever ran here: it runs the file
    once, as Kaggle runs a submission once in an agent's process (a second run in one process would meet its own
    first: a ``multiprocessing.set_start_method`` at load raises "context has already been set"). It answers
    each request with ``answer(request)``; at ``close`` it sends back what the read watcher saw in it, merged
    into this process's watcher. Requests and answers are pickles: the check's process and the submission's
    are one trust domain (the sandbox, when there is one, holds both)."""

    def __init__(self, answer: Any) -> None:
        here, there = socket.socketpair()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            here.close()
            _serve_apart(there, answer)
        there.close()
        self.socket: socket.socket | None = here
        self.exit_code: int | None = None

    def ask(self, request: Any) -> Any:
        """The answer to ``request``; ``EOFError`` if the process ended first (``exit_code`` then says how)."""
        if self.socket is None:
            raise EOFError
        try:
            _send(self.socket, (request, _created()))
            answer, created = _receive(self.socket)
        except (OSError, EOFError):
            self.close()
            raise EOFError from None
        if WATCHER is not None:
            WATCHER.created |= created
        return answer

    def close(self) -> None:
        """End the process, taking back what it read; ``exit_code`` is then set."""
        if self.socket is not None:
            try:
                _send(self.socket, None)
                findings = _receive(self.socket)
                if WATCHER is not None:
                    WATCHER.merge(findings)
            except (OSError, EOFError):
                pass
            self.socket.close()
            self.socket = None
        if self.exit_code is None:
            while True:
                try:
                    self.exit_code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
                    break
                except InterruptedError:
                    continue
                except ChildProcessError:
                    self.exit_code = -1
                    break


def _flush_and_exit(code: int) -> None:
    """End a forked process of the check at once (``os._exit``: none of the parent's exit handlers), what it printed
    written first."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


def _serve_apart(there: socket.socket, answer: Any) -> None:
    """In a submission's process: answer requests until None, then send the read watcher's findings; never
    returns (nothing of the check runs on here: no report written, no ``atexit``)."""
    code = 1
    try:
        limits.die_with_parent()  # a check killed at its deadline takes the submission's processes with it
        while (asked := _receive(there)) is not None:
            request, created = asked
            if WATCHER is not None:  # what the submission's other processes made (a numba cache) is no data either
                WATCHER.created |= created
            _send(there, (answer(request), _created()))
        _send(there, WATCHER.findings() if WATCHER is not None else ({}, set(), set(sys.modules)))
        code = 0
    finally:
        _flush_and_exit(code)


def _created() -> set[str]:
    """The files the submission made, as far as this process knows."""
    return WATCHER.created if WATCHER is not None else set()


def _send(connection: socket.socket, value: Any) -> None:
    data = pickle.dumps(value)
    connection.sendall(len(data).to_bytes(8, "big") + data)


def _receive(connection: socket.socket) -> Any:
    size = int.from_bytes(_exactly(connection, 8), "big")
    return pickle.loads(_exactly(connection, size))


def _exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(min(size - len(data), 1 << 20))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def agent_answers(path: str) -> Any:
    """In the seat's process: the file as Kaggle's ``build_agent`` makes it from its path (same loader, same lazy
    load inside move 1), each call's output and error captured as Kaggle's ``Agent.act`` captures them."""
    import io
    import traceback
    from contextlib import redirect_stderr, redirect_stdout

    from kaggle_environments.agent import build_agent

    inner, _ = build_agent(path, {}, "connectx")

    def answer(request: Any) -> tuple[Any, str, str, bool]:
        observation, configuration = request
        with io.StringIO() as out, io.StringIO() as err, redirect_stdout(out), redirect_stderr(err):
            try:
                action, failed = inner(observation, configuration), False
            except Exception:  # (what Kaggle's Agent.act catches; anything else ends the process, as it would)
                traceback.print_exc(file=err)
                action, failed = None, True
            printed, errors = out.getvalue(), err.getvalue()
        try:
            pickle.dumps(action)
        except Exception:  # a value no referee takes as a column: Kaggle's schema check makes it INVALID
            action = f"<{type(action).__name__} object>"
        return action, printed, errors, failed

    return answer


def seat_agent(process: Apart, nones: list[int]) -> Any:
    """The callable Kaggle's referee calls for a seat whose agent runs in ``process``: the agent's output and
    traceback written where ``Agent.act`` captures them, its error returned as the exception Kaggle records as
    ERROR (its log: the agent's own traceback, nothing of this proxy's), noting the plies at which it returned
    None (Kaggle plays column 0 for it, silently)."""

    def agent(observation, configuration):
        try:
            action, printed, errors, failed = process.ask((observation, configuration))
        except EOFError:
            message = f"the agent's process died (exit code {process.exit_code})"
            sys.stderr.write(message + "\n")
            return RuntimeError(message)
        sys.stdout.write(printed)
        sys.stderr.write(errors)
        if failed:
            return RuntimeError("the agent raised")
        if action is None:
            nones.append(int(observation.step))
        return action

    return agent


def describe_failure(env: Any, seat: int) -> str:
    """Why the submission in ``seat`` lost by rule: status, offending action and its stderr."""
    final = env.steps[-1][seat]
    reason = f"{final.status} as player {seat + 1} at ply {len(env.steps) - 1}"
    if final.status == "INVALID":
        reason += f" (returned {final.action!r})"
    stderr = ""
    for log in reversed(env.logs):
        if seat < len(log) and isinstance(log[seat], dict) and log[seat].get("stderr", "").strip():
            stderr = log[seat]["stderr"].strip()
            break
    if stderr:
        reason += ": " + summarize_traceback(stderr)
    return reason


class Opened:
    """One file the agent opened for reading (or tried to): as it named it, whether it was there, and where
    (``site``: [file, line] of the agent's own frame that opened it)."""

    def __init__(self, path: str, found: bool, site: list[Any] | None) -> None:
        self.path, self.found, self.site = path, found, site

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "site": self.site}


class ReadWatcher:
    """Files the submission opens for reading outside the installation, told from probes (see the module)."""

    def __init__(self, submission: str, installed_extra: tuple[str, ...] = ()) -> None:
        roots = (sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values(), *installed_extra)
        self.installed = tuple({os.path.realpath(p) for p in roots})
        # The same folders as spelled on sys.path: most opens (imports) are told apart without a realpath.
        self.installed_names = tuple(sorted({os.path.abspath(p) + os.sep for p in roots} | {
            os.path.abspath(p) + os.sep for p in sys.path if p and any(
                os.path.realpath(p) == r or os.path.realpath(p).startswith(r + os.sep) for r in self.installed)}))
        self.system = ("/proc/", "/dev/", "/sys/", "/etc/", "/usr/share/zoneinfo/")
        self.own = os.path.realpath(submission)
        # A bundle unpacked where Kaggle unpacks one: every file in it is the submission's own.
        folder = os.path.dirname(self.own)
        self.bundle = folder if folder == "/kaggle_simulations/agent" else None
        self.checker = os.path.realpath(__file__)  # read back for a traceback through this script's frames
        # The toolkit's own files (kaggle_rules.py loaded by path, the wrapper calling the agent): read back
        # when a module formats the call stack at import (torch does), never the agent's data. The agents the
        # toolkit links to (connectx_toolkit/agents -> ../agents) resolve outside it and stay watched.
        self.toolkit = os.path.dirname(os.path.dirname(self.checker))
        self.created: set[str] = set()  # files the agent made itself: reading them back is no data read
        self.opened: dict[str, Opened] = {}
        self.skipped: set[str] = set()
        self.modules: set[str] = set()  # imported in the submission's processes (``merge``)

    def start(self) -> None:
        sys.addaudithook(self.hook)

    def findings(self) -> tuple[dict[str, Opened], set[str], set[str]]:
        """What this process saw (in a submission's process: sent back to the check's, ``merge``): the files,
        those it made, and the modules imported in it."""
        return self.opened, self.created, set(sys.modules)

    def merge(self, findings: tuple[dict[str, Opened], set[str], set[str]]) -> None:
        """Take in what a submission's process saw (``findings``), the first sight of each file kept; ``modules``
        gathers the modules imported in the submission's processes (this one's ``sys.modules`` never holds
        what the agent imported: it runs elsewhere)."""
        opened, created, modules = findings
        for name, item in opened.items():
            self.opened.setdefault(name, item)
        self.created |= created
        self.modules |= modules

    def reads(self) -> list[dict[str, Any]]:
        """Regular files that opened for reading here and would not exist on Kaggle."""
        return [item.as_json() for item in self.opened.values() if item.found]

    def tries(self) -> list[dict[str, Any]]:
        """Reads that failed here (no such file): the agent lived through them, or died of them."""
        return [item.as_json() for item in self.opened.values() if not item.found]

    def hook(self, event: str, args: tuple) -> None:
        if event == "os.rename":
            self.moved_into_place(args)
            return
        if event != "open" or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        name = os.fsdecode(args[0])
        mode, flags = args[1], args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        if isinstance(mode, str):  # open(): "r", "rb", "r+", "a+" read; "w", "x", "a" make or append
            reads = "r" in mode or ("+" in mode and "a" in mode)
            creates = any(c in mode for c in "wxa")
        else:  # os.open(path, flags): O_CREAT | O_EXCL makes a new file (tempfile's probe), O_TRUNC empties it
            access = flags & os.O_ACCMODE
            creates = bool(flags & os.O_CREAT)
            reads = (access in (os.O_RDONLY, os.O_RDWR) and not (creates and flags & os.O_EXCL)
                     and not flags & os.O_TRUNC and not flags & getattr(os, "O_DIRECTORY", 0))
        if name in self.opened or name in self.skipped or not (reads or creates):
            return
        if name.endswith(".pyc"):
            return  # Python's import looking for cached bytecode (of a module the agent wrote itself): no data
        if not os.path.isabs(name) and self.removing_a_tree():
            return  # shutil.rmtree opens each folder by its name relative to its parent's descriptor: no data
        if reads and not creates and name.startswith(self.installed_names) and ".." not in name:
            return  # an installed file (a module being imported): never the agent's data
        real = os.path.realpath(name)
        if creates and not reads:
            self.created.add(real)
            return
        if reads and not creates and self.source_read_back(name):
            return
        if self.exempt(real):
            if os.path.isabs(name):
                self.skipped.add(name)  # the installation, the system: read again and again by imports
            return
        if real in self.created or os.path.isdir(real):
            return
        exists = os.path.exists(real)
        if exists and not os.path.isfile(real):
            return  # a device, a pipe, a socket: not a data file
        self.opened[name] = Opened(name, exists and os.access(real, os.R_OK), self.site())
        if creates:
            self.created.add(real)

    def moved_into_place(self, args: tuple) -> None:
        """``os.rename``/``os.replace``'s audit arguments (source, destination, ...): a file the agent moved into
        place is its own (numba writes its cache so, and another of the submission's processes reads it back:
        no data)."""
        destination = args[1] if len(args) > 1 else None
        if isinstance(destination, (str, bytes, os.PathLike)):
            self.created.add(os.path.realpath(os.fsdecode(destination)))

    @staticmethod
    def removing_a_tree() -> bool:
        """Whether the open is ``shutil.rmtree``'s own (a temporary folder the agent removes, as stickytape's
        bundles do at load)."""
        caller = sys._getframe(2)  # this <- the hook <- the Python function that opened
        return caller.f_code.co_name.startswith("_rmtree") and caller.f_globals.get("__name__") == "shutil"

    @staticmethod
    def source_read_back(name: str) -> bool:
        """Whether this is Python source read back through ``linecache`` (a traceback, a warning, ``inspect``,
        ``traceback.format_stack()``, which torch runs at import): the source of code that ran, not data.
        On Kaggle a missing source is no error either, only a traceback without its lines."""
        if not name.endswith((".py", ".pyw")):
            return False
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_globals.get("__name__") == "linecache":
                return True
            frame = frame.f_back
        return False

    def exempt(self, real: str) -> bool:
        """The submission itself, the toolkit, the system and the installation: not the agent's data."""
        return (real in (self.own, self.checker) or real.startswith(self.toolkit + os.sep)
                or f"{os.sep}{rules.MODULES_FOLDER_PREFIX}" in real  # the single file's modules and numba's cache
                or (self.bundle is not None and real.startswith(self.bundle + os.sep))
                or real.startswith(self.system) or any(real == p or real.startswith(p + os.sep) for p in self.installed))

    def site(self) -> list[Any] | None:
        """[file, line] of the innermost frame of the agent's own code on the stack (the hook's caller's)."""
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            real = filename if filename.startswith("<") else os.path.realpath(filename)
            if (not filename.startswith("<frozen ") and real != self.checker and rules.library_name(filename) is None
                    and not any(real.startswith(p + os.sep) for p in self.installed)
                    and not rules.TOOLKIT.owns(filename, frame.f_lineno)):
                return [filename, frame.f_lineno]
            frame = frame.f_back
        return None


WATCHER: ReadWatcher | None = None  # the check's read watcher, which the submission's processes inherit


class AllowedPackages(importlib.abc.MetaPathFinder):
    """Serves installed packages the build admits from where the builder found them, and only those names."""

    def __init__(self, locations: dict[str, str]) -> None:
        self.locations = locations

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if path is not None or fullname not in self.locations:
            return None
        return importlib.machinery.PathFinder.find_spec(fullname, [self.locations[fullname]])


def check(path: str, packages: dict[str, str] | None = None) -> dict[str, Any]:
    forget_editable_installs()
    importable = rules.project_importable()
    if importable:
        return {"ok": False, "reason": f"the project is importable in the check interpreter as {importable} (not a "
                                       "clean room)"}
    packages = packages or {}
    if packages:
        sys.meta_path.append(AllowedPackages(packages))
    import kaggle_environments

    make_env_once()
    extra = tuple(os.path.join(folder, name + suffix) for name, folder in packages.items() for suffix in ("", ".py"))
    global WATCHER
    watcher = WATCHER = ReadWatcher(path, extra)
    watcher.start()
    before = set(sys.modules)
    report: dict[str, Any] = {"ok": False, "reason": "the check did not finish"}
    try:
        report = load_apart(path)
        report["kaggle_environments"] = getattr(kaggle_environments, "__version__", "?")
        report["python"] = sys.version.split()[0]
        report["numpy"] = numpy_version()
        if not report["ok"]:
            return report
        report["games"] = []
        for opponent, seats in GAMES:
            game = play(path, opponent, seats)
            report["games"].append(game)
            if game["failure"]:
                report["ok"] = False
                report["reason"] = f"game against {opponent}: {game['failure']}"
                break
        return report
    finally:
        report["reads"], report["tries"] = watcher.reads(), watcher.tries()
        # top-level packages the agent imported, at load or in its games (an import inside a function it called),
        # in the processes it ran in (``Apart``: the watcher gathers their modules)
        report["imported"] = sorted({name.partition(".")[0] for name in (set(sys.modules) | watcher.modules) - before}
                                    - set(sys.stdlib_module_names))


def numpy_version() -> str:
    """numpy's version in this interpreter (some public agents run only under numpy 1)."""
    try:
        import numpy
    except ImportError:
        return "not installed"
    return numpy.__version__


def make_env_once() -> None:
    """Let kaggle_environments read its own files (specifications, agents) before reads are watched."""
    from kaggle_environments import make

    make("connectx", debug=False).run(["random", "random"])


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not all("=" in argument for argument in argv[2:]):
        print("usage: python -I kaggle_check.py SUBMISSION REPORT [NAME=FOLDER ...]", file=sys.stderr)
        return 2
    path, report_path = argv[:2]
    report = check(path, dict(argument.split("=", 1) for argument in argv[2:]))
    with open(report_path, "w", encoding="utf-8") as handle:
        json.dump(report, handle)
    return 0


# -- a clean interpreter kept ready --------------------------------------------------------------------------

def serve() -> int:
    """``python -I kaggle_check.py --serve``: the clean interpreter ``building.clean_interpreter`` keeps ready.

    It does once what every check does before it reads the agent's file (forget the editable install, import
    kaggle_environments, run one episode), then answers each request, one JSON line on stdin naming what follows
    ``python -I`` on a command line (``-c CODE ARGS...`` or ``SCRIPT ARGS...``), from a child forked for it:
    the child is what that fresh interpreter would be by then. Each request is answered with two lines on
    stdout, ``{"pid": ...}`` when the child starts and ``{"exit": ...}`` when it has ended (its exit code,
    negative for a signal, as ``subprocess`` gives it). End of stdin ends it.
    """
    import signal

    forget_editable_installs()
    try:
        make_env_once()
    except Exception:  # each command meets the same failure afresh and reports it
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C in the terminal is the client's to handle
    replies = sys.stdout
    replies.write('{"ready": true}\n')
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run(request)
        replies.write(json.dumps({"pid": pid}) + "\n")
        replies.flush()
        _, status = os.waitpid(pid, 0)
        replies.write(json.dumps({"exit": os.waitstatus_to_exitcode(status)}) + "\n")
        replies.flush()
    return 0


def _run(request: dict[str, Any]) -> None:
    """In the child forked for ``request``: become what ``python -I`` started in its folder with its
    environment and arguments would be, run the code or the script as ``__main__``, exit as it would."""
    import random
    import runpy
    import signal
    import traceback
    import types

    code: Any = 1
    try:
        os.setsid()  # its own process group: the client kills the whole group at a timeout
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, name, flags in ((0, os.devnull, os.O_RDONLY), (1, request["stdout"], os.O_WRONLY),
                                (2, request["stderr"], os.O_WRONLY)):
            opened = os.open(name, flags)
            os.dup2(opened, fd)
            os.close(opened)
        random.seed()  # (the random module reseeds at a fork by itself; numpy's global generator does not)
        if "numpy.random" in sys.modules:
            sys.modules["numpy.random"].seed()
        argv = request["argv"]
        if argv[0] == "-c":
            sys.argv = ["-c", *argv[2:]]
            main_module = types.ModuleType("__main__")
            sys.modules["__main__"] = main_module
            exec(compile(argv[1], "<string>", "exec"), main_module.__dict__)
        else:
            sys.argv = list(argv)
            runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as stop:  # as the interpreter ends on one
        code = stop.code
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        _flush_and_exit(code or 0)


if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main(sys.argv[1:]))
