"""One build, end to end, one way: resolve the target with its import roots (``targets``) → gather the module
graph (``modules``) → collect data files (``data``) → render a single file (``template``) or a Kaggle bundle
(``bundle``) → validate (``validation``) → write atomically. Each stage hands the next a plain value."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Union

from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.building.agent_names import shown_name
from connectx_toolkit.building.bundle import (BUNDLE_ROOT, added_files, archive_bytes, bundle_files, is_bundle,
                                              notebook_data_advice)
from connectx_toolkit.building.data import collect_resources, own_path_notes
from connectx_toolkit.building.entry_point import RUN_TIME_KINDS, last_callable
from connectx_toolkit.building.errors import BuildError, InputError, ValidationError
from connectx_toolkit.building.notebook import notebook_parts
from connectx_toolkit.building.modules import (ModuleGraph, cannot_upload_alone, deferred_advice, external_imports,
                                               imported_unallowed, module_graph)
from connectx_toolkit.building.roots import checked_paths, environment_roots, unique
from connectx_toolkit.building.sources import Module, Project
from connectx_toolkit.building.targets import Entry, resolve_target
from connectx_toolkit.building.template import render
from connectx_toolkit.building.validation import VALIDATION_TIMEOUT_S, format_report, package_folders, validate, validate_bundle

Target = Union[str, "os.PathLike[str]", Callable[..., Any]]  # an AGENT argument, a path, or a function
DEFAULT_OUT = "submission.py"  # from Python: beside the notebook, as Kaggle's course writes it
SIZE_WARNING_BYTES = 5_000_000  # participants report uploads much over 5-10 MB failing (docs: CONNECTX.md)


@dataclass
class BuildReport:
    """What a build produced: the file, its content, and Kaggle's checks on it."""

    path: str
    size: int
    sha256: str
    agent: str
    modules: list[str]
    data: dict[str, int]  # data file name -> bytes embedded
    validation: dict[str, Any] = field(default_factory=dict)  # building/kaggle_check.py's report
    seconds: float = 0.0
    function: str = "agent"  # the entry point taken, and why (Kaggle's rule: agent, else the last callable)
    reason: str = ""
    external: list[str] = field(default_factory=list)  # installed packages imported (numpy, kaggle_environments)
    files: dict[str, int] = field(default_factory=dict)  # a bundle's files -> bytes (empty for a single file)

    @property
    def notes(self) -> list[str]:
        """What the agent does without (optional imports left out, reads it falls back from), each one line."""
        return list(self.validation.get("notes") or [])

    @property
    def short_name(self) -> str:
        """The agent's name without its folders (``~/bots/my_bot/:act`` -> ``my_bot:act``)."""
        return shown_name(self.agent)

    def summary(self) -> str:
        """The report as ``build_submission.py`` prints it."""
        data = ", ".join(f"{n} ({b:,} bytes)" for n, b in self.data.items()) or "none"
        lines = [
            f"built {self.path}",
            f"  agent     {self.agent}",
            *([f"  entry     {self.function} ({self.reason})"] if self.reason else []),
            f"  modules   {', '.join(self.modules)}",
            *([f"  imports   {', '.join(self.external)}"
               + (" (kaggle_environments runs every agent on Kaggle: allowed without --allow-import)"
                  if "kaggle_environments" in self.external else "")] if self.external else []),
            *([f"  data      {data}"] if not self.files else []),
            *([f"  files     {name} ({size:,} bytes)" if i == 0 else f"            {name} ({size:,} bytes)"
               for i, (name, size) in enumerate(self.files.items())]),
            f"  size      {self.size:,} bytes" + (" (compressed)" if self.files else ""),
            *([f"  warning   over {SIZE_WARNING_BYTES:,} bytes: uploads this large have been reported to fail"]
              if self.size > SIZE_WARNING_BYTES else []),
            f"  sha256    {self.sha256}",
        ]
        if self.validation:
            lines.append(format_report(self.validation))
        lines += [
            f"built {'and validated ' if self.validation else ''}in {self.seconds:.1f} s",
            "upload with:",
            f"  kaggle competitions submit -c connectx -f {self.path} -m \"{self.short_name} {self.sha256[:12]}\"",
        ]
        return "\n".join(lines)


