#!/usr/bin/env python3
"""Build one self-contained Kaggle ConnectX submission from an agent module in ``agents/``.

    python build_submission.py [AGENT] [-o OUT]

The agent module and every project module it imports (transitively, every import form, also imports
inside functions) are embedded in OUT as source strings, each once, in dependency order, together with
every data file the modules read with ``load_resource("name")``. A small loader at the top of OUT runs
each embedded module in its own private module object, so two modules that define the same top-level
name keep separate namespaces exactly as in the repository. OUT ends with ``def agent(obs, config)``:
Kaggle calls the last callable of a submission.

Every build is validated before it reaches OUT: in a clean interpreter (``python -I``, an empty working
directory, the project not importable) Kaggle's own loader loads the file, which then plays Kaggle's
validation episode (against itself) and one game against each built-in agent. Exit codes: 0 built and
valid; 1 validation failed (OUT untouched); 2 bad input (unknown agent, forbidden import, ...).
"""

from __future__ import annotations

import argparse
import ast
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import tokenize
import zlib
from dataclasses import dataclass

from sandbox import Sandbox, SandboxUnavailable
from sandbox import require as require_sandbox

DEFAULT_AGENT = "solver"  # the strongest agent the project has

ROOT = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join("submissions", "submission.py")
AGENT_PACKAGE = "agents"
RESOURCES_MODULE = "agents.core.resources"  # receives the embedded data as __embedded_resources__
RESOURCE_FUNCTIONS = ("load_resource", "has_resource")
ALLOWED_THIRD_PARTY = frozenset({"numpy"})  # besides the standard library: what Kaggle's image has
CHECK_SCRIPT = os.path.join(ROOT, "toolkit", "kaggle_check.py")
LOAD_WARNING_S = 0.5  # loading runs inside the first move's 2 s on Kaggle
VALIDATION_TIMEOUT_S = 600.0  # wall-clock cap on the whole validation run (a hung agent must not hang us)


class InputError(Exception):
    """Bad input: unknown agent, forbidden import, missing data file... (exit 2)."""


class ValidationError(Exception):
    """The built file failed Kaggle's checks (exit 1)."""


@dataclass(frozen=True)
class Project:
    """Where modules and data come from: directories searched like ``sys.path``, the agent package."""

    search_path: tuple[str, ...] = (ROOT,)
    package: str = AGENT_PACKAGE
    data_dir: str = os.path.join(ROOT, AGENT_PACKAGE, "data")


