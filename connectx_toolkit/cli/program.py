"""The name an old command was run as, for its usage and the ``NAME: error: ...`` lines it prints
(``connectx`` names itself ``connectx SUBCOMMAND``).

``connectx-evaluate`` (the console script) says ``connectx-evaluate``; ``python evaluate.py``, ``python -m
connectx_toolkit.cli.evaluate`` and ``main()`` called from Python (a notebook, the tests) say ``evaluate.py``,
the name the documentation uses. argparse's own default, ``sys.argv[0]``, would name the notebook's kernel or
pytest there.
"""

from __future__ import annotations

import os
import sys

EVALUATE = ("connectx-evaluate", "evaluate.py")  # (console script, the checkout's script)
BUILD = ("connectx-build", "build_submission.py")


def program(names: tuple[str, str]) -> str:
    """``names[0]`` when this process is that console script, else ``names[1]``."""
    command, script = names
    invoked = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    # Windows runs a console script as NAME.exe (or NAME-script.py with older launchers).
    return command if invoked.removesuffix(".exe").removesuffix("-script.py") == command else script


def evaluate_program() -> str:
    return program(EVALUATE)


def build_program() -> str:
    return program(BUILD)


def rerun_command(names: tuple[str, str]) -> str:
    """How to run the command again from a shell: ``connectx-evaluate`` or ``python evaluate.py``."""
    name = program(names)
    return f"python {name}" if name.endswith(".py") else name
