"""``evaluate.py --submit``: the gate, then the upload through Kaggle's official client only on PASS.

Against the local stand-in for Kaggle's API (tests/kaggle_stand_in.py) reached through kagglesdk's TEST
environment: nothing here reaches Kaggle itself. What is decided before the gate (credentials, bad input) runs
as a user runs it, a subprocess; the tests that play a gate call the command's ``main`` in this process, with the
same environment (it has imported Kaggle's environment once for all of them: a subprocess paid ~0.7 CPU s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from connectx_toolkit.cli import evaluate as evaluate_cli
from tests.kaggle_stand_in import KaggleStandIn
from tests.helpers import REPO

ROOT = REPO
GATE_AGENTS = os.path.join(ROOT, "tests", "fixtures", "gate_agents")
PASSES = os.path.join(GATE_AGENTS, "leftmost.py")  # legal and fast: PASSes against itself as the baseline
FAILS = os.path.join(GATE_AGENTS, "numpy_int.py")  # returns a numpy integer: Kaggle's referee calls it invalid
UPLOAD_STEPS = ("StartSubmissionUpload", "upload", "CreateSubmission")


@pytest.fixture
def kaggle(stand_in, tmp_path):
    stand_in.reset()
    stand_in.accept_key("ada", "ada-secret")
    yield stand_in
    assert stand_in.errors == []


def user_environment(tmp_path, credentials: bool = True) -> dict[str, str]:
    """The stand-in's user's environment, with a home of its own and kagglesdk's TEST environment."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("KAGGLE_")}
    environment.update(HOME=str(home), PYTHONPATH=ROOT, KAGGLE_API_ENVIRONMENT="TEST")
    if credentials:
        environment.update(KAGGLE_USERNAME="ada", KAGGLE_KEY="ada-secret")
    return environment


