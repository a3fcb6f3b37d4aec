"""The gate's load check of a submission file in a clean room, as the builder's validation does it.

``python -I`` in an empty temporary folder, with the editable install of this project forgotten, then
Kaggle's own loader (``get_last_callable``), its failure told in one line: all three from
``building/kaggle_rules.py``, loaded by path (it depends on nothing in the project), as the builder's
validation does. The file is copied alone into an empty folder, as Kaggle's servers hold an uploaded file: a
file that only loads because the project or files beside it are importable here fails, as it would on Kaggle.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from connectx_toolkit.building.clean_interpreter import run_clean

KAGGLE_RULES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "building",
                            "kaggle_rules.py")
LOAD_SECONDS = 60.0

_SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("kaggle_rules", sys.argv[1])
rules = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = rules
spec.loader.exec_module(rules)
rules.forget_editable_installs()
sys.__stderr__.write(rules.load_answer(sys.argv[2]) + "\\n")
"""


def clean_room_load(path: str, sandbox: bool = False) -> tuple[str | None, float | None]:
    """(None, seconds Kaggle's loader took) if it gets a callable from ``path`` in a clean room, else (one
    line saying why, None)."""
    with tempfile.TemporaryDirectory(prefix="connectx-clean-room-") as empty:
        # Alone in a folder of its own, as Kaggle's servers hold an uploaded file: Kaggle's loader puts the
        # file's folder on sys.path, and the files beside it here are not uploaded with it.
        alone = os.path.join(empty, "upload", os.path.basename(path))
        os.makedirs(os.path.dirname(alone))
        shutil.copyfile(path, alone)
        path = alone
        argv = [sys.executable, "-I", "-c", _SCRIPT, KAGGLE_RULES, path]
        try:
            if sandbox:
                from connectx_toolkit.sandbox import Sandbox

                result = Sandbox(files=(path, KAGGLE_RULES)).run(
                    argv, timeout=LOAD_SECONDS, capture_output=True, text=True, cwd="/tmp", stdin=subprocess.DEVNULL)
            else:
                result = run_clean(argv, cwd=empty, timeout=LOAD_SECONDS)
        except subprocess.TimeoutExpired:
            return f"loading took longer than {LOAD_SECONDS:.0f} s", None
    answers = [line.partition(" ") for line in result.stderr.splitlines() if line.startswith(("LOAD-ANSWER ", "LOAD-OK "))]
    if not answers:
        return f"the loader process died (exit code {result.returncode})", None
    kind, _, text = answers[-1]
    return (None, float(text)) if kind == "LOAD-OK" else (text[:500], None)
