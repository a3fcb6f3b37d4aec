"""The loader template and rendering: a deterministic, readable, self-contained submission text.

Every embedded module is a source string; a small loader at the top of the file runs each one, on first
import, in its own private module object (never in ``sys.modules``), so two modules that define the same
top-level name keep separate namespaces exactly as unbuilt. Tracebacks name each module's file as its author
named it. Data files travel zlib-compressed in base64. The file ends with the entry wrapper
(``building.kaggle_rules``), a fresh ``def agent(obs, config)``: Kaggle calls the last callable of a
submission.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import textwrap
import zlib

from connectx_toolkit.building.entry_point import AGENT_AT_RUN_TIME, DEFAULT_FUNCTION, RUN_TIME_KINDS
from connectx_toolkit.building.kaggle_rules import MODULES_FOLDER_PREFIX, describe_entry, entry_wrapper, run_time_entry
from connectx_toolkit.building.sources import RESOURCES_MODULE, Module, absolute_imports

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
    is_package, source, filename = _SOURCES[name]
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
    # Tracebacks name the module's own file and show its lines (entries without a modification time stay
    # in linecache).
    _linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)
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

# Appended to the loader when a module asks numba to cache what it compiles (``@njit(cache=True)``): numba keeps
# its cache beside the module's file and refuses a file that does not exist ("no locator available", see
# numba/core/caching.py), so those modules run from real files, written when the submission loads into a
# private temporary folder (writable wherever the agent runs; Kaggle's agent folder may not be), removed at exit
# (or, when the process was killed, by the next process that loads such a file).
REAL_FILES = '''\


def _real_file(source, filename):
    """The module's file, written under this process's private folder; its embedded name if that fails."""
    global _REAL_FOLDER
    try:
        if _REAL_FOLDER is None:
            import atexit, shutil, tempfile
            _sweep_folders(tempfile.gettempdir(), shutil.rmtree)
            _REAL_FOLDER = tempfile.mkdtemp(prefix={prefix!r} + str(_os.getpid()) + "-")
            atexit.register(shutil.rmtree, _REAL_FOLDER, True)
        path = _REAL_FOLDER + "/" + filename
        _os.makedirs(_os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        return path
    except OSError:
        return filename


def _sweep_folders(temporary, remove):
    """Remove the folders that processes which have ended left behind (a killed process runs no atexit)."""
    for entry in _os.listdir(temporary):
        pid = entry[len({prefix!r}):].partition("-")[0] if entry.startswith({prefix!r}) else ""
        if pid.isdigit() and int(pid) != _os.getpid():
            try:
                _os.kill(int(pid), 0)
            except ProcessLookupError:
                remove(_os.path.join(temporary, entry), True)
            except OSError:
                pass  # another user's process, alive


import os as _os

_REAL_FOLDER = None
_REAL_FILES = {names!r}  # modules numba caches: run from real files
'''
REAL_FILE_LINE = """\
    if name in _REAL_FILES:
        filename = _real_file(source, filename)
"""

# Appended to the loader when a module imports numba. numba names a function it compiles after its __module__
# (numba/core/funcdesc.py) but a recursive call to itself after the module inspect.getmodule finds in sys.modules
# under that name, "<dynamic>" when none (numba/core/typeinfer.py): for a module absent from sys.modules when
# its functions compile (at their first call, after its top-level code ran) the names differ, the call stays
# unresolved and aborts ("numba jitted function aborted due to unresolved symbol"), cached or not. So such a
# module stays in sys.modules when no module of its name was there; one that was keeps its place (numba needs only
# the name).
KEPT_MODULES = '''
_KEPT_IN_SYS_MODULES = {names!r}  # modules that import numba: left in sys.modules
'''


def imports_numba(module: Module) -> bool:
    """Whether the module imports numba anywhere (at its top level or inside a function)."""
    return any(name.partition(".")[0] == "numba" for name in absolute_imports(module.tree))


def caches_compiled_code(module: Module) -> bool:
    """Whether the module imports numba and passes ``cache=`` (anything but ``False``) to a call: numba then
    needs the module's file to exist."""
    return imports_numba(module) and any(isinstance(node, ast.keyword) and node.arg == "cache"
                                         and not (isinstance(node.value, ast.Constant) and node.value.value is False)
                                         for node in ast.walk(module.tree))


