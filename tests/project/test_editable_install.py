"""The editable install (run.sh's ``pip install -e .``) and the clean interpreter that stands in for Kaggle.

The install makes the project importable from any interpreter of the environment, ``python -I`` included;
the validator's check interpreter must still not see it (``kaggle_check.forget_editable_installs``), or a
submission that imports the project would pass here and fail on Kaggle.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

from connectx_toolkit.building import build_text
from connectx_toolkit.building.validation import CHECK_SCRIPT, validate
from connectx_toolkit.sandbox import SandboxUnavailable, require
from tests.helpers import REPO

ROOT = REPO
# What the editable install makes importable: the package, and the checkout's own top-level names beside it.
PROJECT_MODULES = ("connectx_toolkit", "connectx_toolkit.building", "agents", "tools", "build_submission", "evaluate")
FOUND = """
def found(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False
"""


def clean_python(tmp_path, script: str) -> dict:
    """Run ``script`` in ``python -I`` in an empty directory; it prints one JSON object."""
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    run = subprocess.run([sys.executable, "-I", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture
def installed():
    try:
        importlib.metadata.distribution("connectx-toolkit")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the project is not installed in this environment (bash run.sh installs it)")


def test_the_installed_project_is_importable_from_anywhere(tmp_path, installed):
    found = clean_python(tmp_path, f"""
import importlib.util, json
{FOUND}
print(json.dumps({{name: found(name) for name in {PROJECT_MODULES!r}}}))
""")
    assert all(found.values()), found


def test_forgetting_editable_installs_hides_the_project_and_keeps_the_environment(tmp_path):
    found = clean_python(tmp_path, f"""
import importlib.util, json, runpy
runpy.run_path({CHECK_SCRIPT!r})["forget_editable_installs"]()
names = {PROJECT_MODULES!r} + ("kaggle_environments", "numpy", "json")
{FOUND}
print(json.dumps({{name: found(name) for name in names}}))
""")
    assert found == {**dict.fromkeys(PROJECT_MODULES, False), "kaggle_environments": True, "numpy": True,
                     "json": True}


# Dynamic imports: an import statement of a project module is followed by the builder (embedded or refused).
IMPORTS = {
    "load": '__import__({module!r})\n\n\ndef agent(obs, config):\n    return 3\n',
    "move": 'def agent(obs, config):\n    __import__({module!r})\n    return 3\n',
}
STAGES = {"load": "Kaggle's loader failed", "move": "game against itself"}
# Once kaggle_environments is imported, ``agents`` is its lux_ai_s3/agents.py (on Kaggle too), which fails alone.
FAILURES = {"agents": "attempted relative import with no known parent package", "building": "No module named 'building'"}


@pytest.mark.parametrize("sandbox", [False, True], ids=["plain", "sandbox"])
@pytest.mark.parametrize("module", ["agents", "building"])
@pytest.mark.parametrize("stage", ["load", "move"])
def test_a_submission_that_imports_the_project_fails_validation(tmp_path, stage, module, sandbox):
    if sandbox:
        try:
            require()
        except SandboxUnavailable as error:
            pytest.skip(str(error))
    bot = tmp_path / "bot.py"
    bot.write_text(IMPORTS[stage].format(module=module), encoding="utf-8")
    report = validate(build_text(str(bot))[0], sandbox=sandbox)
    assert not report["ok"]
    assert report["reason"].startswith(STAGES[stage]) and FAILURES[module] in report["reason"], report["reason"]


def test_another_package_named_agents_is_not_the_project(tmp_path):
    """openai-agents installs a package ``agents`` (and kaggle_environments has an agents.py): the clean room
    must not take it for the toolkit's agents and refuse itself, yet must still refuse the checkout's agents/."""
    other = tmp_path / "other"
    (other / "agents").mkdir(parents=True)
    (other / "agents" / "__init__.py").write_text("raise ImportError('not the toolkit')\n")
    found = clean_python(tmp_path, f"""
import json, runpy, sys
forget = runpy.run_path({CHECK_SCRIPT!r})["forget_editable_installs"]
rules = sys.modules["connectx_kaggle_rules"]
forget()
answers = [rules.project_importable()]
sys.path.insert(0, {str(other)!r})
answers.append(rules.project_importable())
sys.path.insert(0, {ROOT!r})  # the checkout's root: its agents/ is the toolkit's
answers.append(rules.project_importable())
print(json.dumps(answers))
""")
    assert found == [None, None, "agents"]