def with_imports(project: Project, allow_imports: Iterable[str]) -> Project:
    extra = frozenset(allow_imports)
    for name in extra:
        if name == "*":
            continue
        if not all(part.isidentifier() for part in name.split(".")):
            raise InputError(f"--allow-import {name!r} is not a package name")
        top = name.partition(".")[0]
        if importlib.util.find_spec(top) is None:
            raise InputError(f"--allow-import {name}: {top} is not installed in the toolkit's environment; "
                             f"install it with: {sys.executable} -m pip install {top}")
    return replace(project, allowed=project.allowed | {name.partition(".")[0] for name in extra})


def with_roots(project: Project, paths: Iterable[str]) -> Project:
    """The project with ``--path`` folders, then ``PYTHONPATH``'s, before its own search path."""
    roots = checked_paths(paths) + environment_roots()
    return replace(project, search_path=unique((*roots, *project.search_path)))


def prepare(
    target: Target, project: Project = Project(), *, function: str | None = None,
    allow_imports: Iterable[str] = (), paths: Iterable[str] = (),
) -> Entry:
    """Stage 1: the resolved target with its import roots (``--path``, ``PYTHONPATH``) and allowed imports."""
    return resolve_target(target, with_roots(with_imports(project, allow_imports), paths), function)


def build_text(
    target: Target, project: Project = Project(), *, function: str | None = None, allow_imports: Iterable[str] = (),
    paths: Iterable[str] = (),
) -> tuple[str, list[Module], dict[str, bytes]]:
    """The submission for ``target`` without validating it: ``(text, modules, data)``."""
    entry = prepare(target, project, function=function, allow_imports=allow_imports, paths=paths)
    return render_entry(entry)


def render_entry(entry: Entry) -> tuple[str, list[Module], dict[str, bytes]]:
    """Stages 2-4 for a single file: the module graph, its data files, the rendered text."""
    text, graph, resources = render_single(entry)
    return text, graph.modules, resources


def render_single(entry: Entry) -> tuple[str, ModuleGraph, dict[str, bytes]]:
    """Stages 2-4 for a single file, with the module graph's notes."""
    graph = module_graph(entry.module, entry.project, entry.virtual_modules, single_file=True)
    resources = collect_resources(graph.modules, entry.project)
    graph.notes.extend(own_path_notes(graph.modules))
    text = render(entry.label, graph.modules, resources, entry.function, entry.rebuild, entry.kind)
    return text, graph, resources


def render_bundle(entry: Entry, out: str) -> tuple[dict[str, bytes], list[Module], dict[str, bytes]]:
    """Stages 2-4 for a Kaggle bundle: ``(files by archive path, modules, load_resource data)``."""
    files, graph, resources = render_bundle_graph(entry, out)
    return files, graph.modules, resources


def render_bundle_graph(entry: Entry, out: str, added: dict[str, bytes] | None = None,
                        ) -> tuple[dict[str, bytes], ModuleGraph, dict[str, bytes]]:
    """Stages 2-4 for a Kaggle bundle, with the module graph's notes."""
    graph = module_graph(entry.module, entry.project, entry.virtual_modules)
    resources = collect_resources(graph.modules, entry.project, on_disk=True)
    files = bundle_files(entry.label, graph.modules, resources, entry.function, entry.rebuild or "",
                         entry.project.home, out, entry.kind, added)
    return files, graph, resources


def externals(modules: list[Module], entry: Entry) -> list[str]:
    """The installed packages (not the standard library) the modules import, sorted."""
    names: set[str] = set()
    for module in modules:
        if module.source:
            names |= external_imports(module.tree, entry.project, entry.virtual_modules)
    return sorted(names)


