"""The gate's validation check (Kaggle's validation episode, the candidate against itself): its FAIL line says
what the agent raised and where, not the statuses alone."""

import os

from connectx_toolkit.evaluation import gate
from tests.helpers import REPO

FIXTURES = os.path.join(REPO, "tests", "fixtures", "gate_agents")


def test_the_validation_fail_line_carries_the_agents_error_at_its_own_line():
    candidate = os.path.join(FIXTURES, "fails_against_itself.py")
    context, load = gate.prepare(gate.GateSettings(candidate=candidate, baseline="random", workers=1))
    assert load.passed is True and context is not None
    validation = gate.Check("validation")
    gate.check_validation(context, validation)
    assert validation.passed is False
    (line,) = [reason for reason in validation.reasons if reason.startswith("validation episode: Kaggle would")]
    assert "['ERROR', 'DONE']" in line
    assert "fails_against_itself.py:8 in agent: LookupError: no opening book entry" in line, line