@dataclass(frozen=True)
class Module:
    name: str
    path: str
    is_package: bool
    source: str

    @property
    def package(self) -> str:
        """``__package__``: what relative imports are relative to."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


# ---------------------------------------------------------------------------------------------------
# Discovering the modules an agent needs


def locate(name: str, project: Project) -> tuple[str, bool] | None:
    """``(path, is_package)`` of project module ``name``, or None if the project has no such module."""
    parts = name.split(".")
    for directory in project.search_path:
        base = os.path.join(directory, *parts)
        if os.path.isfile(os.path.join(base, "__init__.py")):
            return os.path.join(base, "__init__.py"), True
        if os.path.isfile(base + ".py"):
            return base + ".py", False
    return None


def read_module(name: str, project: Project) -> Module:
    found = locate(name, project)
    if found is None:
        raise InputError(f"no module {name} in the project")
    path, is_package = found
    try:
        with tokenize.open(path) as handle:  # honours PEP 263 coding lines, normalises newlines
            source = handle.read()
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {display(path)}: {error}") from None
    return Module(name, path, is_package, source)


def parse(module: Module) -> ast.Module:
    try:
        return ast.parse(module.source, filename=module.path)
    except SyntaxError as error:
        raise InputError(f"{display(module.path)}:{error.lineno}: syntax error: {error.msg}") from None


def display(path: str) -> str:
    """A path relative to the repository when it lies inside it (short, stable messages)."""
    relative = os.path.relpath(path, ROOT)
    return path if relative.startswith("..") else relative


def is_allowed_external(name: str) -> bool:
    top = name.partition(".")[0]
    return top in sys.stdlib_module_names or top in ALLOWED_THIRD_PARTY


def resolve_relative(module: Module, name: str | None, level: int, where: str) -> str:
    bits = module.package.rsplit(".", level - 1) if module.package else []
    if len(bits) < level:
        raise InputError(f"{where}: relative import beyond the top-level package")
    return f"{bits[0]}.{name}" if name else bits[0]


def project_dependencies(module: Module, tree: ast.Module, project: Project) -> list[str]:
    """Project modules ``module`` imports, in source order; rejects any import Kaggle cannot satisfy.

    Each imported name brings its parent packages (Python runs ``a/__init__.py`` before ``a.b``), and
    ``from a import b`` brings ``a.b`` when that is a submodule rather than a name defined in ``a``.
    """
    wanted: list[str] = []

    def need(target: str, where: str, statement: str) -> None:
        parts = target.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if locate(prefix, project) is None:
                raise InputError(f"{where}: `{statement}`: no module {prefix} in the project")
            wanted.append(prefix)

    def classify(target: str, where: str, statement: str) -> bool:
        """True for a project module; False for an allowed external one; InputError otherwise."""
        if locate(target.partition(".")[0], project) is not None:
            return True
        if is_allowed_external(target):
            return False
        raise InputError(
            f"{where}: `{statement}` in module {module.name}: a submission may import only the "
            "standard library, numpy and project modules"
        )

    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    for node in sorted(nodes, key=lambda n: (n.lineno, n.col_offset)):
        where = f"{display(module.path)}:{node.lineno}"
        statement = ast.unparse(node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if classify(alias.name, where, statement):
                    need(alias.name, where, statement)
            continue
        if node.level:
            target = resolve_relative(module, node.module, node.level, where)
        else:
            target = node.module or ""
            if not classify(target, where, statement):
                continue
        need(target, where, statement)
        for alias in node.names:
            if alias.name != "*" and locate(f"{target}.{alias.name}", project) is not None:
                wanted.append(f"{target}.{alias.name}")
    return list(dict.fromkeys(wanted))


def discover(agent_name: str, project: Project) -> list[Module]:
    """The agent module and every project module it needs, dependencies first (depth-first post-order)."""
    full_name = f"{project.package}.{agent_name}"
    if not all(part.isidentifier() for part in agent_name.split(".")) or locate(full_name, project) is None:
        raise InputError(f"unknown agent {agent_name!r}: no module {full_name} (available: {available(project)})")
    order: list[Module] = []
    state: dict[str, str] = {}  # name -> "visiting" | "done"; import cycles are legal Python

    def visit(name: str) -> None:
        if name in state:
            return
        state[name] = "visiting"
        module = read_module(name, project)
        parent = name.rpartition(".")[0]
        for dependency in ([parent] if parent else []) + project_dependencies(module, parse(module), project):
            visit(dependency)
        state[name] = "done"
        order.append(module)

    visit(full_name)
    require_agent_function(order[-1])
    return order


def available(project: Project) -> str:
    names = set()
    for directory in project.search_path:
        folder = os.path.join(directory, project.package)
        if os.path.isdir(folder):
            for entry in os.listdir(folder):
                if entry.endswith(".py") and entry != "__init__.py":
                    names.add(entry[:-3])
    return ", ".join(sorted(names)) or "none"


def require_agent_function(module: Module) -> None:
    """The agent module must bind ``agent`` at top level (a def, an assignment or an import)."""
    for node in parse(module).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == "agent":
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "agent" for t in targets):
                return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name) == "agent" for a in node.names):
                return
    raise InputError(f"{display(module.path)} defines no top-level agent(obs, config)")


# ---------------------------------------------------------------------------------------------------
# Data files


def resource_names(module: Module, tree: ast.Module) -> list[tuple[str, str, bool]]:
    """``(name, where, required)`` for every ``load_resource``/``has_resource`` call in ``module``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if called not in RESOURCE_FUNCTIONS:
            continue
        where = f"{display(module.path)}:{node.lineno}"
        argument = node.args[0] if node.args else None
        if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            raise InputError(f"{where}: {called}() needs a string literal name so the file can be embedded")
        name = argument.value
        if os.path.isabs(name) or ".." in name.replace("\\", "/").split("/"):
            raise InputError(f"{where}: resource name {name!r} must lie inside the data directory")
        found.append((name, where, called == "load_resource"))
    return found


def collect_resources(modules: list[Module], project: Project) -> dict[str, bytes]:
    """The bytes of every data file the modules load, by name (sorted, for reproducible output)."""
    resources: dict[str, bytes] = {}
    for module in modules:
        if module.name == RESOURCES_MODULE:
            continue  # the loader itself: its calls (if any) take the names callers pass
        for name, where, required in resource_names(module, parse(module)):
            path = os.path.join(project.data_dir, name)
            if not required and not os.path.isfile(path):
                continue  # has_resource("x") is False in the repository too
            try:
                with open(path, "rb") as handle:
                    resources[name] = handle.read()
            except OSError as error:
                raise InputError(f"{where}: cannot read data file {display(path)}: {error.strerror}") from None
    if resources and RESOURCES_MODULE not in {m.name for m in modules}:
        raise InputError(f"modules call load_resource() but {RESOURCES_MODULE} is not imported")
    return dict(sorted(resources.items()))