def loader(modules: list[Module]) -> str:
    """The loader's text: with real files for the modules whose compiled code numba caches, and the modules that
    import numba kept in sys.modules (no numba: the plain loader, the same bytes as ever)."""
    text = LOADER
    kept = sorted(module.name for module in modules if imports_numba(module))
    if kept:
        restore = ("        if previous is _ABSENT:\n            _sys.modules.pop(name, None)\n"
                   "        else:\n            _sys.modules[name] = previous\n")
        keep = ("        if previous is not _ABSENT:\n            _sys.modules[name] = previous\n"
                "        elif name not in _KEPT_IN_SYS_MODULES or name not in _LOADED:  # (one that failed: gone)\n"
                "            _sys.modules.pop(name, None)\n")
        assert restore in text
        text = text.replace(restore, keep) + KEPT_MODULES.format(names=tuple(kept))
    real = sorted(module.name for module in modules if caches_compiled_code(module))
    if real:
        anchor = "    is_package, source, filename = _SOURCES[name]\n"
        text = text.replace(anchor, anchor + REAL_FILE_LINE) + REAL_FILES.format(names=tuple(real), prefix=MODULES_FOLDER_PREFIX)
    return text


def encode_resource(data: bytes) -> str:
    """zlib + base64 in 76-column lines (b64decode skips the newlines; both decode in C, fast)."""
    encoded = base64.b64encode(zlib.compress(data, 9)).decode("ascii")
    lines = [encoded[start:start + 76] for start in range(0, len(encoded), 76)]
    return '"""\n' + "\n".join(lines) + '\n"""'


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


def sources_digest(modules: list[Module], resources: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for module in modules:
        digest.update(f"module {module.name}\0".encode() + module.source.encode("utf-8") + b"\0")
    for name, data in resources.items():
        digest.update(f"resource {name}\0".encode() + data + b"\0")
    return digest.hexdigest()


def relative_path(module: Module) -> str:
    """Where ``module`` lives relative to its import root (the same wherever the folder is kept)."""
    if module.path.startswith("<"):
        return module.path
    return file_name(module)


def file_name(module: Module) -> str:
    """The file name tracebacks give the embedded module: its path under its import root, or its own name
    when that cannot be imported (``connectx-minimax-approach.py``, embedded as ``connectx_minimax_approach``)."""
    if module.file_name:
        return module.file_name
    return module.name.replace(".", "/") + ("/__init__.py" if module.is_package else ".py")


def render(
    agent_name: str,
    modules: list[Module],
    resources: dict[str, bytes],
    function: str = "agent",
    rebuild: str | None = None,
    kind: str = "function",
) -> str:
    """The submission's text. Deterministic: the same sources and data give the same bytes.

    The entry is ``function`` of the last module, a callable of ``kind`` (``building.entry_point``);
    ``rebuild`` is the command the header tells a reader to run (default: ``python build_submission.py AGENT``).
    """
    agent_module = modules[-1].name
    rebuild = rebuild or f"python build_submission.py {agent_name}"
    listing = textwrap.wrap(", ".join(m.shown_name for m in modules), 96)
    data = ", ".join(f"{name} ({len(blob):,} bytes)" for name, blob in resources.items()) or "none"
    parts = [
        f"# ConnectX submission: agent {agent_name} ({modules[-1].shown_name}).\n"
        "# Generated by build_submission.py, do not edit: "
        f"rebuild with `{rebuild}`.\n"
        + "".join(f"# {'Modules: ' if i == 0 else '         '}{line}\n" for i, line in enumerate(listing))
        + f"# Data: {data}\n"
        f"# Sources sha256: {sources_digest(modules, resources)}\n",
        "".join(f"import {name} as _{name}\n" for name in ("base64", "builtins", "linecache", "sys", "types", "zlib")),
        f"_RESOURCES_MODULE = {RESOURCES_MODULE!r}\n"
        "_SOURCES = {}  # module name -> (is a package, source, file name), dependencies first\n"
        "_RESOURCES = {}  # data file name -> zlib-compressed bytes in base64\n",
    ]
    for module in modules:
        header = f"# {'-' * 96}\n# {module.name}  ({relative_path(module)})\n"
        literal = triple_quoted(module.source)
        entry = f"({module.is_package}, {literal}, {file_name(module)!r})"
        parts.append(f"{header}_SOURCES[{module.name!r}] = {entry}\n")
    for name, blob in resources.items():
        parts.append(f"_RESOURCES[{name!r}] = {encode_resource(blob)}\n")
    parts.append(f"# {'-' * 96}\n" + loader(modules))
    described = describe_entry(f"{modules[-1].shown_name}.{function}" if not modules[-1].file_name
                               else f"{function} of {modules[-1].file_name}", kind)
    if kind in RUN_TIME_KINDS:
        value = run_time_entry(f"vars(_module({agent_module!r}))", DEFAULT_FUNCTION if kind == AGENT_AT_RUN_TIME else None)
    else:
        value = f"_module({agent_module!r}).{function}"
    parts.append(entry_wrapper(value, described))
    return "\n\n".join(parts)


