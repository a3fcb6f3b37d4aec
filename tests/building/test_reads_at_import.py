"""The read watcher judges only the agent's own reads: source read back for a traceback, a warning or
``inspect`` (torch formats the call stack at import), the toolkit's own files on that stack, and the
interpreter's and installed packages' files are never the agent's data.

Each agent is built (validated by Kaggle's loader and referee in a clean interpreter), evaluated against
``random`` with no error, and passed by the gate's load, smoke and validation checks against ``random`` (its
strength checks play the file just as the smoke check does, loaded afresh each game; test_gate.py has a whole
gate PASS a built file); the slow torch tests pass a whole gate. The torch tests need a CPU torch in this
interpreter (``pip install --no-deps`` a CPU wheel with typing_extensions, sympy, networkx, filelock, jinja2,
fsspec; see docs/building.md) and are skipped without one.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from connectx_toolkit.building import build
from connectx_toolkit.evaluation.api import play_match
from tests.helpers import gate_first_checks, REPO

ROOT = Path(REPO)
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed in this interpreter (a CPU wheel: "
                                                       "see docs/building.md, 'Agents that import torch')")
LEFTMOST = """
def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""
# What torch does at import (torch/_utils_internal.py, torch/overrides.py...): reading source through the stack.
STACK_READER = """
import inspect
import linecache
import traceback
import warnings

_STACK = traceback.format_stack()
_FRAMES = inspect.stack()
_LINES = [linecache.getline(frame.filename, frame.lineno) for frame in _FRAMES]
warnings.warn("formatted the stack at import")
""" + LEFTMOST


def gate(candidate: str, *extra: str) -> tuple[int, dict, str]:
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--gate", candidate, "--baseline", "random",
                           "-n", "4", "--workers", "2", "--json", *extra],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else {}), done.stderr


def built_evaluated_and_gated(target: Path, out: Path, allow: tuple[str, ...] = (), whole_gate: bool = False) -> dict:
    """Build ``target`` into ``out``; evaluate ``out`` and pass it through the gate's load, smoke and validation
    checks (``whole_gate``: a whole gate, in a subprocess); the build's validation report."""
    report = build(str(target), out, allow_imports=allow)
    assert report.validation["ok"] and report.validation["reads"] == [], report.validation
    result = play_match(str(out), "random", games=2, workers=1, progress=False)
    assert result["agents"][0]["errors"] == 0 and result["agents"][0]["invalid"] == 0, result["agents"][0]
    if whole_gate:
        code, verdict, stderr = gate(str(out))
        assert code == 0 and verdict["verdict"] == "PASS", (verdict.get("reasons"), stderr[-2000:])
    else:
        checks = gate_first_checks(str(out))
        assert [check.passed for check in checks] == [True, True, True], [check.reasons for check in checks]
    return report.validation


def test_an_agent_reading_source_through_the_stack_at_import_builds_evaluates_and_passes(tmp_path):
    (tmp_path / "stack_reader.py").write_text(STACK_READER)
    validation = built_evaluated_and_gated(tmp_path / "stack_reader.py", tmp_path / "submission.py")
    assert validation["tries"] == []


def test_a_data_file_read_at_import_is_still_the_agents_read(tmp_path):
    (tmp_path / "weights.txt").write_text("3\n")
    (tmp_path / "reader.py").write_text(textwrap.dedent(f"""
        import traceback
        with open({str(tmp_path / "weights.txt")!r}) as handle:
            COLUMN = int(handle.read())
        _STACK = traceback.format_stack()
    """) + LEFTMOST)
    from connectx_toolkit.building import BuildError

    with pytest.raises(BuildError, match=r"reader\.py:3: the agent reads .*weights\.txt"):
        build(str(tmp_path / "reader.py"), tmp_path / "submission.py")


@needs_torch
@pytest.mark.slow  # ~25 s: torch's import in the check, the match's workers and the gate's clean room
def test_a_single_file_importing_torch_at_module_level_builds_evaluates_and_passes(tmp_path):
    (tmp_path / "ok_torch.py").write_text("import torch\n" + LEFTMOST)
    built_evaluated_and_gated(tmp_path / "ok_torch.py", tmp_path / "submission.py", allow=("torch",), whole_gate=True)


@needs_torch
@pytest.mark.slow
def test_a_bundle_loading_its_torch_weights_from_kaggles_folder_builds_evaluates_and_passes(tmp_path):
    import torch

    folder = tmp_path / "torch_bot"
    folder.mkdir()
    torch.manual_seed(0)
    torch.save(torch.nn.Linear(42, 7).state_dict(), folder / "model.pth")
    (folder / "main.py").write_text(textwrap.dedent("""
        import torch

        net = torch.nn.Linear(42, 7)
        net.load_state_dict(torch.load("/kaggle_simulations/agent/model.pth", map_location="cpu"))
        net.eval()


        def agent(obs, config):
            with torch.no_grad():
                scores = net(torch.tensor(obs.board, dtype=torch.float32))
            legal = [c for c in range(config.columns) if obs.board[c] == 0]
            return int(max(legal, key=lambda c: float(scores[c])))
    """))
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(f"a bundle runs in bubblewrap: {error}")
    validation = built_evaluated_and_gated(folder, tmp_path / "submission.tar.gz", allow=("torch",), whole_gate=True)
    assert validation["games"][0]["result"] != "loss (error)"
    code, verdict, stderr = gate(str(folder))  # the folder itself, as the gate takes a bundle
    assert code == 0 and verdict["verdict"] == "PASS", (verdict.get("reasons"), stderr[-2000:])
    assert os.path.getsize(tmp_path / "submission.tar.gz") < 100_000
