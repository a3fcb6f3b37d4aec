"""Turn an agent argument ("greedy", "path/to/submission.py", "my_bot/", "negamax") into something a game can load.

The kinds of agent, looked up in this order:

- a callable (from Python: ``evaluation.api.play_match``): a function the builder can carry (one defined
  in a notebook cell or a script, with its helpers and its globals as the cells write them) is played as
  the file ``build(fn)`` would upload: built once into a temporary file, then loaded afresh every game
  like any submission, so a notebook's agent is judged as Kaggle will judge it. Anything else (a
  closure, a lambda, an object) is kept in this process's registry under a token and played live:
  worker processes are forked, so they inherit it (the Ray backend cannot take it), and its state
  carries over between a worker's games — the spec's note says so;
- a single ``.py`` file (or any existing file): loaded per game exactly as Kaggle loads a submission —
  ``kaggle_environments.agent.build_agent`` reads the source and, on the first move, ``exec``s it and takes
  the last callable (``get_last_callable``);
- a folder (``main.py`` or a package), a notebook (what it writes with ``%%writefile``, or a function of its
  cells), or a file with ``:FUNCTION``: built once, here, with the
  submission builder (``building.build_text``, not validated, any import allowed since nothing is
  uploaded) into a temporary file that is then loaded per game like any submission. Each load runs the
  agent's modules in private module objects, so two seats, or two versions of one bot whose modules
  share names (``evaluate.py v2/ v1/``), never share module state — and what is evaluated is what
  ``build_submission.py`` would upload;
- a module ``agents.<name>`` or a dotted module of the project, optionally ``:FUNCTION`` (default
  ``agent``): a fresh module instance per game, so two seats (or two games) never share module state;
- a Kaggle built-in (``random``, ``negamax``).

``resolve_agent`` checks all of this up front (a file is executed once in a throwaway child process, so a
file that hangs or crashes on load cannot take the caller with it).
"""

from __future__ import annotations

import atexit
import functools
import importlib
import importlib.util
import itertools
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout
from dataclasses import dataclass, replace
from io import StringIO
from typing import Any, Callable

from connectx_toolkit.building.entry_point import RUN_TIME_KINDS
from connectx_toolkit.building.kaggle_rules import LoadFailure, call, import_loader, load_file
from connectx_toolkit.evaluation.seats.agent_kinds import BUILT, BUILTIN, BUNDLE, CALLABLE, FILE, MODULE
from connectx_toolkit.evaluation.seats.agent_server import CALLABLES, load

BUILTINS = ("random", "negamax")
LOAD_CHECK_SECONDS = 60.0  # how long a file may take to execute its top level when it is checked


class AgentSpecError(ValueError):
    """An agent argument that names nothing usable; the message is one line meant for the user."""


_TOKENS = itertools.count()
_BUILD_DIR: list[str] = []  # the temporary folder holding built agents (created on first use)


@dataclass(frozen=True)
class AgentSpec:
    """A resolved agent; picklable (plain strings only).

    ``kind`` is one of ``agent_kinds``: "file", "built", "bundle", "module", "builtin" or "callable". ``name`` is
    what reports show (the argument as the user gave it); ``target`` is an absolute file path (a built agent's
    temporary file), a dotted module name, a built-in name or a callable's registry token; ``function`` is the
    module's callable.
    """

    name: str
    kind: str
    target: str
    function: str = "agent"
    folder: str = ""  # a "bundle": the unpacked folder the sandbox shows at /kaggle_simulations/agent
    load_s: float | None = None  # a "bundle": seconds Kaggle's loader took on its main.py in the load check
    note: str = ""  # one line the user should read before the games (what Kaggle would call, and why)

    def load(self) -> Callable[[Any, Any], Any]:
        """A fresh agent for one game, ``f(observation, configuration)``: loaded and called as a game's
        agent process loads and calls it (``evaluation.seats.agent_server``); call it in the process that plays."""
        if self.kind == CALLABLE and self.target not in CALLABLES:
            raise AgentSpecError(f"callable agent {self.name} is not registered in this process")
        try:
            agent = load(self.kind, self.target, self.function)
        except ValueError as error:
            raise AgentSpecError(f"agent {self.name}: {error}") from None
        return functools.partial(call, agent)


