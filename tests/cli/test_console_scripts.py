"""The console scripts (connectx, and its old names connectx-build, connectx-evaluate) and run.sh work from a folder outside the repository,
with paths relative to that folder: the user's ./my_bot.py is found there and results land in ./results."""

import hashlib
import json
import os
import subprocess
import sys

import pytest
from tests.helpers import MY_BOT, played_without_forfeit, REPO

ROOT = REPO
SCRIPTS = os.path.dirname(sys.executable)
QUICK_MATCH = ["./my_bot.py", "random", "-n", "2", "--workers", "1", "--no-progress", "--json"]


def script(name: str) -> str:
    path = os.path.join(SCRIPTS, name)
    if not os.path.exists(path):
        pytest.skip(f"{name} is not installed in this environment (bash run.sh installs the checkout with it)")
    return path


@pytest.fixture
def outside(tmp_path):
    """A user's folder outside the repository, holding ./my_bot.py."""
    folder = tmp_path / "my project"
    folder.mkdir()
    (folder / "my_bot.py").write_text(MY_BOT)
    assert not str(folder).startswith(ROOT)
    return folder


def run(command: list[str], cwd) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # as a user's shell has it
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def assert_results_in(folder, done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["results"].startswith("results" + os.sep)
    results = folder / summary["results"]
    assert results.is_file()
    assert len(results.read_text().splitlines()) >= 2  # header and games
    assert summary["agents"][0]["name"] == "./my_bot.py" and played_without_forfeit(summary, 2)  # the user's bot played


def test_connectx_evaluate_from_another_folder(outside):
    done = run([script("connectx-evaluate"), *QUICK_MATCH], outside)
    assert_results_in(outside, done)


def test_connectx_match_from_another_folder(outside):
    done = run([script("connectx"), "match", *QUICK_MATCH], outside)
    assert_results_in(outside, done)


def test_connectx_build_from_another_folder(outside):
    shipped = os.path.join(ROOT, "submissions", "submission.py")
    before = hashlib.sha256(open(shipped, "rb").read()).hexdigest() if os.path.exists(shipped) else None
    done = run([script("connectx-build"), "./my_bot.py"], outside)
    assert done.returncode == 0, done.stderr[-2000:]
    built = outside / "submissions" / "submission.py"
    assert built.is_file() and "def agent" in built.read_text()
    after = hashlib.sha256(open(shipped, "rb").read()).hexdigest() if os.path.exists(shipped) else None
    assert before == after  # the repository's own submission is untouched


def test_connectx_build_bad_input_points_at_the_users_file(outside):
    (outside / "broken.py").write_text("def agent(obs, config)\n    return 3\n")
    done = run([script("connectx-build"), "./broken.py"], outside)
    assert done.returncode == 2
    assert "broken.py" in done.stderr and "Traceback" not in done.stderr
    assert not (outside / "submissions" / "submission.py").exists()


def run_sh_ready() -> None:
    """Skip unless run.sh would run at once: its .venv is this interpreter's and is set up for this checkout
    (otherwise run.sh would first set up .venv, which is not the suite's business)."""
    venv = os.path.join(ROOT, ".venv")
    if os.path.realpath(sys.prefix) != os.path.realpath(venv) or os.path.islink(venv):
        pytest.skip("the suite does not run in this checkout's own .venv (bash run.sh test does)")
    digest = hashlib.sha256()
    for name in ("requirements.txt", "requirements-kaggle.txt", "pyproject.toml"):
        digest.update(open(os.path.join(ROOT, name), "rb").read())
    stamp = os.path.join(venv, ".main.sha256")
    if not os.path.exists(stamp) or open(stamp).read().strip() != digest.hexdigest():
        pytest.skip("run.sh would set up .venv first")


def test_run_sh_runs_commands_in_the_callers_folder(outside):
    run_sh_ready()
    done = run(["bash", os.path.join(ROOT, "run.sh"), "pwd"], outside)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(outside)


def test_run_sh_python_evaluate_from_another_folder(outside):
    run_sh_ready()
    done = run(["bash", os.path.join(ROOT, "run.sh"), "python", "evaluate.py", *QUICK_MATCH], outside)
    assert_results_in(outside, done)
    assert not (outside / "evaluate.py").exists()
