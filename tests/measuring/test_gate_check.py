"""The gate's accuracy check (accuracy/gate_check.py): FAIL when the candidate is significantly less accurate than the
baseline on the critical positions, with its worst positions named; PASS when it is not; forfeits as the gate's."""

import os

from connectx_toolkit.measuring.gate_check import accuracy_check, check_accuracy
from connectx_toolkit.evaluation import gate
from connectx_toolkit.evaluation.gate import GateSettings
from connectx_toolkit.outcomes import Verdict
from tests.helpers import FIXTURES

SLIPS = os.path.join(FIXTURES, "accuracy_agents", "greedy_30_percent_random.py")


def run(candidate, baseline, path):
    settings = GateSettings(candidate=candidate, baseline=baseline, games=20, workers=2)
    return gate.run(settings, extra_checks=[accuracy_check(path)])


def test_a_regression_is_caught_with_its_worst_positions(small_file):
    # the check alone (the gate's games would stop this one earlier: 30 % random moves lose games too)
    context, load = gate.prepare(GateSettings(candidate=SLIPS, baseline="greedy", games=20, workers=2))
    assert load.passed
    check = gate.Check("accuracy")
    check_accuracy(context, check, small_file)
    assert check.passed is False
    assert check.data["only_candidate_wrong"] > check.data["only_baseline_wrong"] and check.data["p_value"] < 0.05
    (reason,) = check.reasons
    assert reason.startswith("accuracy: significantly less accurate than the baseline on the critical positions")
    assert "connectx board --position " in reason


def test_an_agent_as_accurate_as_its_baseline_passes(small_file):
    report = run("greedy", "greedy", small_file)
    assert report["verdict"] == Verdict.PASS
    check = report["checks"][-1]
    assert check["name"] == "accuracy" and check["passed"] is True, report["reasons"]
    assert check["critical_positions"] > 0 and "McNemar exact p" in check["detail"]


def test_the_check_counts_its_games_for_the_progress_bar(small, small_file):
    name, _, games = accuracy_check(small_file)
    assert name == "accuracy" and games == 2 * len(small.games)


def test_an_error_of_its_own_met_after_overridden_answers_is_a_forfeit_not_excused(small_file):
    """Issue 54: every benchmark game forces the game's columns over the agent's answers. A stateless agent that
    raises at every position from 20 stones on used to have those games voided ("no Kaggle episode is that game").
    Asked again in a fresh process, the error repeats at the same line: its own, a forfeit of the check."""
    candidate = os.path.join(FIXTURES, "accuracy_agents", "table_runs_out_at_20_stones.py")
    context, load = gate.prepare(GateSettings(candidate=candidate, baseline="greedy", games=20, workers=2))
    assert load.passed
    check = gate.Check("accuracy")
    check_accuracy(context, check, small_file)
    assert check.data["voided_games"] == 0 and context.warnings == []
    assert any(reason.startswith("accuracy: error at ") and "table_runs_out_at_20_stones.py:10 in agent: IndexError"
               in reason for reason in check.reasons), check.reasons
