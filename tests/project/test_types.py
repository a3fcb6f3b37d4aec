"""The product code type-checks: pyright in basic mode (pyproject's ``[tool.pyright]``) reports no error.

Pyright comes from requirements-dev.txt (``pyright[nodejs]``); it is run on this interpreter's environment
(``--pythonpath``), so the check sees the packages the suite itself imports.
"""

import importlib.util
import json
import os
import subprocess
import sys

import pytest
from tests.helpers import REPO

ROOT = REPO
# Out of the default run (15 s of one core): `bash run.sh test -m types`; .ci/run runs it after the default suite.
pytestmark = pytest.mark.types


def pyright_command() -> list[str] | None:
    """The pyright beside this interpreter, else ``python -m pyright``; None where it is not installed."""
    script = os.path.join(os.path.dirname(sys.executable), "pyright")
    if os.path.exists(script):
        return [script]
    if importlib.util.find_spec("pyright") is not None:
        return [sys.executable, "-m", "pyright"]
    return None


def run_pyright(project: str) -> tuple[dict, list[str]]:
    """Pyright's summary for the project in folder ``project`` (its own configuration) and its diagnostics, one
    line each (``file:line:column: severity: message (rule)``)."""
    command = pyright_command()
    if command is None:
        pytest.skip("pyright is not installed (pip install -r requirements-dev.txt)")
    result = subprocess.run([*command, "--outputjson", "--pythonpath", sys.executable, "-p", project], cwd=project,
                            capture_output=True, text=True, timeout=300)
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"pyright gave no report (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")
    lines = [f"{os.path.relpath(d['file'], project)}:{d['range']['start']['line'] + 1}:"
             f"{d['range']['start']['character'] + 1}: {d['severity']}: {d['message']} ({d.get('rule', '')})"
             for d in report["generalDiagnostics"]]
    return report["summary"], lines


def test_product_code_has_no_type_errors():
    summary, diagnostics = run_pyright(ROOT)
    assert summary["filesAnalyzed"] > 100, summary  # the package and its agents, not an empty selection
    assert summary["errorCount"] == 0, "pyright found type errors:\n" + "\n".join(diagnostics)


def test_the_check_catches_a_type_error(tmp_path):
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({"typeCheckingMode": "basic"}))
    (tmp_path / "wrong.py").write_text("def half(n: int) -> int:\n    return n // 2\n\n\nhalf('ten')\n")
    summary, diagnostics = run_pyright(str(tmp_path))
    assert summary["errorCount"] == 1, diagnostics
    assert diagnostics[0].startswith("wrong.py:5:6: error:") and "(reportArgumentType)" in diagnostics[0], diagnostics
