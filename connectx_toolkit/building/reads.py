"""The files an agent opened while Kaggle's checks ran, judged: a refusal at the agent's own line, or a note.

``building/kaggle_check.py`` reports two lists, each entry ``{"path", "site": [file, line]}``: ``reads``,
regular files that opened for reading here and would not exist on Kaggle (nothing beside a single file; only
the bundle's own files in a bundle), and ``tries``, reads that failed here. A read that succeeded is data
the build left out: a refusal. A try the agent lived through (``try: open(...) except OSError: ...``) is a
note; one that the failed validation died of is a refusal saying what to ship. Every message names the
agent's own ``file:line``, mapped from the file as it ran (an embedded module, a bundle's file) to the file
its author wrote.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from connectx_toolkit.building.bundle import BUNDLE_ROOT, data_option, module_path, notebook_data_advice
from connectx_toolkit.building.notebook import dataset_files
from connectx_toolkit.building.errors import InputError
from connectx_toolkit.building.sources import Module
from connectx_toolkit.building.template import file_name

SINGLE_FILE_WAY_OUT = ("read data files with agents.core.resources.load_resource('NAME') from a data/ folder, or "
                       "build a bundle (-o submission.tar.gz)")


def where(site: list[Any] | None, modules: Sequence[Module], bundle: bool) -> str:
    """``/home/me/bot/main.py:9`` for a site reported as ``[file as it ran, line]``; ``?`` when unknown."""
    if not site:
        return "?"
    filename, line = str(site[0]), int(site[1])
    name = filename[len(BUNDLE_ROOT) + 1:] if filename.startswith(BUNDLE_ROOT + "/") else filename
    for module in modules:
        if (module_path(module) if bundle else file_name(module)) == name:
            return module.where(line)
    return f"{name}:{line}"


def in_bundle_root(path: str) -> bool:
    return path == BUNDLE_ROOT or path.startswith(BUNDLE_ROOT + "/")


def relative_note(path: str) -> str:
    """What a path relative to the working directory means on Kaggle."""
    return (f"opens {path!r} relative to the working directory; a bundle's files are reached on Kaggle at "
            f"{BUNDLE_ROOT}/{path.lstrip('./')}")


def refusal(item: dict[str, Any], modules: Sequence[Module], bundle: bool, found: bool,
            notebook: str | None = None) -> str:
    """The message for a read the agent cannot run without; ``notebook``: the notebook the agent comes from, whose
    files written in code travel only with ``--data``."""
    path, at = item["path"], where(item.get("site"), modules, bundle)
    if in_bundle_root(path):
        name = path[len(BUNDLE_ROOT) + 1:] or "NAME"
        if bundle:
            if notebook is not None:
                return f"{at}: the agent reads {path}{notebook_data_advice(notebook, name)}"
            return f"{at}: the agent reads {path}, which is not in the bundle: put it in the agent's folder"
        folder = os.path.dirname(notebook) or "." if notebook else os.path.dirname(modules[-1].path) if modules else None
        if notebook is None and folder and os.path.exists(os.path.join(folder, name)):
            ship = f"which carries {name} from the agent's folder"  # a bundle ships the agent's folder
        else:  # a notebook's folder is not shipped, nor is a file that is not here
            option, why = data_option(name, folder, dataset_files(notebook, name) if notebook else ())
            ship = f"with {option}" + (f" ({why})" if why else "")
        return (f"{at}: the agent reads {path}, where Kaggle unpacks a .tar.gz submission: build a bundle instead "
                f"(-o submission.tar.gz), {ship}")
    text = f"{at}: the agent reads {path!r} at run time, which the build did not include"
    if not os.path.isabs(path):
        advice = notebook_data_advice(notebook, os.path.normpath(path).replace(os.sep, "/")) if notebook else ""
        return f"{text}: it {relative_note(path)}{advice}"
    if bundle:
        return (f"{text}: put it in the agent's folder and open it at {BUNDLE_ROOT}/NAME" if found else
                f"{text}: nothing but the bundle's files is there on Kaggle")
    return f"{text}: {SINGLE_FILE_WAY_OUT}"


def note(item: dict[str, Any], modules: Sequence[Module], bundle: bool) -> str:
    """The note for a read that failed and that the agent lived through."""
    path, at = item["path"], where(item.get("site"), modules, bundle)
    if in_bundle_root(path):
        ship = "put it in the agent's folder to ship it" if bundle else "ship it in a bundle to use it (-o submission.tar.gz)"
        return f"{at}: tries {path}, falls back when absent: {ship}"
    if not os.path.isabs(path):
        return f"{at}: tries {path!r}, falls back when absent: it {relative_note(path)}"
    return f"{at}: tries {path}, falls back when absent (Kaggle runs the submission without it)"


def died_of(item: dict[str, Any], reason: str) -> bool:
    """Whether a failed validation's reason is the failed read of ``item`` (``FileNotFoundError: ... 'x'``)."""
    path = item["path"]
    return bool(reason) and (repr(path)[1:-1] in reason or path in reason)


def judge(report: dict[str, Any], modules: Sequence[Module] = (), bundle: bool = False,
          notebook: str | None = None) -> list[str]:
    """Notes for the reads the agent lived through; ``InputError`` (one line) for one it cannot run without."""
    reads, tries = report.get("reads") or [], report.get("tries") or []
    if reads:
        if len(reads) == 1:
            raise InputError(refusal(reads[0], modules, bundle, found=True, notebook=notebook))
        listed = ", ".join(f"{item['path']!r} ({where(item.get('site'), modules, bundle)})" for item in reads)
        way_out = "put them in the agent's folder" if bundle else SINGLE_FILE_WAY_OUT
        raise InputError(f"the agent reads {listed} at run time, which the build did not include: {way_out}")
    if not report.get("ok"):
        for item in tries:
            if died_of(item, str(report.get("reason", ""))):
                raise InputError(refusal(item, modules, bundle, found=False, notebook=notebook))
    return [note(item, modules, bundle) for item in tries]


__all__ = ["judge", "where"]
