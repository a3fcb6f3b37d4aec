"""What the commands that play games (match, league, gate, submit, board) check before anything runs: the
``--path`` folders, the ``PlaySettings`` of their flags, and the sandbox (or the note that an agent file from
outside the project runs with the user's rights)."""

from __future__ import annotations

import argparse
import os
from dataclasses import fields
from typing import Any, Iterable

from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.settings import PlaySettings

__all__ = ["check_before_play", "check_sandbox", "play_settings"]


def play_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The fields of ``PlaySettings`` (how games are played), from the flags of the same names; a field the
    command has no flag for keeps its default."""
    values = {item.name: getattr(args, item.name) for item in fields(PlaySettings) if hasattr(args, item.name)}
    if "path" in values:
        values["path"] = tuple(values["path"])
    return values


def check_before_play(args: argparse.Namespace, agents: Iterable[str]) -> None:
    """``--path`` folders, then the rules of ``PlaySettings``, then the sandbox: each one line (``UsageError``)."""
    for root in getattr(args, "path", ()):  # checked before any agent, whatever its form
        if not os.path.isdir(os.path.expanduser(root)):
            raise UsageError(f"--path {root}: no such folder")
    PlaySettings(**play_settings(args))
    check_sandbox(args, agents)


def check_sandbox(args: argparse.Namespace, agents: Iterable[str]) -> None:
    """``--sandbox``: fail before any game unless a sandbox can be built here; without it, say so on stderr
    when an agent file from outside the project is about to run with the user's rights."""
    from connectx_toolkit.sandbox import SandboxUnavailable, require, say_outside_note

    if not args.sandbox:
        # A Kaggle bundle always runs in the sandbox (it is unpacked at /kaggle_simulations/agent there).
        # Once per process: submit runs the gate, which would say it again.
        names = list(dict.fromkeys(name for name in agents if name and not name.endswith(".tar.gz")))
        say_outside_note(names, args.program)
        return
    try:
        require()
    except SandboxUnavailable as error:
        raise UsageError(str(error)) from None