def resolve_agent(spec: "str | Callable[..., Any]", sandbox: bool = False, paths: "tuple[str, ...]" = ()) -> AgentSpec:
    """Resolve an agent argument (or, from Python, a callable); raises ``AgentSpecError`` (one line).

    ``sandbox``: a file's load check runs inside a bubblewrap sandbox (see the ``sandbox`` package); a
    callable cannot enter one (it lives in this process). ``paths``: import roots searched after a file's
    folder and before ``PYTHONPATH``'s (``--path``), exactly as the builder searches them.
    """
    if callable(spec) and not isinstance(spec, str):
        built, why = _resolve_callable(spec, sandbox)
        if built is not None:
            return built
        if sandbox:
            raise AgentSpecError(f"a callable that cannot be built runs in this process, not in the sandbox ({why}): "
                                 f"save it to a file")
        return _register(spec, why)
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError("empty agent name" if isinstance(spec, str) else f"not an agent: {spec!r}")
    from connectx_toolkit.building import BuildError, split_function
    from connectx_toolkit.building.notebook import notebook_parts

    try:
        base, function = split_function(spec)
    except BuildError as error:
        raise AgentSpecError(str(error)) from None
    if base.endswith(".py") or os.sep in base or os.path.exists(base) or notebook_parts(base) is not None:
        if notebook_parts(base) is not None:
            # what it writes with %%writefile, or a function of its cells: a bundle when it reads
            # /kaggle_simulations/agent (its written data files are there), else one built file
            if _reads_bundle_root(spec, paths):
                return _resolve_bundle(spec, paths)
            return _resolve_built(spec, sandbox, paths)
        if function is None and base.endswith(".tar.gz"):
            return _resolve_bundle(spec, None)
        if function is None and os.path.isdir(base) and _reads_bundle_root(spec, paths):
            return _resolve_bundle(spec, paths)
        if function is None:
            return _resolve_file(spec, sandbox, paths)
        return _resolve_built(spec, sandbox, paths)
    if base.isidentifier() and _module_exists(f"connectx_toolkit.agents.{base}"):
        return _resolve_module(spec, f"connectx_toolkit.agents.{base}", function or "agent")
    if spec in BUILTINS:
        return AgentSpec(spec, BUILTIN, spec)
    if all(part.isidentifier() for part in base.split(".")) and "." in base and _module_exists(base):
        return _resolve_module(spec, base, function or "agent")
    raise AgentSpecError(
        f"unknown agent {spec!r}: not a file or folder, not a module in agents/ or of the project, "
        f"not a Kaggle built-in {BUILTINS}"
    )


def _register(agent: Callable[..., Any], why: str = "") -> AgentSpec:
    token = f"callable-{os.getpid()}-{next(_TOKENS)}"
    CALLABLES[token] = agent
    name = getattr(agent, "__qualname__", None) or type(agent).__name__
    note = (f"{name} is played as the live object, not as a built submission ({why}): its state carries over "
            f"between games, unlike on Kaggle") if why else ""
    return AgentSpec(name, CALLABLE, token, note=note)


def _resolve_callable(agent: Callable[..., Any], sandbox: bool) -> tuple[AgentSpec | None, str]:
    """A function the builder can carry, built into a file loaded afresh every game (as Kaggle loads what
    ``build(fn)`` writes): (its spec, ""), or (None, why it cannot be built)."""
    from connectx_toolkit.building import ANY_EXTERNAL, BuildError, build_text

    name = getattr(agent, "__qualname__", None) or type(agent).__name__
    try:
        text, modules, _ = build_text(agent, allow_imports=(ANY_EXTERNAL,))
    except BuildError as error:
        return None, str(error)
    path = _write_built(text)
    problem = _check_loads(path, sandbox)
    if problem:
        from connectx_toolkit.building.validation import told_where_written

        raise AgentSpecError(f"agent {name} cannot be loaded as the file the builder makes of it: "
                             f"{told_where_written(problem, modules)}")
    notes = list(dict.fromkeys(note for module in modules for note in module.notes))
    return AgentSpec(name, BUILT, path, note="; ".join(notes)), ""


