"""``--help`` reads like the jobs the command does, and both commands say the name they were run as:
``connectx-evaluate`` / ``connectx-build`` as console scripts, ``evaluate.py`` / ``build_submission.py``
otherwise (``python evaluate.py``, ``python -m``, ``main()`` from Python)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from connectx_toolkit.cli import build_submission, evaluate
from tests.helpers import REPO

CHECKOUT = REPO  # its evaluate.py, its package

# Every flag of connectx-evaluate before its --help was grouped, and the group it is in now.
GROUPS = {
    "options": {"-h", "--help"},
    "match (A B: which is stronger)": {"-n", "--games", "--sprt", "--alpha", "--beta", "--resume", "--replays"},
    "league (a round robin: ratings and cross tables)": {"--league"},
    "gate (a submission's checks before an upload: docs/gate.md)": {"--gate", "--baseline"},
    "game rules (Kaggle's ConnectX configuration)": {"--rows", "--columns", "--inarow", "--act-timeout", "--overage"},
    "how games are played (a match, a league and the gate alike)": {
        "--openings", "--seed", "--referee", "--path", "--sandbox", "--memory-mb", "--workers", "--backend",
        "--pin-cores", "--no-pin-cores"},
    "output": {"--json", "--results", "--no-progress"},
    "game analysis (6x7, four in a row)": {
        "--analyze", "--analyze-file", "--analysis-budget", "--analysis-cache", "--analysis-dir",
        "--no-compiled-solver", "--no-outcome-table"},
    "the board (play your agent and probe positions in the browser)": {"--board", "--game", "--port", "--no-browser"},
    "Kaggle": {"--submit", "-m", "--message", "--force", "--ladder", "--max", "--dir"},
}


def groups(parser) -> dict[str, set[str]]:
    found = {}
    for group in parser._action_groups:
        flags = {flag for action in group._group_actions for flag in action.option_strings}
        if flags:
            found[group.title.split(" (credentials")[0]] = flags
    return found


def test_every_flag_is_still_there_in_the_group_of_its_job():
    parser = evaluate.build_parser()
    assert groups(parser) == GROUPS
    assert len({flag for flags in GROUPS.values() for flag in flags}) == 48  # as many as before the grouping


def test_help_lists_the_groups_in_order_and_every_flag(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["evaluate.py"])
    monkeypatch.setenv("COLUMNS", "120")
    with pytest.raises(SystemExit) as done:
        evaluate.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: evaluate.py ")
    titles = [line.rstrip(":") for line in out.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert [title.split(" (credentials")[0] for title in titles[1:]] == list(GROUPS)  # after "positional arguments"
    for flag in {flag for flags in GROUPS.values() for flag in flags}:
        assert f" {flag}" in out or f"[{flag}" in out, flag


@pytest.mark.parametrize("argv0, name", [
    ("/home/me/.venv/bin/connectx-evaluate", "connectx-evaluate"),
    ("connectx-evaluate.exe", "connectx-evaluate"),  # as Windows runs a console script
    ("/work/evaluate.py", "evaluate.py"),
    ("/venv/lib/python3.12/site-packages/connectx_toolkit/cli/evaluate.py", "evaluate.py"),  # python -m
    ("/usr/bin/pytest", "evaluate.py"),  # main() called from Python: the documented name
    ("", "evaluate.py"),
])
def test_usage_and_errors_name_the_command_as_it_was_run(capsys, monkeypatch, argv0, name):
    monkeypatch.setattr(sys, "argv", [argv0])
    with pytest.raises(SystemExit):
        evaluate.main(["--help"])
    assert capsys.readouterr().out.startswith(f"usage: {name} ")
    assert evaluate.main(["--rows", "0"]) == 2
    assert capsys.readouterr().err == f"{name}: error: --rows must be an integer >= 1, got 0\n"
    assert evaluate.main(["--board", "a", "b"]) == 2  # a line printed by the board's own command code
    assert capsys.readouterr().err == f"{name}: error: --board plays one agent, got a b\n"


def test_the_builder_names_itself_as_it_was_run(capsys, monkeypatch):
    for argv0, name in (("/venv/bin/connectx-build", "connectx-build"), ("build_submission.py", "build_submission.py"),
                        ("/usr/bin/pytest", "build_submission.py")):
        monkeypatch.setattr(sys, "argv", [argv0])
        with pytest.raises(SystemExit):
            build_submission.main(["--help"])
        assert capsys.readouterr().out.startswith(f"usage: {name} ")
        with pytest.raises(SystemExit) as done:
            build_submission.main(["--timeout", "0"])
        assert done.value.code == 2
        assert capsys.readouterr().err == f"{name}: error: --timeout must be positive\n"


def console_script(folder, name: str, module: str) -> str:
    """A console script as pip writes one: a file named NAME that imports the command's main."""
    path = os.path.join(folder, name)
    with open(path, "w") as handle:
        handle.write(f"import sys\nfrom {module} import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    return path


@pytest.mark.parametrize("command, script, module, bad, says", [
    ("connectx-evaluate", "evaluate.py", "connectx_toolkit.cli.evaluate", ["--rows", "0"],
     "error: --rows must be an integer >= 1, got 0"),
    ("connectx-build", "build_submission.py", "connectx_toolkit.cli.build_submission", ["--timeout", "0"],
     "error: --timeout must be positive"),
])
def test_console_script_and_checkout_script_in_a_real_process(tmp_path, command, script, module, bad, says):
    env = dict(os.environ, PYTHONPATH=CHECKOUT, COLUMNS="200")
    for path, name in ((console_script(tmp_path, command, module), command), (os.path.join(CHECKOUT, script), script)):
        shown = subprocess.run([sys.executable, path, "--help"], capture_output=True, text=True, timeout=60, env=env,
                               cwd=tmp_path)
        assert shown.returncode == 0 and shown.stdout.startswith(f"usage: {name} "), shown.stderr
        failed = subprocess.run([sys.executable, path, *bad], capture_output=True, text=True, timeout=60, env=env,
                                cwd=tmp_path)
        assert (failed.returncode, failed.stderr) == (2, f"{name}: {says}\n")
