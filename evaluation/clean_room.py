"""The gate's load check of a submission file in a clean room, as the builder's validation does it.

``python -I`` in an empty temporary folder, with the editable install of this project forgotten
(``building/kaggle_check.py``'s ``forget_editable_installs``, loaded by path: that file depends on
nothing in the project), then Kaggle's own loader (``get_last_callable``). A file that only loads
because the project or files beside it are importable here fails, as it would on Kaggle.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

KAGGLE_CHECK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "building", "kaggle_check.py")
LOAD_SECONDS = 60.0

_SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("kaggle_check", sys.argv[1])
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)
check.forget_editable_installs()
if importlib.util.find_spec("agents") is not None:
    sys.__stderr__.write("LOAD-ANSWER the project is importable in the check interpreter\\n")
    raise SystemExit(0)
import time
from kaggle_environments.agent import get_last_callable
try:
    with open(sys.argv[2], encoding="utf-8") as handle:
        text = handle.read()
    started = time.perf_counter()
    get_last_callable(text, path=sys.argv[2])
    seconds = time.perf_counter() - started
except BaseException as error:
    message = str(error) or type(error).__name__
    if message.startswith("Invalid raw Python: "):
        message = message[len("Invalid raw Python: "):]
    if "list index out of range" in message:
        message = "it defines no callable"
    sys.__stderr__.write("LOAD-ANSWER " + message.splitlines()[0] + "\\n")
    raise SystemExit(0)
sys.__stderr__.write("LOAD-OK %.6f\\n" % seconds)
"""


def clean_room_load(path: str, sandbox: bool = False) -> tuple[str | None, float | None]:
    """(None, seconds Kaggle's loader took) if it gets a callable from ``path`` in a clean room, else (one
    line saying why, None)."""
    path = os.path.abspath(path)
    argv = [sys.executable, "-I", "-c", _SCRIPT, KAGGLE_CHECK, path]
    with tempfile.TemporaryDirectory(prefix="connectx-clean-room-") as empty:
        try:
            if sandbox:
                from connectx_toolkit.sandbox import Sandbox

                result = Sandbox(files=(path, KAGGLE_CHECK)).run(
                    argv, timeout=LOAD_SECONDS, capture_output=True, text=True, cwd="/tmp", stdin=subprocess.DEVNULL)
            else:
                result = subprocess.run(argv, cwd=empty, timeout=LOAD_SECONDS, capture_output=True, text=True,
                                        stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"loading took longer than {LOAD_SECONDS:.0f} s", None
    answers = [line.partition(" ") for line in result.stderr.splitlines() if line.startswith(("LOAD-ANSWER ", "LOAD-OK "))]
    if not answers:
        return f"the loader process died (exit code {result.returncode})", None
    kind, _, text = answers[-1]
    return (None, float(text)) if kind == "LOAD-OK" else (text[:500], None)