# ---------------------------------------------------------------------------------------------------
# Rendering the submission

LOADER = '''\
# The loader. Every project module above runs in its own module object, kept in a registry private
# to this file (not in sys.modules), so its top-level names never meet another module's. Each module
# gets builtins whose __import__ serves project modules (absolute and relative imports) from that
# registry and hands every other import to Python's ordinary import.


def _resolve(name, package, level):
    if not level:
        return name
    bits = (package or "").rsplit(".", level - 1)
    if not package or len(bits) < level:
        raise ImportError("attempted relative import beyond top-level package")
    return bits[0] + "." + name if name else bits[0]


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    package = (globals or {}).get("__package__") if level else None
    target = _resolve(name, package, level)
    if target.partition(".")[0] not in _TOP_LEVEL:
        return _builtins.__import__(name, globals, locals, fromlist, level)
    module = _module(target)
    if not fromlist:
        return _LOADED[target.partition(".")[0]] if not level else module
    names = [n for n in fromlist if n != "*"]
    if "*" in fromlist:
        names += list(getattr(module, "__all__", ()))
    for item in names:
        if not hasattr(module, item) and target + "." + item in _SOURCES:
            _module(target + "." + item)
    return module


def _embedded_resources():
    return {name: _zlib.decompress(_base64.b64decode(text)) for name, text in _RESOURCES.items()}


def _module(name):
    """Project module ``name``, run on first use after its parent packages, like Python's import."""
    if name in _LOADED:
        return _LOADED[name]
    if name not in _SOURCES:
        raise ModuleNotFoundError("No module named %r in this submission" % name, name=name)
    parent, _, child = name.rpartition(".")
    if parent:
        _module(parent)
        if name in _LOADED:  # the parent's __init__ imported it
            return _LOADED[name]
    is_package, source = _SOURCES[name]
    module = _types.ModuleType(name)
    module.__package__ = name if is_package else parent
    if is_package:
        module.__path__ = []
    module.__builtins__ = _BUILTINS
    if name == _RESOURCES_MODULE:
        module.__embedded_resources__ = _embedded_resources()
    _LOADED[name] = module
    # dataclasses looks a class's module up in sys.modules while the class is created, so the module
    # is visible there only while its own top-level code runs; whatever was there before comes back.
    previous = _sys.modules.get(name, _ABSENT)
    _sys.modules[name] = module
    # Tracebacks show the embedded lines (entries without a modification time stay in linecache).
    _linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    try:
        exec(compile(source, name, "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        del _LOADED[name]
        raise
    finally:
        if previous is _ABSENT:
            _sys.modules.pop(name, None)
        else:
            _sys.modules[name] = previous
    if parent:
        setattr(_LOADED[parent], child, module)
    return module


_LOADED = {}
_ABSENT = object()
_BUILTINS = dict(_builtins.__dict__, __import__=_import)
_TOP_LEVEL = {name.partition(".")[0] for name in _SOURCES}
'''

ENTRY = '''\
_AGENT = _module({agent_module!r}).agent
_AGENT_CODE = getattr(_AGENT, "__code__", None)
_AGENT_ARGC = getattr(_AGENT_CODE, "co_argcount", 2)


def agent(obs, config):
    """Kaggle's entry point, the last callable in this file: {agent_module}.agent."""
    # Kaggle passes an agent only as many arguments as it declares; so does this wrapper.
    return _AGENT(*(obs, config)[:_AGENT_ARGC])
'''


def triple_quoted(text: str) -> str:
    """``text`` as a readable triple-quoted literal: ASCII only, the source's own lines kept.

    Sources mostly use double-quoted docstrings, so single quotes delimit the literal unless the text
    contains three of them; docstrings then stay verbatim.
    """
    quote = "'" if "'" * 3 not in text else '"'
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char in "\n\t" or " " <= char <= "~":
            out.append(char)
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    body = "".join(out).replace(quote * 3, quote * 2 + "\\" + quote)
    if body.endswith(quote):
        body = body[:-1] + "\\" + quote
    literal = quote * 3 + "\\\n" + body + quote * 3
    if ast.literal_eval(literal) != text:  # cheap insurance: the file must carry the source exactly
        raise AssertionError("source did not survive quoting")
    return literal


