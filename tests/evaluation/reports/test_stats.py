"""evaluation.reports.stats against values worked out by hand (arithmetic shown in the comments)."""

from __future__ import annotations

import math

import pytest

from connectx_toolkit.evaluation.reports import stats


def test_trinomial_score_interval():
    # W=6 D=2 L=2: s = 7/10 = 0.7. Agresti-Coull adds z^2/2 = 1.920729 pseudo-games at each end:
    # counts 7.920729 / 2 / 3.920729, n = 13.841459, centre = 8.920729/13.841459 = 0.644494;
    # var = (7.920729*0.355506^2 + 2*0.144494^2 + 3.920729*0.644494^2)/n = 2.670155/n = 0.192911;
    # half width = 1.959964 * sqrt(0.192911/13.841459) = 0.231398
    score = stats.trinomial_score(6, 2, 2)
    assert score.value == pytest.approx(0.7)
    assert score.low == pytest.approx(0.413056, abs=1e-6)
    assert score.high == pytest.approx(0.875931, abs=1e-6)


def test_a_clean_sweep_is_not_certainty():
    # 10 wins: counts 11.920729 / 0 / 1.920729, centre 0.861233, var = centre*(1-centre) = 0.119511,
    # half width 1.959964*sqrt(0.119511/13.841459) = 0.182120; low 0.679113 (the plain normal
    # interval would be [1, 1])
    sweep = stats.trinomial_score(10, 0, 0)
    assert sweep.value == 1.0 and sweep.high == 1.0
    assert sweep.low == pytest.approx(0.679113, abs=1e-6)
    # more games, tighter: 20 wins out of 20 give a lower bound of about 0.81
    assert stats.trinomial_score(20, 0, 0).low == pytest.approx(0.810190, abs=1e-6)
    assert stats.elo_interval(sweep).low > 0 and stats.elo_interval(sweep).low != math.inf


def test_interval_is_clipped_and_empty_match_is_uninformative():
    assert stats.trinomial_score(0, 0, 0) == stats.Interval(0.5, 0.0, 1.0)
    assert stats.trinomial_score(9, 0, 1).high == 1.0
    assert stats.trinomial_score(0, 0, 10).low == 0.0


def test_pentanomial_score_interval():
    # pair scores 0.25, 0.5, 0.5, 0.75 plus 1.920729 pseudo-pairs at 0 and at 1: n = 7.841459,
    # centre 0.5, var = (2*1.920729*0.25 + 2*0.0625)/n = 1.085364/7.841459 = 0.138413;
    # half width = 1.959964 * sqrt(0.138413/7.841459) = 0.260399
    score = stats.pentanomial_score([0, 1, 2, 1, 0])
    assert score.value == pytest.approx(0.5)
    assert (score.low, score.high) == (pytest.approx(0.239601, abs=1e-6), pytest.approx(0.760399, abs=1e-6))


def test_elo():
    assert stats.elo(0.5) == 0.0
    assert stats.elo(0.75) == pytest.approx(190.849, abs=1e-3)  # 400 * log10(3)
    assert stats.elo(0.25) == pytest.approx(-190.849, abs=1e-3)
    assert stats.elo(1.0) == math.inf and stats.elo(0.0) == -math.inf
    assert stats.expected_score(400) == pytest.approx(10 / 11)
    interval = stats.elo_interval(stats.Interval(0.5, 0.25, 0.75))
    assert (interval.low, interval.value, interval.high) == (pytest.approx(-190.849, abs=1e-3), 0.0, pytest.approx(190.849, abs=1e-3))


def test_likelihood_of_superiority():
    assert stats.likelihood_of_superiority(5, 5) == 0.5
    assert stats.likelihood_of_superiority(0, 0) == 0.5
    # 0.5 * (1 + erf(10 / sqrt(20))) = 0.5 * (1 + erf(2.236068)) = 0.5 * 1.998434 = 0.999217
    assert stats.likelihood_of_superiority(10, 0) == pytest.approx(0.999217, abs=1e-6)
    assert stats.likelihood_of_superiority(0, 10) == pytest.approx(0.000783, abs=1e-6)


def test_sprt_bounds():
    lower, upper = stats.sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944439, abs=1e-6)  # ln(0.05 / 0.95)
    assert upper == pytest.approx(2.944439, abs=1e-6)  # ln(0.95 / 0.05)
    with pytest.raises(ValueError):
        stats.sprt_bounds(0, 0.05)


def test_constrained_mle_by_hand():
    # W=2 D=1 L=1, mean forced to 1/2: p_i = w_i / (1 + lam d_i) with lam = 2/3 (solve
    # 0.5*0.5/(1 + lam/2) = 0.25*0.5/(1 - lam/2)), so p(win) = 0.5/(4/3) = 0.375, p(draw) = 0.25,
    # p(loss) = 0.25/(2/3) = 0.375
    p = stats.constrained_mle(stats.GAME_SCORES, [1, 1, 2], 0.5)
    assert p == [pytest.approx(0.375), pytest.approx(0.25), pytest.approx(0.375)]


def test_sprt_llr_by_hand():
    # same games; H1 has s1 = 0.625 = the sample mean, so p1 = observed frequencies (1/4, 1/4, 1/2):
    # LLR = 2 ln(0.5/0.375) + ln(0.25/0.25) + ln(0.25/0.375) = 0.575364 - 0.405465 = 0.169899
    llr = stats.sprt_llr(stats.GAME_SCORES, [1, 1, 2], 0.0, stats.elo(0.625))
    assert llr == pytest.approx(0.169899, abs=1e-6)


def test_sprt_on_a_run_of_won_pairs():
    # every pair won: under H0 (s0 = 1/2) the best distribution puts 1/2 on "won", under H1 (elo 50,
    # s1 = 0.571463) 0.571463, so each pair adds about ln(0.571463/0.5) = 0.133595 (less a hair for the
    # regularised empty bins): 22 pairs reach the 2.944 bound, 21 do not
    assert stats.sprt(stats.PAIR_SCORES, [0, 0, 0, 0, 21], 0, 50).verdict is None
    assert stats.sprt(stats.PAIR_SCORES, [0, 0, 0, 0, 23], 0, 50).verdict == "H1"
    assert stats.sprt_llr(stats.PAIR_SCORES, [0, 0, 0, 0, 10], 0, 50) == pytest.approx(1.33595, abs=2e-3)
    assert stats.sprt(stats.PAIR_SCORES, [23, 0, 0, 0, 0], 0, 50).verdict == "H0"


def test_sprt_undecided_without_data():
    assert stats.sprt_llr(stats.PAIR_SCORES, [0, 0, 0, 0, 0], 0, 10) == 0.0
    assert stats.sprt(stats.PAIR_SCORES, [0, 0, 0, 0, 0], 0, 10).verdict is None
    assert stats.sprt(stats.PAIR_SCORES, [0, 1, 2, 1, 0], 0, 10).verdict is None
