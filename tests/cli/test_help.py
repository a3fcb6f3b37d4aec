"""``connectx --help`` lists one subcommand per job; each subcommand's ``--help`` shows only the options it reads,
and an option it does not read is refused (one line, exit 2). The old commands name themselves as they were
run: ``connectx-evaluate`` / ``connectx-build`` as console scripts, ``evaluate.py`` / ``build_submission.py``
otherwise (``python evaluate.py``, ``python -m``, ``main()`` from Python)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from connectx_toolkit.cli import build_submission, evaluate
from connectx_toolkit.cli import main as connectx
from connectx_toolkit.cli.main import command_parser
from tests.helpers import REPO

CHECKOUT = REPO  # its evaluate.py, its package

RULES = {"--rows", "--columns", "--inarow", "--act-timeout", "--overage"}
PLAY = {"--openings", "--seed", "--referee", "--path", "--sandbox", "--memory-mb", "--workers", "--backend",
        "--pin-cores", "--no-pin-cores", "--replays"}
GAMES = {"-n", "--games", "--sprt", "--alpha", "--beta"}
ANALYSIS = {"--analysis-budget", "--analysis-cache", "--analysis-dir", "--no-compiled-solver", "--no-outcome-table"}
HELP = {"-h", "--help"}
# Every option of each subcommand: the flags of the old connectx-evaluate its job read, and no other.
OPTIONS = {
    "match": HELP | GAMES | RULES | PLAY | ANALYSIS | {"--resume", "--analyze", "--json", "--results", "--no-progress"},
    "league": HELP | {"-n", "--games"} | RULES | PLAY | {"--json", "--results", "--no-progress"},
    "gate": HELP | {"--baseline", "--accuracy"} | GAMES | RULES | PLAY | {"--json", "--no-progress"},
    "submit": HELP | {"-m", "--message", "--baseline", "--force"} | GAMES | RULES | PLAY | {"--json", "--no-progress"},
    "ladder": HELP | {"--max", "--dir"} | ANALYSIS | {"--workers", "--json", "--no-progress"},
    "board": HELP | {"--game", "--position", "--port", "--no-browser"} | RULES | {"--sandbox", "--memory-mb", "--workers"}
    | ANALYSIS - {"--analysis-dir"},
    "analyze": HELP | ANALYSIS | {"--workers", "--json", "--no-progress"},
    # newer than the old command: its own options, and of the shared groups those that its job reads
    "accuracy": HELP | {"--positions", "--sample", "--benchmark", "-n", "--games", "--worst", "--answers", "--plot"} | RULES
    | PLAY - {"--openings", "--replays"} | {"--json", "--no-progress", "--analysis-budget", "--analysis-early-budget",
                                           "--analysis-cache"},
    "build": HELP | {"-o", "--out", "--allow-import", "--path", "--data", "--sandbox", "--timeout", "--search-path", "--package",
                     "--data-dir"},
    "train": HELP | {"--out", "--episodes", "--seed", "--untrained", "--evaluate", "--rows", "--columns", "--inarow",
                     "--quiet", "--learner", "--minutes", "--resume", "--curve-every", "--checkpoint-minutes",
                     "--alpha", "--tuples", "--stages", "--siblings", "--no-threats", "--runs", "--average", "--backend", "--workers"},
}


def options(command: str) -> set[str]:
    return {flag for action in command_parser(command, "connectx")._actions for flag in action.option_strings}


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_each_subcommand_has_exactly_the_options_of_its_job(command):
    assert options(command) == OPTIONS[command]


# The subcommands that play games, and the output options each of them takes (issue 54: the gate refused
# --no-progress, which match, league and accuracy take): a script that works with one works with the others
PLAYS_GAMES = ("match", "league", "gate", "submit", "accuracy")
GAME_OUTPUT = {"--json", "--no-progress"}


@pytest.mark.parametrize("command", PLAYS_GAMES)
def test_every_command_that_plays_games_takes_the_same_output_options(command):
    assert GAME_OUTPUT <= options(command), GAME_OUTPUT - options(command)


def test_the_gate_shows_its_bar_unless_no_progress(monkeypatch):
    from connectx_toolkit.evaluation import gate

    asked = []

    def run(settings, log=None, progress=False, extra_checks=()):
        asked.append(progress)
        return {"verdict": "PASS", "games": 0}

    monkeypatch.setattr(gate, "run", run)
    arguments = ["gate", "greedy", "--baseline", "random", "--json"]
    assert connectx.main(arguments) == 0 and connectx.main([*arguments, "--no-progress"]) == 0
    assert evaluate.main(["--gate", "greedy", "--baseline", "random", "--json", "--no-progress"]) == 0
    assert asked == [True, False, False]


def test_the_shared_groups_are_defined_once_and_keep_their_defaults():
    from connectx_toolkit.cli import options as shared

    for command in ("match", "gate", "league", "submit"):
        parser = command_parser(command, "connectx")
        defaults = {action.dest: action.default for action in parser._actions}
        assert (defaults["rows"], defaults["columns"], defaults["inarow"]) == (6, 7, 4)
        assert defaults["games"] == 100 and defaults["seed"] == 0 and defaults["referee"] == "native"
    assert set(shared.PLAY.options) >= {"openings", "seed", "referee", "path", "sandbox", "workers"}


def test_connectx_help_lists_one_command_per_job(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    with pytest.raises(SystemExit) as done:
        connectx.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: connectx ")
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ") and line.split()]
    assert listed[:10] == ["build", "match", "league", "gate", "submit", "ladder", "board", "analyze", "accuracy",
                           "train"]


def test_connectx_version(capsys):
    import connectx_toolkit

    with pytest.raises(SystemExit) as done:
        connectx.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"connectx {connectx.version()}"
    assert connectx.version() == getattr(connectx_toolkit, "__version__", connectx.version())


def test_the_gate_help_shows_only_the_gate(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    with pytest.raises(SystemExit):
        connectx.main(["gate", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: connectx gate ")
    for foreign in ("--league", "--board", "--resume", "--analyze", "--max", "--port", "--results", "-m"):
        assert f" {foreign} " not in out and f"[{foreign}" not in out, foreign


@pytest.mark.parametrize("argv, says", [
    (["gate", "greedy", "--baseline", "random", "--resume", "x.jsonl"], "unrecognized arguments: --resume x.jsonl"),
    (["league", "greedy", "random", "--sprt", "0", "10"], "unrecognized arguments: --sprt 0 10"),
    (["match", "greedy", "random", "--max", "3"], "unrecognized arguments: --max 3"),
    (["board", "greedy", "--analyze"], "unrecognized arguments: --analyze"),
    (["ladder", "5", "--baseline", "greedy"], "unrecognized arguments: --baseline greedy"),
    (["analyze", "x.jsonl", "--rows", "5"], "unrecognized arguments: --rows 5"),
    (["match", "greedy", "random", "--game", "x"], "unrecognized arguments: --game x"),  # not read as --games
    (["gate", "greedy"], "gate needs --baseline BASELINE (a module in agents/, a .py file, a folder or a built-in)"),
    (["board", "a", "b"], "board plays one agent, got a b"),
    (["match", "greedy", "random", "--rows", "0"], "--rows must be an integer >= 1, got 0"),
    (["ladder", "abc"], "argument SUBMISSION_ID: 'abc' is not a submission id (a number, e.g. 41234567)"),
    (["nonsense"], "argument COMMAND: invalid choice: 'nonsense' (choose from 'build', 'match', 'league', 'gate', "),
    ([], "a command is needed: build, match, league, gate, submit, ladder, board, analyze, accuracy, train"),
])
def test_a_combination_that_makes_no_sense_is_refused_in_one_line(capsys, argv, says):
    assert connectx.main(argv) == 2
    captured = capsys.readouterr()
    name = f"connectx {argv[0]}" if argv and argv[0] in connectx.commands() else "connectx"
    assert captured.out == "" and captured.err.startswith(f"{name}: error: {says}") and captured.err.count("\n") == 1


def test_the_old_command_help_shows_how_each_old_form_reads_now(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["evaluate.py"])
    with pytest.raises(SystemExit) as done:
        evaluate.main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: evaluate.py ")
    for new in ("connectx match A B", "connectx league", "connectx gate C --baseline B", "connectx submit FILE",
                "connectx ladder ID", "connectx board", "connectx analyze FILE"):
        assert new in out, new
    with pytest.raises(SystemExit):
        evaluate.main(["--gate", "x", "--help"])  # a job's flag with --help: that job's options
    assert capsys.readouterr().out.startswith("usage: connectx gate ")


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
    assert connectx.main(["build", "--timeout", "0"]) == 2  # the same command, under its new name
    assert capsys.readouterr().err == "connectx build: error: --timeout must be positive\n"


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


def test_python_dash_m_connectx_toolkit_is_connectx(tmp_path):
    env = dict(os.environ, PYTHONPATH=CHECKOUT, COLUMNS="200")
    shown = subprocess.run([sys.executable, "-m", "connectx_toolkit", "gate", "--help"], capture_output=True,
                           text=True, timeout=60, env=env, cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: connectx gate "), shown.stderr
    failed = subprocess.run([sys.executable, "-m", "connectx_toolkit", "gate", "greedy", "--league", "a"],
                            capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert (failed.returncode, failed.stdout, failed.stderr) == (
        2, "", "connectx gate: error: unrecognized arguments: --league a\n")