def submit(tmp_path, *arguments: str, credentials: bool = True) -> tuple[int, str, str]:
    """``evaluate.py --submit ...`` in a subprocess with its own home, as the stand-in's user."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), "--workers", "2", "-n", "4",
                           *arguments], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=user_environment(tmp_path, credentials))
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def submit_here(tmp_path, capfd, monkeypatch):
    """``evaluate.py --submit ...`` through the command's ``main`` in this process, in the environment and folder
    ``submit`` gives its subprocess: (exit code, stdout, stderr)."""
    for key in [key for key in os.environ if key.startswith("KAGGLE_")]:
        monkeypatch.delenv(key)
    for key, value in user_environment(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)

    def run(*arguments: str) -> tuple[int, str, str]:
        capfd.readouterr()
        code = evaluate_cli.main(["--workers", "2", "-n", "4", *arguments])
        out, err = capfd.readouterr()
        return code, out, err

    return run


def uploads(server: KaggleStandIn) -> list[str]:
    return [method for method, _ in server.requests if method in UPLOAD_STEPS]


def test_a_file_that_passes_the_gate_is_uploaded_and_its_id_printed(kaggle, tmp_path, submit_here):
    code, out, err = submit_here("--submit", PASSES, "-m", "leftmost, v1", "--baseline", PASSES)
    assert code == 0, err
    assert uploads(kaggle) == list(UPLOAD_STEPS)
    with open(PASSES, "rb") as handle:
        assert kaggle.created == [{"competition": "connectx", "description": "leftmost, v1", "file": handle.read()}]
    lines = out.strip().splitlines()
    assert lines[0].startswith("gate: ") and any(line.startswith("PASS (") for line in lines)
    assert lines[-4:] == [
        f"uploading {PASSES} to Kaggle's connectx competition...",
        f"submitted {PASSES} as submission 52000001 ('leftmost, v1'); Kaggle: Successfully submitted to ConnectX",
        "  see it: http://localhost:7777/competitions/connectx/submissions",
        "  its ladder games, once played: connectx ladder 52000001"]
    assert "Traceback" not in err


def test_a_file_that_fails_the_gate_never_reaches_kaggle(kaggle, tmp_path, submit_here):
    code, out, err = submit_here("--submit", FAILS, "-m", "numpy", "--json")
    assert code == 1, err
    assert uploads(kaggle) == [] and kaggle.created == []
    result = json.loads(out)
    assert result["gate"]["verdict"] == "FAIL" and result["uploaded"] is False and result["submission"] is None
    assert any("invalid move" in reason for reason in result["gate"]["reasons"])


def test_force_uploads_a_failed_file_and_says_so(kaggle, tmp_path, submit_here):
    code, out, err = submit_here("--submit", FAILS, "-m", "anyway", "--force")
    assert code == 0, err
    assert uploads(kaggle) == list(UPLOAD_STEPS) and kaggle.created[0]["description"] == "anyway"
    assert "FAIL" in out and f"the gate FAILED; uploading anyway (--force) {FAILS} to Kaggle's connectx" in out


def test_missing_credentials_stop_before_the_gate(kaggle, tmp_path):
    code, out, err = submit(tmp_path, "--submit", PASSES, "-m", "v1", credentials=False)
    assert code == 2 and out == ""  # not a game played
    assert err.startswith("evaluate.py: error: no Kaggle credentials found") and len(err.strip().splitlines()) == 1
    assert kaggle.requests == []


def test_an_upload_kaggle_refuses_is_one_line(kaggle, tmp_path, submit_here):
    kaggle.faults["StartSubmissionUpload"] = [403]  # e.g. the competition's rules not accepted on this account
    code, out, err = submit_here("--submit", FAILS, "-m", "v1", "--force")  # --force: the quickest gate
    assert code == 2 and "uploading anyway" in out
    assert err.strip().splitlines() == [f"evaluate.py: error: Kaggle's API refused the upload of {FAILS} to connectx: "
                                        "HTTP 403: Forbidden"]
    assert kaggle.created == []


@pytest.mark.parametrize("arguments, says", [
    (["--submit", PASSES], "--submit needs -m MESSAGE (the submission's description on Kaggle)"),
    (["--submit", PASSES, "-m", "  "], "--submit needs -m MESSAGE (the submission's description on Kaggle)"),
    (["--submit", "missing.py", "-m", "v"], "--submit missing.py: no such file"),
    (["--submit", os.path.join(GATE_AGENTS, "README"), "-m", "v"], None),
    (["--submit", PASSES, "-m", "v", "greedy"], "unrecognized arguments: greedy"),
    (["--submit", PASSES, "-m", "v", "--league", "a", "b"], "unrecognized arguments: --league a b"),
    (["-m", "v"], "unrecognized arguments: -m"),  # the flags of submit are no options of a match
    (["--force"], "unrecognized arguments: --force"),
])
def test_bad_input_is_one_line_and_exit_2(kaggle, tmp_path, arguments, says):
    if says is None:  # a file Kaggle does not take
        path = tmp_path / "bot.txt"
        path.write_text("def agent(obs, config):\n    return 0\n")
        arguments = ["--submit", str(path), "-m", "v"]
        says = f"--submit {path}: Kaggle takes a .py file or a .tar.gz bundle"
    code, out, err = submit(tmp_path, *arguments)
    assert (code, out) == (2, "")
    lines = [line for line in err.strip().splitlines() if not line.startswith("evaluate.py: note: ")]  # outside files
    assert lines == [f"evaluate.py: error: {says}"]
    assert kaggle.requests == []


def test_a_raw_file_that_needs_its_siblings_is_never_uploaded_even_with_force(kaggle, tmp_path, submit_here):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "helper.py").write_text("def column(obs, config):\n    return [c for c in range(7) if obs.board[c] == 0][0]\n")
    (folder / "bot.py").write_text("import helper\n\n\ndef agent(obs, config):\n    return helper.column(obs, config)\n")
    code, out, err = submit_here("--submit", str(folder / "bot.py"), "-m", "alone", "--force")
    assert code == 1, err
    assert uploads(kaggle) == [] and kaggle.created == []
    assert f"not uploaded, even with --force: {folder / 'bot.py'} imports modules of its own" in out
    assert f"connectx build {folder / 'bot.py'} -o submission.py" in out
