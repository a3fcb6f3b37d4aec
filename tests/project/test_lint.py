"""ruff over the repository, with the configuration in pyproject.toml: the suite fails where the lint does."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.helpers import REPO

ROOT = REPO


def test_ruff_check_passes():
    pytest.importorskip("ruff", reason="ruff is not installed (requirements-dev.txt; bash run.sh test installs it)")
    command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--quiet", "--output-format", "concise", "."]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