def build(
    target: Target,
    out: str | os.PathLike = DEFAULT_OUT,
    *,
    function: str | None = None,
    allow_imports: Iterable[str] = (),
    paths: Iterable[str] = (),
    data: Iterable[str | os.PathLike] = (),
    project: Project = Project(),
    timeout: float = VALIDATION_TIMEOUT_S,
    sandbox: bool = False,
    verbose: bool = False,
    before_validation: Callable[[], None] | None = None,
) -> BuildReport:
    """Build ``target`` into ``out``, validated by Kaggle's loader and referee in a clean interpreter.

    ``data`` (``--data``): files and folders a bundle ships beside ``main.py`` besides its agent's folder
    (what a notebook writes in code, outside ``%%writefile``), each by its own name or, given as ``SRC:NAME``,
    as NAME; a single file has no folder on Kaggle.

    ``target``: a module name in ``agents/``, a dotted module, a ``.py`` file or a folder (``main.py`` or
    a package), optionally ``TARGET:FUNCTION``, or a function object (from a notebook or a script; it is
    gathered with every helper, class, import and constant it refers to). ``function`` picks a callable
    other than Kaggle's entry point (``agent`` if defined, else the last callable); ``allow_imports`` admits
    third-party packages Kaggle's image has; ``paths`` are import roots searched after the agent's folder and
    before ``PYTHONPATH``'s; ``sandbox`` runs
    the validation inside a bubblewrap sandbox (no network, no home directory; see the ``sandbox`` package);
    ``before_validation`` is called once the file is rendered, just before the agent's code first runs.

    Returns a ``BuildReport``. Raises ``BuildError`` (one line; ``exit_code`` 2 for bad input, 1 when the
    file failed validation) and then leaves ``out`` as it was. Prints the report only when ``verbose``.
    """
    out = os.fspath(out)
    started = time.perf_counter()
    check_writable(out)
    data = [os.fspath(path) for path in data]
    if data and not is_bundle(out):
        raise InputError(f"--data {data[0]}: data files travel beside main.py in a bundle (-o submission.tar.gz); "
                         "a single file has no folder on Kaggle")
    added = added_files(data)
    entry = prepare(target, project, function=function, allow_imports=allow_imports, paths=paths)
    files: dict[str, bytes] = {}
    if is_bundle(out):
        files, graph, resources = render_bundle_graph(entry, out, added)
        payload = archive_bytes(files)
    else:
        text, graph, resources = render_single(entry)
        payload = text.encode("utf-8")
    modules = graph.modules
    graph.notes.extend(upload_alone_note(target, modules, out))
    packages = package_folders(entry.project.allowed)
    if before_validation is not None:
        before_validation()
    if files:
        main = last_callable(Module("main", "main.py", False, files["main.py"].decode("utf-8")).tree)
        # an entry found when the file has run is whatever Kaggle's loader finds; the report names it
        expected = None if entry.kind in RUN_TIME_KINDS else main or "agent"
        report = validate_bundle(files, expected, timeout, packages=packages, modules=modules,
                                 notebook=notebook_of(target))
    else:
        report = validate(text, timeout, sandbox, packages=packages, modules=modules, notebook=notebook_of(target))
    report["notes"] = graph.notes + list(report.get("notes") or [])
    if not report.get("ok"):
        reason = " ".join(str(report.get("reason")).split())  # one line, whatever the agent printed
        advice = missing_bundle_file(reason, notebook_of(target)) or deferred_advice(reason, graph.deferred)
        report["reason"] = f"{report.get('reason')}{advice}"
        raise ValidationError(f"validation failed: {reason}{advice}", report)
    unallowed = imported_unallowed(graph.deferred, list(report.get("imported") or []))
    if unallowed is not None:
        raise unallowed
    install(payload, out)
    result = BuildReport(
        path=out,
        size=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
        agent=target if isinstance(target, str) else resolve_label(target),
        modules=[m.shown_name for m in modules],
        data={name: len(blob) for name, blob in resources.items()},
        validation=report,
        seconds=time.perf_counter() - started,
        function=played_name(entry, report),
        reason=entry.reason,
        external=externals(modules, entry),
        files={name: len(blob) for name, blob in files.items()},
    )
    if verbose:
        print(result.summary(), file=sys.stdout)
    return result