def encode_resource(data: bytes) -> str:
    """zlib + base64 in 76-column lines (b64decode skips the newlines; both decode in C, fast)."""
    encoded = base64.b64encode(zlib.compress(data, 9)).decode("ascii")
    lines = [encoded[start:start + 76] for start in range(0, len(encoded), 76)]
    return '"""\n' + "\n".join(lines) + '\n"""'


def sources_digest(modules: list[Module], resources: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for module in modules:
        digest.update(f"module {module.name}\0".encode() + module.source.encode("utf-8") + b"\0")
    for name, data in resources.items():
        digest.update(f"resource {name}\0".encode() + data + b"\0")
    return digest.hexdigest()


def render(agent_name: str, modules: list[Module], resources: dict[str, bytes]) -> str:
    """The submission's text. Deterministic: the same sources and data give the same bytes."""
    agent_module = modules[-1].name
    listing = textwrap.wrap(", ".join(m.name for m in modules), 96)
    data = ", ".join(f"{name} ({len(blob):,} bytes)" for name, blob in resources.items()) or "none"
    parts = [
        f"# ConnectX submission: agent {agent_name} ({agent_module}).\n"
        "# Generated by build_submission.py, do not edit: "
        f"rebuild with `python build_submission.py {agent_name}`.\n"
        + "".join(f"# {'Modules: ' if i == 0 else '         '}{line}\n" for i, line in enumerate(listing))
        + f"# Data: {data}\n"
        f"# Sources sha256: {sources_digest(modules, resources)}\n",
        "".join(f"import {name} as _{name}\n" for name in ("base64", "builtins", "linecache", "sys", "types", "zlib")),
        f"_RESOURCES_MODULE = {RESOURCES_MODULE!r}\n"
        "_SOURCES = {}  # module name -> (is a package, source), dependencies first\n"
        "_RESOURCES = {}  # data file name -> zlib-compressed bytes in base64\n",
    ]
    for module in modules:
        header = f"# {'-' * 96}\n# {module.name}  ({display(module.path)})\n"
        literal = triple_quoted(module.source)
        parts.append(f"{header}_SOURCES[{module.name!r}] = ({module.is_package}, {literal})\n")
    for name, blob in resources.items():
        parts.append(f"_RESOURCES[{name!r}] = {encode_resource(blob)}\n")
    parts.append(f"# {'-' * 96}\n" + LOADER)
    parts.append(ENTRY.format(agent_module=agent_module))
    return "\n\n".join(parts)


def build_text(agent_name: str, project: Project = Project()) -> tuple[str, list[Module], dict[str, bytes]]:
    """The submission for ``agent_name`` without validating it (see :func:`validate`)."""
    modules = discover(agent_name, project)
    resources = collect_resources(modules, project)
    return render(agent_name, modules, resources), modules, resources


# ---------------------------------------------------------------------------------------------------
# Validation in a clean interpreter


def validate(text: str, timeout: float = VALIDATION_TIMEOUT_S, sandbox: bool = False) -> dict:
    """Kaggle's checks on ``text`` (see toolkit/kaggle_check.py); the report, or ValidationError.

    ``sandbox``: the check interpreter runs inside a bubblewrap sandbox (see the ``sandbox`` package)."""
    with tempfile.TemporaryDirectory(prefix="connectx-check-") as work:
        path = os.path.join(work, "upload", "submission.py")
        empty = os.path.join(work, "cwd")
        report_path = os.path.join(work, "report.json")
        os.makedirs(os.path.dirname(path))
        os.makedirs(empty)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        command = [sys.executable, "-I", CHECK_SCRIPT, path, report_path]
        runner = Sandbox(files=(path,), writable=(work,)).run if sandbox else subprocess.run
        try:
            run = runner(command, cwd=empty, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ValidationError(
                f"validation did not finish within {timeout:g} s (an agent move that never returns?)"
            ) from None
        if run.returncode != 0 or not os.path.exists(report_path):
            tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
            raise ValidationError(f"the check interpreter failed (exit {run.returncode}): {tail}")
        with open(report_path, encoding="utf-8") as handle:
            report = json.load(handle)
    if report.get("ok") and report.get("last_callable") != "agent":
        report.update(ok=False, reason=f"Kaggle would call {report.get('last_callable')!r}, not agent")
    return report


def format_report(report: dict) -> str:
    lines = [
        f"validation (python {report.get('python', '?')} -I, empty directory, "
        f"kaggle_environments {report.get('kaggle_environments', '?')}, 6x7, 4 in a row):"
    ]
    if "load_s" in report:
        lines.append(f"  load      {report['load_s']:.3f} s (Kaggle's loader executing the file)")
        if report["load_s"] > LOAD_WARNING_S:
            lines.append(f"  warning   loading takes over {LOAD_WARNING_S:g} s; it counts in the first move's time")
    if report.get("games"):
        lines.append(f"  {'opponent':<10}{'seat':<6}{'result':<9}{'moves':>5}{'max move s':>12}")
        for game in report["games"]:
            lines.append(
                f"  {game['opponent']:<10}{game['seat']:<6}{game['result']:<9}"
                f"{game['moves']:>5}{game['max_move_s']:>12.3f}"
            )
    lines.append("  passed" if report.get("ok") else f"  FAILED: {report.get('reason')}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# Writing OUT


def check_writable(out: str) -> None:
    if os.path.isdir(out):
        raise InputError(f"output {out} is a directory")
    parent = os.path.dirname(os.path.abspath(out))
    existing = parent
    while not os.path.isdir(existing):
        existing = os.path.dirname(existing)
    if not os.access(existing, os.W_OK):
        raise InputError(f"cannot write {out}: {existing} is not writable")


def install(text: str, out: str) -> None:
    """Write ``text`` to ``out`` atomically: a reader sees the old file or the new one, never half."""
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".submission-", suffix=".py", dir=parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, out)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def build(agent_name: str, out: str, project: Project = Project(), timeout: float = VALIDATION_TIMEOUT_S,
          sandbox: bool = False) -> dict:
    """Build, validate and install; returns a summary for printing. Raises InputError/ValidationError."""
    check_writable(out)
    started = time.perf_counter()
    text, modules, resources = build_text(agent_name, project)
    report = validate(text, timeout, sandbox)
    if not report.get("ok"):
        raise ValidationError(format_report(report))
    install(text, out)
    data = text.encode("utf-8")
    return {
        "out": out,
        "agent": agent_name,
        "modules": [m.name for m in modules],
        "resources": {name: len(blob) for name, blob in resources.items()},
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "report": report,
        "seconds": time.perf_counter() - started,
    }


def format_summary(summary: dict) -> str:
    resources = ", ".join(f"{n} ({b:,} bytes)" for n, b in summary["resources"].items()) or "none"
    return "\n".join([
        f"built {summary['out']}",
        f"  agent     {summary['agent']}",
        f"  modules   {', '.join(summary['modules'])}",
        f"  data      {resources}",
        f"  size      {summary['bytes']:,} bytes",
        f"  sha256    {summary['sha256']}",
        format_report(summary["report"]),
        f"built and validated in {summary['seconds']:.1f} s",
        "upload with:",
        f"  kaggle competitions submit -c connectx -f {summary['out']} "
        f"-m \"{summary['agent']} {summary['sha256'][:12]}\"",
    ])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Build a self-contained Kaggle ConnectX submission from an agent module and "
        "validate it with Kaggle's loader and referee in a clean interpreter.",
    )
    parser.add_argument("agent", nargs="?", default=DEFAULT_AGENT,
                        help=f"module name in {AGENT_PACKAGE}/ (default: {DEFAULT_AGENT})")
    parser.add_argument("-o", "--out", default=DEFAULT_OUT, help=f"output file (default: {DEFAULT_OUT})")
    parser.add_argument("--sandbox", action="store_true",
                        help="run the validation inside a bubblewrap sandbox (no network, no home directory)")
    parser.add_argument("--timeout", type=float, default=VALIDATION_TIMEOUT_S, metavar="SECONDS",
                        help=f"wall-clock cap on validation (default: {VALIDATION_TIMEOUT_S:g})")
    # Where modules and data come from; the test suite points these at fixture projects.
    parser.add_argument("--search-path", action="append", default=[], help=argparse.SUPPRESS)
    parser.add_argument("--package", default=AGENT_PACKAGE, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    project = Project(
        search_path=tuple(os.path.abspath(p) for p in args.search_path) + (ROOT,),
        package=args.package,
        data_dir=os.path.abspath(args.data_dir) if args.data_dir else Project.data_dir,
    )
    try:
        if args.sandbox:
            require_sandbox()
        summary = build(args.agent, args.out, project, args.timeout, args.sandbox)
    except (InputError, SandboxUnavailable) as error:
        print(f"build_submission.py: error: {error}", file=sys.stderr)
        return 2
    except ValidationError as error:
        print(f"build_submission.py: {args.out} not written, validation failed:\n{error}", file=sys.stderr)
        return 1
    print(format_summary(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
