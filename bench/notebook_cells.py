#!/usr/bin/env python3
"""Time per cell of the notebooks in tests/notebooks, executed as a user runs them.

    python bench/notebook_cells.py [NOTEBOOK.ipynb ...] [--save DIR]

Each notebook runs with nbclient (``record_timing=True``) on an ipykernel of this interpreter, installed into
a temporary prefix with docs/notebooks.md's command, in an empty folder with an empty analysis cache; the
kernel's start is timed apart. Printed: every code cell's first line and its time, from the
``execute_input`` to the ``execute_reply`` timestamps nbclient records in the cell's metadata.
``--save DIR`` keeps the executed notebooks (their outputs) there.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime

import nbclient
import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = "connectx-bench"


def install_kernel(prefix: str) -> str:
    scripts = os.path.dirname(sys.executable)
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", prefix, "--name", KERNEL,
                    "--env", "PATH", scripts + os.pathsep + os.environ["PATH"]],  # no PYTHONPATH: it would precede the folder
                   check=True, capture_output=True)
    return os.path.join(prefix, "share", "jupyter")


def seconds(cell: dict) -> float:
    timing = cell["metadata"]["execution"]
    start = datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    return (end - start).total_seconds()


def run(path: str, scratch: str) -> tuple[object, float]:
    work = tempfile.mkdtemp(dir=scratch)
    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(notebook, kernel_name=KERNEL, timeout=600, record_timing=True,
                                     resources={"metadata": {"path": work}})
    started = time.perf_counter()
    with client.setup_kernel():
        kernel_start = time.perf_counter() - started
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
    return notebook, kernel_start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="default: tests/notebooks/*.ipynb")
    parser.add_argument("--save", metavar="DIR", help="write the executed notebooks there")
    args = parser.parse_args()
    paths = args.notebooks or sorted(glob.glob(os.path.join(ROOT, "tests", "notebooks", "*.ipynb")))
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["JUPYTER_PATH"] = install_kernel(scratch)
        for name in ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "XDG_CACHE_HOME"):
            os.environ[name] = os.path.join(scratch, name.lower())
        for path in paths:
            notebook, kernel_start = run(path, scratch)
            cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
            total = sum(seconds(cell) for cell in cells)
            print(f"{os.path.basename(path)}: kernel start {kernel_start:.2f} s, cells {total:.2f} s")
            for cell in cells:
                print(f"  {seconds(cell):6.2f} s  {cell.source.splitlines()[0][:90]}")
            if args.save:
                os.makedirs(args.save, exist_ok=True)
                nbformat.write(notebook, os.path.join(args.save, os.path.basename(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
