"""The settings check their own fields when they are made, one message per rule, whichever door made them:
``evaluate.py`` (one line, exit 2) and the Python API (``UsageError``, a ``ValueError``, with the same text)."""

from __future__ import annotations

import pytest

from connectx_toolkit.cli import evaluate
from connectx_toolkit.evaluation.api import GateSettings, LeagueSettings, play_match
from connectx_toolkit.evaluation.head_to_head import MatchSettings
from connectx_toolkit.evaluation.settings import PlaySettings, UsageError

SANDBOX_ON_RAY = "--sandbox runs games on the local process backend; drop --backend ray"
ACT_TIMEOUT_0 = "--act-timeout must be > 0, got 0.0"
MEMORY_BELOW_0 = "--memory-mb must be an integer >= 0 (0: no cap), got -1"
SPRT_ORDER = "--sprt needs ELO0 < ELO1, got 5 0"
ALPHA_BETA = "--alpha and --beta must lie strictly between 0 and 1"

# The rules evaluate.py's own flags can break, each through the door that builds the settings it breaks:
# (the command line, the same settings from Python, the message both give)
RULES = [
    (["greedy", "random", "--sandbox", "--backend", "ray"],
     lambda: play_match("greedy", "random", sandbox=True, backend="ray"), SANDBOX_ON_RAY),
    (["--gate", "greedy", "--baseline", "random", "--sandbox", "--backend", "ray"],
     lambda: GateSettings("greedy", "random", sandbox=True, backend="ray"), SANDBOX_ON_RAY),
    (["--league", "greedy", "random", "--sandbox", "--backend", "ray"],
     lambda: LeagueSettings(("greedy", "random"), sandbox=True, backend="ray"), SANDBOX_ON_RAY),
    (["greedy", "random", "--act-timeout", "0"], lambda: play_match("greedy", "random", act_timeout=0.0), ACT_TIMEOUT_0),
    (["--gate", "greedy", "--baseline", "random", "--act-timeout", "0"],
     lambda: GateSettings("greedy", "random", act_timeout=0.0), ACT_TIMEOUT_0),
    (["--league", "greedy", "random", "--act-timeout", "0"],
     lambda: LeagueSettings(("greedy", "random"), act_timeout=0.0), ACT_TIMEOUT_0),
    (["greedy", "random", "--memory-mb", "-1"], lambda: play_match("greedy", "random", memory_mb=-1), MEMORY_BELOW_0),
    (["--gate", "greedy", "--baseline", "random", "--memory-mb", "-1"],
     lambda: GateSettings("greedy", "random", memory_mb=-1), MEMORY_BELOW_0),
    (["greedy"], lambda: MatchSettings(agents=("greedy",)), "give two agents (A B), got 1"),
    (["greedy", "random", "--sprt", "5", "0"], lambda: MatchSettings(agents=("greedy", "random"), sprt=(5.0, 0.0)),
     SPRT_ORDER),
    (["--gate", "greedy", "--baseline", "random", "--sprt", "5", "0"],
     lambda: GateSettings("greedy", "random", sprt=(5.0, 0.0)), SPRT_ORDER),
    (["greedy", "random", "--sprt", "0", "5", "--alpha", "1.5"],
     lambda: MatchSettings(agents=("greedy", "random"), sprt=(0.0, 5.0), alpha=1.5), ALPHA_BETA),
    (["--gate", "greedy", "--baseline", "random", "--beta", "0"],
     lambda: GateSettings("greedy", "random", beta=0.0), ALPHA_BETA),
    (["--league", "greedy"], lambda: LeagueSettings(("greedy",)), "--league needs at least two agents"),
    (["--league", "greedy", "random", "greedy"], lambda: LeagueSettings(("greedy", "random", "greedy")),
     "--league lists an agent twice: greedy random greedy"),
]