# A file the agent opened and did not find, as the loader's or a game's failure tells it.
MISSING_FILE = re.compile(r"No such file or directory: '([^']+)'")


def missing_bundle_file(reason: str, notebook: str | None = None) -> str:
    """How to ship a file that the agent died of not finding under /kaggle_simulations/agent (or, a notebook's
    agent, relative to the working directory); empty for any other failure. A folder's files all travel in its
    bundle: the agent's folder. A notebook's travel only when it writes them with ``%%writefile`` (the file
    beside it is not picked up, and ``match``/``gate`` take no ``--data``): build its bundle with ``--data``
    (``SRC:NAME`` when the file is not beside the notebook: one it makes from a Kaggle dataset), then evaluate or
    gate the built ``.tar.gz``."""
    found = MISSING_FILE.search(reason)
    if found is None:
        return ""
    path = found.group(1)
    relative = not os.path.isabs(path)
    if path.startswith(BUNDLE_ROOT + "/"):
        name = path[len(BUNDLE_ROOT) + 1:]
    elif relative and notebook is not None:
        name = os.path.normpath(path).replace(os.sep, "/")
    else:
        return ""
    if notebook is not None:
        return notebook_data_advice(notebook, name, relative)
    return f"; {name} is not in the bundle: put it in the agent's folder"


def upload_alone_note(target: Target, modules: list[Module], out: str) -> list[str]:
    """For a ``.py`` file that fails on Kaggle uploaded as it is (it imports modules of its own at load): why,
    and that the build is what to upload."""
    if callable(target) or not os.fspath(target).endswith(".py") or not os.path.isfile(target):
        return []
    why = cannot_upload_alone(modules[-1], {module.name for module in modules})
    if why is None:
        return []
    return [f"{os.path.basename(os.fspath(target))} cannot be uploaded alone ({why}): upload {out}, which carries "
            "its modules"]


def notebook_of(target: Target) -> str | None:
    """The notebook a target names (``book.ipynb`` for ``book.ipynb:main.py``), or None."""
    if callable(target):
        return None
    parts = notebook_parts(os.fspath(target))
    return parts[0] if parts else None


def played_name(entry: Entry, report: dict[str, Any]) -> str:
    """The entry's name as the report prints it: for an entry found only once the file has run, the name the
    validated module binds it to (what Kaggle's ``get_last_callable`` returns for the unbuilt file), not the
    source's guess."""
    if entry.kind in RUN_TIME_KINDS and report.get("entry_name"):
        return str(report["entry_name"])
    return entry.function


def resolve_label(target: Target) -> str:
    if callable(target):  # prepare() admits only functions defined with def, and each has a __qualname__
        return getattr(target, "__qualname__")
    return os.fspath(target)


def check_writable(out: str) -> None:
    if not out:
        raise InputError("empty output path")
    if os.path.isdir(out):
        raise InputError(f"output {out} is a directory")
    parent = os.path.dirname(os.path.abspath(out))
    existing = parent
    while not os.path.isdir(existing):
        if os.path.exists(existing):
            raise InputError(f"cannot write {out}: {existing} is not a directory")
        existing = os.path.dirname(existing)
    if not os.access(existing, os.W_OK):
        raise InputError(f"cannot write {out}: {existing} is not writable")


def install(data: str | bytes, out: str) -> None:
    """Write ``data`` to ``out`` atomically: a reader sees the old file or the new one, never half."""
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    write_atomically(out, data, permissions=0o644)


__all__ = ["BuildError", "BuildReport", "build", "build_text", "check_writable", "install", "render_entry"]
