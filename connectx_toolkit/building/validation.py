"""Verification in the clean interpreter: Kaggle's loader and referee run the built file before it is written.

The check runs ``building/kaggle_check.py`` in a clean ``python -I`` whose working directory is an empty
temporary folder, so the file sees what it sees on Kaggle: the standard library, numpy and
kaggle_environments, nothing of the project and nothing beside it (a child of the kept clean interpreter
where one can serve: ``building.clean_interpreter``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Iterable, Sequence

from connectx_toolkit.building.clean_interpreter import CHECK_SCRIPT, run_clean
from connectx_toolkit.building.errors import InputError, ValidationError
from connectx_toolkit.building.reads import judge
from connectx_toolkit.building.sources import ANY_EXTERNAL, DEFAULT_EXTERNAL, Module
from connectx_toolkit.building.template import file_name
from connectx_toolkit.sandbox import Sandbox

VALIDATION_TIMEOUT_S = 600.0  # wall-clock cap on the whole validation run (a hung agent must not hang us)
LOAD_WARNING_S = 0.5  # loading runs inside the first move's 2 s on Kaggle


def check_command(submission: str, report: str, packages: dict[str, str] | None = None) -> list[str]:
    """The command that checks ``submission`` and writes ``report``: the one place it is put together.
    ``packages``: installed packages the build admits, by name, with the folder the builder finds each in."""
    return [sys.executable, "-I", CHECK_SCRIPT, submission, report,
            *(f"{name}={folder}" for name, folder in sorted((packages or {}).items()))]


def package_folders(allowed: Iterable[str]) -> dict[str, str]:
    """Where this interpreter finds each package ``--allow-import`` admits (the check interpreter, run with
    ``-I``, sees neither ``PYTHONPATH`` nor the user's site-packages, where torch may be installed)."""
    folders = {}
    for name in sorted(set(allowed) - DEFAULT_EXTERNAL - {ANY_EXTERNAL}):
        if name in sys.stdlib_module_names:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        location = next(iter(spec.submodule_search_locations or []), None) or spec.origin
        if not location:  # neither a package's folder nor a module's file
            continue
        folders[name] = os.path.dirname(os.path.abspath(location))
    return folders


def _package_mounts(packages: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The packages' own folders or files, shown read-only inside a sandbox at their own paths."""
    mounts = []
    for name, folder in packages.items():
        for path in (os.path.join(folder, name), os.path.join(folder, name + ".py")):
            if os.path.exists(path):
                mounts.append((path, path))
    return tuple(mounts)


def validate_bundle(files: dict[str, bytes], entry: str | None, timeout: float = VALIDATION_TIMEOUT_S, *,
                    packages: dict[str, str] | None = None, modules: Sequence[Module] = (),
                    notebook: str | None = None) -> dict:
    """Kaggle's checks on a bundle unpacked at /kaggle_simulations/agent, where Kaggle unpacks one: always in
    a bubblewrap sandbox, which binds the folder there. Without bubblewrap, an ``InputError`` saying how to
    install it. ``entry`` is the name main.py must leave last (the one Kaggle calls); ``modules``, the
    module graph, maps the files reads were made from back to the agent's own (``building.reads``)."""
    from connectx_toolkit.building.bundle import BUNDLE_ROOT, unpacked
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        raise InputError(f"a bundle is validated unpacked at {BUNDLE_ROOT}, which needs bubblewrap: {error}") from None
    folder = unpacked(files)
    try:
        with tempfile.TemporaryDirectory(prefix="connectx-check-") as work:
            empty = os.path.join(work, "cwd")
            report_path = os.path.join(work, "report.json")
            os.makedirs(empty)
            box = Sandbox(writable=(work,), mounts=((folder, BUNDLE_ROOT), *_package_mounts(packages or {})))
            command = check_command(f"{BUNDLE_ROOT}/main.py", report_path, packages)
            report = _checked(lambda: box.run(command, cwd=empty, capture_output=True, text=True, timeout=timeout),
                              report_path, timeout)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _judged(report, entry, list(modules), bundle=True, notebook=notebook)


def _checked(run_check: Any, report_path: str, timeout: float) -> dict:
    """Run the check interpreter and read its report; ``ValidationError`` when it did not produce one."""
    try:
        run = run_check()
    except subprocess.TimeoutExpired:
        raise ValidationError(
            f"validation did not finish within {timeout:g} s (an agent move that never returns?)"
        ) from None
    if run.returncode != 0 or not os.path.exists(report_path):
        tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise ValidationError(f"the check interpreter failed (exit {run.returncode}): {tail}")
    with open(report_path, encoding="utf-8") as handle:
        return json.load(handle)


def _judged(report: dict, entry: str | None = "agent", modules: list[Module] | None = None, bundle: bool = False,
            notebook: str | None = None) -> dict:
    """The report, with what Kaggle would refuse turned into errors (a data file the build left out, a
    wrong entry) and the reads the agent lived through into ``notes``; ``notebook``: the notebook the agent
    comes from (a file it writes in code is shipped with ``--data``)."""
    report["notes"] = judge(report, modules or [], bundle, notebook)
    _told_where_written(report, modules or [])
    if report.get("ok") and entry is not None and report.get("last_callable") != entry:
        report.update(ok=False, reason=f"Kaggle would call {report.get('last_callable')!r}, not {entry}")
    return report


def told_where_written(text: str, modules: Sequence[Module]) -> str:
    """``text`` (a failure in one line) with each ``file.py:N in`` of a module gathered from a notebook or a
    script told where its user wrote the line (``In [3], line 2``, ``nb.ipynb cell 4, line 2``), not the
    line of the module as embedded: the builder's messages and the evaluator's name it alike."""
    for module in modules:
        if module.origins:
            pattern = re.compile(re.escape(file_name(module)) + r":(\d+)(?= in )")
            text = pattern.sub(lambda match, module=module: module.where(int(match.group(1))), text)
    return text


def _told_where_written(report: dict, modules: list[Module]) -> None:
    """The failure texts of the report, told where their lines were written (``told_where_written``)."""
    if not any(module.origins for module in modules):
        return

    def told(text: str) -> str:
        return told_where_written(text, modules)

    if isinstance(report.get("reason"), str):
        report["reason"] = told(report["reason"])
    for game in report.get("games") or []:
        for key, value in list(game.items()):
            if isinstance(value, str):
                game[key] = told(value)


def validate(text: str, timeout: float = VALIDATION_TIMEOUT_S, sandbox: bool = False, *,
             packages: dict[str, str] | None = None, modules: Sequence[Module] = (), notebook: str | None = None) -> dict:
    """Kaggle's checks on ``text`` (see ``building/kaggle_check.py``); the report, or ``ValidationError``.

    ``sandbox``: the check interpreter runs inside a bubblewrap sandbox (see the ``sandbox`` package).
    ``packages``: installed packages the build admits and their folders (``package_folders``); ``modules``:
    the module graph, which maps the agent's files as embedded back to the files it was built from.

    A data file the agent read while it ran (it was not embedded, so it fails on Kaggle), or one it died
    of not finding, is an ``InputError`` naming it and the agent's line; a read the agent lived through is a
    note (``report["notes"]``).
    """
    with tempfile.TemporaryDirectory(prefix="connectx-check-") as work:
        path = os.path.join(work, "upload", "submission.py")
        empty = os.path.join(work, "cwd")
        report_path = os.path.join(work, "report.json")
        os.makedirs(os.path.dirname(path))
        os.makedirs(empty)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        command = check_command(path, report_path, packages)
        if sandbox:
            box = Sandbox(files=(path,), writable=(work,), mounts=_package_mounts(packages or {}))
            report = _checked(lambda: box.run(command, cwd=empty, capture_output=True, text=True, timeout=timeout),
                              report_path, timeout)
        elif packages:  # admitted packages join the import path before kaggle_environments: a fresh interpreter
            report = _checked(lambda: subprocess.run(command, cwd=empty, capture_output=True, text=True,
                                                     timeout=timeout), report_path, timeout)
        else:
            report = _checked(lambda: run_clean(command, cwd=empty, timeout=timeout), report_path, timeout)
    return _judged(report, modules=list(modules), notebook=notebook)


def format_report(report: dict) -> str:
    """The validation report as the command line prints it."""
    lines = [
        f"validation (python {report.get('python', '?')} -I, numpy {report.get('numpy', '?')}, empty directory, "
        f"kaggle_environments {report.get('kaggle_environments', '?')}, 6x7, 4 in a row):"
    ]
    if "load_s" in report:
        lines.append(f"  load      {report['load_s']:.3f} s (Kaggle's loader executing the file)")
        if report["load_s"] > LOAD_WARNING_S:
            lines.append(f"  warning   loading takes over {LOAD_WARNING_S:g} s; it counts in the first move's time")
    if report.get("entry"):
        lines.append(f"  calls     {report['entry']}")
    if report.get("games"):
        width = max(9, *(len(game["result"]) + 2 for game in report["games"]))  # "loss (timeout)"
        lines.append(f"  {'opponent':<10}{'seat':<6}{'result':<{width}}{'moves':>5}{'max move s':>12}")
        for game in report["games"]:
            lines.append(
                f"  {game['opponent']:<10}{game['seat']:<6}{game['result']:<{width}}"
                f"{game['moves']:>5}{game['max_move_s']:>12.3f}"
            )
    lines += [f"  note      {note}" for note in report.get("notes") or []]
    lines.append("  passed" if report.get("ok") else f"  FAILED: {report.get('reason')}")
    return "\n".join(lines)
