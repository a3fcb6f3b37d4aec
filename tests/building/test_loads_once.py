"""Kaggle runs a submission's file once in each agent's process: the build's validation does too (its load and
every seat of its games in a process of its own), so a file that chooses multiprocessing's start method as it
loads passes, as it plays on Kaggle."""

import os

import pytest

from connectx_toolkit.building.validation import validate, validate_bundle
from tests.helpers import REPO

RUNS_ONCE = os.path.join(REPO, "tests", "fixtures", "eval_agents", "runs_once.py")


def runs_once() -> str:
    with open(RUNS_ONCE, encoding="utf-8") as handle:
        return handle.read()


def test_the_validation_runs_the_file_once_in_each_of_its_processes():
    """It used to load the file, then play four seats with Kaggle's env.run in the same process: the second run
    raised ("context has already been set", and the fixture's own count)."""
    report = validate(runs_once())
    assert report["ok"], report.get("reason")
    assert [game["result"] for game in report["games"]][:1] in (["1 won"], ["2 won"], ["draw"])
    assert all(game["failure"] is None for game in report["games"])


def test_an_agents_error_still_names_its_own_line_from_its_own_process():
    report = validate("def agent(obs, config):\n    return {}[obs.step]\n")
    assert not report["ok"]
    assert "submission.py:2 in agent: KeyError: 0" in report["reason"], report["reason"]


def test_a_bundles_main_runs_once_in_each_of_the_validations_processes():
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    main = 'import sys\nsys.path.append("/kaggle_simulations/agent")\n' + runs_once()
    report = validate_bundle({"main.py": main.encode()}, None)
    assert report["ok"], report.get("reason")