def _write_built(text: str) -> str:
    """A built agent's file in this process's temporary folder (removed at exit)."""
    if not _BUILD_DIR:
        _BUILD_DIR.append(tempfile.mkdtemp(prefix="connectx-agents-"))
        atexit.register(shutil.rmtree, _BUILD_DIR[0], True)
    path = os.path.join(_BUILD_DIR[0], f"agent{next(_TOKENS)}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _module_exists(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError):
        return False


def _resolve_module(name: str, dotted: str, function: str) -> AgentSpec:
    try:
        with redirect_stdout(StringIO()):
            module = importlib.import_module(dotted)
    except Exception as error:  # a broken module is a user error, reported in one line
        raise AgentSpecError(f"agent module {dotted} failed to import: {type(error).__name__}: {error}") from None
    if not callable(getattr(module, function, None)):
        raise AgentSpecError(f"agent module {dotted} has no callable {function!r}")
    return AgentSpec(name, MODULE, dotted, function)


def _resolve_built(spec: str, sandbox: bool = False, paths: "tuple[str, ...]" = ()) -> AgentSpec:
    """A folder or ``FILE:FUNCTION``: built into a temporary file, then loaded like a submission."""
    from connectx_toolkit.building import ANY_EXTERNAL, BuildError, build_text

    from connectx_toolkit.building.validation import told_where_written

    try:
        text, modules, _ = build_text(spec, allow_imports=(ANY_EXTERNAL,), paths=paths)
    except BuildError as error:
        raise AgentSpecError(f"agent {spec!r}: {error}") from None
    path = _write_built(text)
    problem = _check_loads(path, sandbox)
    if problem:  # a notebook's line named by its cell, as the builder names it; how to ship a file it did not find
        from connectx_toolkit.building.pipeline import missing_bundle_file, notebook_of

        problem = told_where_written(problem, modules)
        raise AgentSpecError(f"agent {spec!r} cannot be loaded: {problem}{missing_bundle_file(problem, notebook_of(spec))}")
    return AgentSpec(spec, BUILT, path)


def _reads_bundle_root(folder: str, paths: "tuple[str, ...]") -> bool:
    """Whether a folder agent's modules name /kaggle_simulations/agent (it runs only as a Kaggle bundle)."""
    from connectx_toolkit.building import BuildError, agent_shape

    try:
        return agent_shape(folder, paths).reads_bundle_root
    except BuildError:
        return False  # the ordinary build says what is wrong


def _resolve_bundle(spec: str, paths: "tuple[str, ...] | None") -> AgentSpec:
    """A ``.tar.gz`` (``paths`` None) or a folder reading /kaggle_simulations/agent: unpacked (a folder as the
    builder would bundle it) into a folder the sandbox shows at /kaggle_simulations/agent, as Kaggle does."""
    from connectx_toolkit.building import BUNDLE_ROOT, BuildError, bundle_folder, unpack_bundle
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        raise AgentSpecError(f"agent {spec!r} is a Kaggle bundle, run unpacked at {BUNDLE_ROOT}, which needs "
                             f"bubblewrap: {error}") from None
    try:
        if paths is None:
            if not os.path.isfile(spec):
                raise AgentSpecError(f"agent file {spec!r} does not exist")
            folder = tempfile.mkdtemp(prefix="connectx-bundle-")
            os.chmod(folder, 0o755)
            unpack_bundle(spec, folder)
        else:
            folder = bundle_folder(spec, paths)
    except BuildError as error:
        raise AgentSpecError(f"agent {spec!r}: {error}") from None
    atexit.register(shutil.rmtree, folder, True)
    main = f"{BUNDLE_ROOT}/main.py"
    problem, seconds = _timed_load_check(main, True, ((folder, BUNDLE_ROOT),))
    if problem:
        if paths is not None:  # a folder or a notebook bundled here: how to ship a file it did not find
            from connectx_toolkit.building.pipeline import missing_bundle_file, notebook_of

            problem += missing_bundle_file(problem, notebook_of(spec))
        raise AgentSpecError(f"agent {spec!r} cannot be loaded as a Kaggle bundle: {problem}")
    return AgentSpec(spec, BUNDLE, main, folder=folder, load_s=seconds)


def _kaggle_entry(path: str, paths: "tuple[str, ...]") -> tuple[bool, str | None, str]:
    """How a ``.py`` file is run as Kaggle runs it: (whether it must be built first: it imports modules of its
    own, from its folder, a ``--path`` or ``PYTHONPATH``, or names /kaggle_simulations/agent; the function
    to build it around, None for a plain file; a note when Kaggle's last callable is not the file's
    ``agent``). Raises ``AgentSpecError`` for an import no root satisfies."""
    from connectx_toolkit.building import BuildError, agent_shape

    try:
        shape = agent_shape(path, paths)
    except BuildError as error:
        raise AgentSpecError(f"agent {path!r}: {error}") from None
    called = shape.last_callable or shape.function
    note = ""
    needs_build = len(shape.modules) > 1 or shape.reads_bundle_root
    if shape.kind in RUN_TIME_KINDS:
        # the source alone cannot say (a binding inside a top-level if or loop, a computed name, a non-callable
        # agent): played as Kaggle's loader finds it once the file has run, and built the same way
        note = (f"Kaggle calls the last callable of {os.path.basename(path)} once it has run ({shape.function} as "
                f"the source reads)")
        return needs_build, None, note
    if called != shape.function and not shape.merely_calls:
        note = (f"Kaggle calls {called}, the last callable of {os.path.basename(path)}, not {shape.function}: pass "
                f"{path}:{shape.function} to play {shape.function}, or build it (the builder makes "
                f"{shape.function} the last callable)")
    return needs_build, (called if needs_build else None), note


def _resolve_file(path: str, sandbox: bool = False, paths: "tuple[str, ...]" = ()) -> AgentSpec:
    if os.path.isdir(path):
        return _resolve_built(path, sandbox, paths)
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
    note = ""
    if path.endswith(".py"):
        # Kaggle calls the file's last callable, whatever is named agent: so does the evaluator (and says so)
        needs_build, function, note = _kaggle_entry(path, paths)
        if needs_build:
            built = _resolve_built(f"{path}:{function}" if function else path, sandbox, paths)
            return replace(built, name=path, note=note)
    problem = _check_loads(os.path.abspath(path), sandbox)
    if problem:
        raise AgentSpecError(f"agent file {path!r} cannot be loaded as a Kaggle submission: {problem}")
    return AgentSpec(path, FILE, os.path.abspath(path), note=note)


def _check_loads(path: str, sandbox: bool = False, mounts: "tuple[tuple[str, str], ...]" = ()) -> str | None:
    """Execute the file with Kaggle's loader in a child process; None if it yields a callable, else why not."""
    return _timed_load_check(path, sandbox, mounts)[0]


def _timed_load_check(path: str, sandbox: bool = False,
                      mounts: "tuple[tuple[str, str], ...]" = ()) -> tuple[str | None, float | None]:
    """Execute the file with Kaggle's loader in a child process: (None, the seconds the loader took) if it
    yields a callable, else (one line saying why not, None).

    The child is forked, or with ``sandbox`` a fresh interpreter inside a sandbox that sees the file. Its
    answer travels as plain UTF-8 bytes, never a pickle: the child runs the agent's code, and unpickling
    what it sent would run code of the agent's choosing here, outside the sandbox.
    """
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    sys.stdout.flush()
    sys.stderr.flush()
    if sandbox:
        from connectx_toolkit.sandbox import Sandbox

        child = Sandbox(files=() if mounts else (path,), mounts=mounts).popen(
            [sys.executable, "-c", _SANDBOXED_LOAD, path, str(send.fileno())], pass_fds=(send.fileno(),),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        exit_code, kill, join = child.poll, child.kill, child.wait
    else:
        import_loader()  # once here, not once in every forked child
        child = context.Process(target=_load_in_child, args=(path, send), daemon=True)
        child.start()
        exit_code, kill, join = (lambda: child.exitcode), child.kill, child.join
    send.close()
    try:
        if receive.poll(LOAD_CHECK_SECONDS):
            answer = receive.recv_bytes(maxlength=_ANSWER_BYTES).decode("utf-8", "replace")
            if answer.startswith(_LOADED):
                return None, float(answer[len(_LOADED):])
            return (answer.splitlines()[0] if answer.strip() else "the loader answered nothing"), None
        return f"loading took longer than {LOAD_CHECK_SECONDS:.0f} s", None
    except (EOFError, OSError):
        join()
        return f"the loader process died (exit code {exit_code()})", None
    finally:
        if exit_code() is None:
            kill()
        join()


_ANSWER_BYTES = 4096  # a one-line answer; a longer message is the agent talking, not the loader
_LOADED = "\0loaded in "  # the answer of a file that loaded, before the loader's seconds (no message starts so)
_SANDBOXED_LOAD = """import sys
from multiprocessing.connection import Connection
from connectx_toolkit.evaluation.seats.agent_specs import _load_in_child
_load_in_child(sys.argv[1], Connection(int(sys.argv[2])))
"""


def _load_in_child(path: str, send: Any) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        from connectx_toolkit.evaluation.seats.process_limits import own_multiprocessing

        own_multiprocessing()  # a daemonic multiprocessing child, its start method chosen: not as on Kaggle
        seconds = load_file(path)[1]
        send.send_bytes(f"{_LOADED}{seconds:.6f}".encode("utf-8"))
    except LoadFailure as failure:
        send.send_bytes(str(failure).encode("utf-8", "replace")[:_ANSWER_BYTES])
    except BaseException as error:  # anything the file does wrong is the answer, not a crash (SystemExit...)
        answer = " ".join(str(error).split()) or type(error).__name__
        send.send_bytes(answer.encode("utf-8", "replace")[:_ANSWER_BYTES])
