"""bench/learner_speed.py: both learners measured (briefly), one row each."""

from __future__ import annotations

import pytest

from bench import learner_speed


@pytest.mark.bench
def test_both_learners_print_a_rate(capsys):
    assert learner_speed.main(["--ntuple-games", "2000", "--td-lambda-games", "5"]) == 0
    out = capsys.readouterr().out
    rows = [line.strip("|").split("|") for line in out.splitlines() if line.startswith("| ") and "learner" not in line]
    assert [row[0].strip() for row in rows] == ["ntuple", "td_lambda"]
    assert all(float(row[2].replace(",", "")) > 0 for row in rows)
