"""The issue's experiment (bench/accuracy_regression.py): alphabeta against a copy that plays a random legal move on 3 %
of its moves. ``connectx accuracy``'s paired check decides (McNemar exact p < 0.05 on the critical positions) and a
match with the SPRT given the same wall time does not. Minutes of both cores, so a benchmark: ``-m bench -s -n 0``."""

import pytest

from bench.accuracy_regression import experiment


@pytest.mark.bench
def test_the_paired_check_catches_what_games_cannot_in_equal_time():
    found = experiment(workers=2)
    critical = found["critical_comparison"]
    print(found)
    assert critical["p_value"] < 0.05 and critical["only_second_wrong"] > critical["only_first_wrong"]
    assert found["sprt"][-1] is None  # the match's SPRT is still undecided when the time is up
    assert found["match_s"] >= found["accuracy_s"] * 0.95
