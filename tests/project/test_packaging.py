"""pyproject.toml lists the wheel's packages by name: a folder of the package that is not listed is left out of the
wheel, and works only from this checkout (``training/ntuple`` was, and ``connectx train --learner ntuple`` would have
failed from a wheel in a notebook). The wheel itself is tested under ``-m wheel``; this catches the omission in
the default run."""

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_folder_of_python_modules_in_the_package_is_a_listed_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = set()
    for folder, dirs, files in os.walk(ROOT / "connectx_toolkit", followlinks=True):
        dirs[:] = [name for name in dirs if name != "__pycache__"]
        if any(name.endswith(".py") for name in files):
            found.add(".".join(Path(folder).relative_to(ROOT).parts))
    assert found - listed == set()