def cli_error(argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path) -> str:
    """The one line ``evaluate.py`` prints for ``argv`` (asserting exit 2, nothing on stdout, nothing written)."""
    assert evaluate.main([*argv, "--results", str(tmp_path / "out")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not (tmp_path / "out").exists()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


@pytest.mark.parametrize("argv, build, message", RULES, ids=[" ".join(rule[0]) for rule in RULES])
def test_a_rule_gives_one_message_from_the_command_line_and_from_python(argv, build, message, capsys, tmp_path):
    assert cli_error(argv, capsys, tmp_path) == f"evaluate.py: error: {message}"
    with pytest.raises(UsageError) as refused:
        build()
    assert str(refused.value) == message


# How games are played: the same rule, the same message, from every door (the command line parses the flag's
# number and leaves its range to the settings)
PLAY_RULES = [
    (dict(referee="nobody"), "--referee must be one of native, kaggle, got 'nobody'", ["--referee", "nobody"]),
    (dict(backend="cloud"), "--backend must be one of process, ray, got 'cloud'", ["--backend", "cloud"]),
    (dict(rows=0), "--rows must be an integer >= 1, got 0", ["--rows", "0"]),
    (dict(inarow=-2), "--inarow must be an integer >= 1, got -2", ["--inarow", "-2"]),
    (dict(workers=0), "--workers must be an integer >= 1, got 0", ["--workers", "0"]),
    (dict(overage=-1.0), "--overage must be >= 0, got -1.0", ["--overage", "-1"]),
    (dict(act_timeout=float("nan")), "--act-timeout must be > 0, got nan", ["--act-timeout", "nan"]),
]


@pytest.mark.parametrize("fields, message, flags", PLAY_RULES, ids=[rule[1] for rule in PLAY_RULES])
def test_every_settings_door_checks_how_games_are_played(fields, message, flags, capsys, tmp_path):
    """A match, the gate (which once checked neither the referee nor the backend) and a league refuse the same
    bad field with the same message, and so does the command line."""
    builders = [lambda: PlaySettings(**fields), lambda: play_match("greedy", "random", **fields),
                lambda: GateSettings("greedy", "random", **fields), lambda: LeagueSettings(("greedy", "random"), **fields)]
    for build in builders:
        with pytest.raises(UsageError) as refused:
            build()
        assert str(refused.value) == message
    for argv in (["--gate", "greedy", "--baseline", "random", *flags], ["greedy", "random", *flags]):
        assert cli_error(argv, capsys, tmp_path) == f"evaluate.py: error: {message}"


def test_a_flag_that_is_no_number_is_refused_by_the_parser_and_a_python_value_of_the_wrong_type_by_the_settings(
        capsys, tmp_path):
    assert cli_error(["greedy", "random", "--inarow", "2.5"], capsys, tmp_path) == \
        "evaluate.py: error: argument --inarow: '2.5' is not an integer"
    with pytest.raises(UsageError, match=r"^--inarow must be an integer >= 1, got 2.5$"):
        PlaySettings(inarow=2.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("build", [lambda: MatchSettings(agents=("a", "b"), games=0),
                                   lambda: GateSettings("a", "b", games=0),
                                   lambda: LeagueSettings(("a", "b"), games=0)])
def test_games_below_one_are_refused_by_every_door(build, capsys, tmp_path):
    with pytest.raises(UsageError, match=r"^--games must be an integer >= 1, got 0$"):
        build()
    assert "--games" in cli_error(["greedy", "random", "-n", "0"], capsys, tmp_path)


def test_good_settings_are_made_and_replaced_without_complaint():
    from dataclasses import replace

    settings = GateSettings("greedy", "random", act_timeout=0.1, overage=0.0, workers=1, memory_mb=0, referee="kaggle")
    assert replace(settings, overage=3.0).overage == 3.0
    with pytest.raises(UsageError, match="--act-timeout"):
        replace(settings, act_timeout=-1.0)  # a replaced field is checked too
    assert MatchSettings(resume="run.jsonl").agents == ()  # a resumed run's header names its agents
