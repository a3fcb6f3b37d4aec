"""The Python API at the package's top: one function per job under one name, importable from ``connectx_toolkit``
for the price of a few small modules, its signatures those of the floors that do the work, its outcomes typed."""

import inspect
import json
import os
import subprocess
import sys
import tomllib

import pytest

import connectx_toolkit
from connectx_toolkit import Outcome, Proven, Status, Verdict

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parameters(function):
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_the_public_names_are_real_functions_at_the_top():
    from connectx_toolkit import accuracy, analyze, build, league, open_board, play_match, run_gate  # noqa: F401

    for name in ("accuracy", "analyze", "build", "league", "open_board", "play_match", "run_gate"):
        function = getattr(connectx_toolkit, name)
        assert inspect.isfunction(function) and function.__module__ == "connectx_toolkit.api", name
    assert "__getattr__" not in vars(connectx_toolkit)  # no lazy names: help() lists them all


def test_the_evaluation_functions_take_the_same_arguments_as_their_floor():
    from connectx_toolkit.evaluation import api

    for name in ("play_match", "run_gate", "league"):
        top, floor = parameters(getattr(connectx_toolkit, name)), parameters(getattr(api, name))
        if name == "run_gate":  # the accuracy check lives above the evaluator: the top hands it to the floor's hook
            assert ("accuracy", inspect.Parameter.KEYWORD_ONLY, False) in top
            assert ("extra_checks", inspect.Parameter.KEYWORD_ONLY, ()) in floor
            top = [p for p in top if p[0] != "accuracy"]
            floor = [p for p in floor if p[0] != "extra_checks"]
        assert top == floor, name
    assert api.run_league is api.league  # the earlier name, for existing scripts


def test_the_top_defaults_are_the_floors_constants():
    """The top repeats the defaults as literals (importing their modules would cost every import of the package)."""
    from connectx_toolkit.building import pipeline
    from connectx_toolkit.evaluation.referees.bank import DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE

    build = {name: (kind, default) for name, kind, default in parameters(pipeline.build)}
    for name, kind, default in parameters(connectx_toolkit.build):
        assert build[name] == (kind, default), name
    # every option of the builder reaches the top, but the hooks the command line and the tests use
    top = {name for name, _, _ in parameters(connectx_toolkit.build)}
    assert set(build) - top == {"project", "timeout", "before_validation"}
    board = inspect.signature(connectx_toolkit.open_board).parameters
    assert (board["act_timeout"].default, board["overage"].default) == (DEFAULT_ACT_TIMEOUT, DEFAULT_OVERAGE)


def test_importing_the_package_loads_none_of_its_floors():
    code = ("import sys, connectx_toolkit; print(sorted(m for m in sys.modules if m.startswith('connectx_toolkit')));"
            "print('typing' in sys.modules)")
    shown = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True,
                           cwd=REPOSITORY, timeout=60).stdout.splitlines()
    assert shown == [str(["connectx_toolkit", "connectx_toolkit.api", "connectx_toolkit.outcomes"]), "False"]


def test_open_board_is_not_shadowed_by_the_board_package():
    """A function named ``board`` at the top would be replaced by the subpackage ``connectx_toolkit.board`` the
    moment anything imports it (the import system sets a submodule as its package's attribute): hence
    ``open_board``."""
    import connectx_toolkit.board.server  # noqa: F401

    assert inspect.ismodule(connectx_toolkit.board) and inspect.isfunction(connectx_toolkit.open_board)


def test_help_lists_every_function_with_its_signature():
    import pydoc

    text = pydoc.render_doc(connectx_toolkit, renderer=pydoc.plaintext)
    for name in ("accuracy", "analyze", "build", "league", "open_board", "play_match", "run_gate"):
        assert f"    {name}(" in text, name
    assert "VERSION\n    0.2.0" in text and "class Outcome(" in text


def test_the_version_has_one_home():
    with open(os.path.join(REPOSITORY, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "connectx_toolkit.__version__"}
    assert connectx_toolkit.__version__ == "0.2.0"


def test_settings_or_arguments_but_not_both():
    from connectx_toolkit.evaluation.api import GateSettings, LeagueSettings

    with pytest.raises(TypeError, match="GateSettings given with baseline, games"):
        connectx_toolkit.run_gate(GateSettings("greedy", "random"), "random", games=2)
    with pytest.raises(TypeError, match="LeagueSettings given with games"):
        connectx_toolkit.league(LeagueSettings(("greedy", "random")), games=2)
    with pytest.raises(ValueError, match="--league needs at least two agents"):
        connectx_toolkit.league(["greedy"])
    with pytest.raises(ValueError, match="budget"):
        connectx_toolkit.analyze("run.jsonl", budget=0)


def test_outcomes_are_enums_that_the_json_spells_as_before():
    from connectx_toolkit.evaluation.referees import record
    from connectx_toolkit.evaluation.referees.played import Status as RefereeStatus

    assert (record.WIN, record.DRAW, record.LOSS) == (Outcome.WIN, Outcome.DRAW, Outcome.LOSS)
    assert record.WIN is Outcome.WIN and record.FORFEITS == (Outcome.INVALID, Outcome.ERROR, Outcome.TIMEOUT)
    assert RefereeStatus is Status and record.OUTCOMES == tuple(Outcome)
    assert json.dumps([Outcome.TIMEOUT, Status.TIMEOUT, Proven.UNKNOWN, Verdict.PASS]) == \
        '["timeout", "TIMEOUT", "unknown", "PASS"]'
    assert [outcome.status for outcome in Outcome] == [Status.DONE] * 3 + [Status.INVALID, Status.ERROR, Status.TIMEOUT]
    assert [status.outcome for status in Status] == [None] * 3 + [Outcome.INVALID, Outcome.ERROR, Outcome.TIMEOUT]
    assert [outcome.lost for outcome in Outcome] == [False, False, True, True, True, True]
    assert sorted(Proven, key=lambda proven: proven.rank) == [Proven.UNKNOWN, Proven.LOSS, Proven.DRAW, Proven.WIN]


def test_a_record_read_back_holds_members():
    from connectx_toolkit.evaluation.referees.record import GameRecord

    line = {"game_id": 3, "agents": ["a", "b"], "opening": [], "moves": [3], "statuses": ["TIMEOUT", "DONE"],
            "outcomes": ["timeout", "win"], "move_times": [[], []], "config": {}, "seed": 0}
    record = GameRecord.from_json(json.loads(json.dumps(line)))
    assert record.outcomes == [Outcome.TIMEOUT, Outcome.WIN] and type(record.outcomes[0]) is Outcome
    assert record.statuses == [Status.TIMEOUT, Status.DONE] and type(record.statuses[1]) is Status
    assert json.loads(json.dumps(record.to_json())) == {**record.to_json(), "outcomes": ["timeout", "win"]}
    assert GameRecord.from_json({**line, "outcomes": ["timeout", "??"]}).outcomes == [Outcome.TIMEOUT, "??"]


def test_the_analysis_report_reads_as_the_command_prints_it():
    import pickle

    from connectx_toolkit.evaluation.display import AnalysisReport

    report = AnalysisReport({"analysis": {"games": []}}, "agent  moves\n<greedy>  3")
    assert json.loads(json.dumps(report)) == report.to_dict() == {"analysis": {"games": []}}
    assert str(report) == "agent  moves\n<greedy>  3" and "&lt;greedy&gt;" in report._repr_html_()
    assert pickle.loads(pickle.dumps(report)).table == report.table
