"""Match statistics as chess engine testers compute them (fishtest, cutechess-cli, fastchess).

Scores are in [0, 1] (win 1, draw 1/2, loss 0). Intervals are normal approximations around the mean of
per-game (trinomial) or per-pair (pentanomial) scores, with Agresti-Coull's pseudo-observations so
that a clean sweep in few games does not claim certainty. Game
pairs — one opening played twice with seats swapped — are scored as the pair's mean, one of
0, 1/4, 1/2, 3/4, 1; their variance is smaller than that of single games because the opening's bias
cancels out, which is why fishtest counts pairs.

The SPRT is the generalised SPRT of fishtest: each hypothesis "logistic Elo = elo_j" is the most likely
distribution of unit scores (per game or per pair) with expected score s_j; the log-likelihood ratio of
the observed counts under the two accepts H1 (elo >= elo1) when LLR >= log((1 - beta) / alpha) and H0
(elo <= elo0) when LLR <= log(beta / (1 - alpha)).

Accuracy against perfect play (``measuring.scoring``) counts yes/no answers instead of game scores: Wilson's
interval for a share, McNemar's exact test for two agents on the same positions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
GAME_SCORES = (0.0, 0.5, 1.0)
REGULARIZATION = 1e-3  # count given to empty bins in the SPRT (fishtest's choice)


@dataclass(frozen=True)
class Interval:
    value: float
    low: float
    high: float


def mean_and_variance(values: Sequence[float], counts: Sequence[float]) -> tuple[float, float]:
    """Mean and (population) variance of a distribution given as values with counts."""
    n = sum(counts)
    if n <= 0:
        return 0.5, 0.0
    mean = sum(v * c for v, c in zip(values, counts)) / n
    variance = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / n
    return mean, variance


def score_interval(values: Sequence[float], counts: Sequence[float], z: float = Z95) -> Interval:
    """Observed mean score with a ``z``-sigma interval, clipped to [0, 1].

    The interval is Agresti-Coull's: z^2/2 pseudo-observations are added at the lowest and at the
    highest score before the normal approximation. Without them a clean sweep (every game won, every
    pair split) has zero sample variance and the plain interval collapses to a point — 20 wins out of
    20 would claim a score of exactly 1 with certainty. For win/loss data this is the well-known
    Agresti-Coull interval, close to Wilson's; the point estimate stays the observed mean.
    """
    n = sum(counts)
    if n <= 0:
        return Interval(0.5, 0.0, 1.0)
    mean, _ = mean_and_variance(values, counts)
    pseudo = z * z / 2.0
    order = sorted(range(len(values)), key=lambda i: values[i])
    adjusted = list(counts)
    adjusted[order[0]] += pseudo
    adjusted[order[-1]] += pseudo
    centre, variance = mean_and_variance(values, adjusted)
    half = z * math.sqrt(variance / sum(adjusted))
    return Interval(mean, max(0.0, centre - half), min(1.0, centre + half))


def trinomial_score(wins: int, draws: int, losses: int, z: float = Z95) -> Interval:
    """Score of single games."""
    return score_interval((1.0, 0.5, 0.0), (wins, draws, losses), z)


def pentanomial_score(pairs: Sequence[int], z: float = Z95) -> Interval:
    """Score of game pairs; ``pairs[i]`` counts pairs that scored i half-points out of 2 points (0..4)."""
    return score_interval(PAIR_SCORES, pairs, z)


def wilson_interval(successes: int, trials: int, z: float = Z95) -> Interval:
    """The share ``successes / trials`` with Wilson's score interval.

    For a yes/no count (a move kept the outcome class or not) where the share sits near 1: a strong agent is
    accurate on 98 % of positions, where the normal interval runs past 1 and shrinks to a point at 100 %.
    Wilson's stays inside [0, 1] and keeps a width when every trial succeeded.

    >>> w = wilson_interval(8, 10); round(w.value, 4), round(w.low, 4), round(w.high, 4)
    (0.8, 0.4902, 0.9433)
    >>> w = wilson_interval(10, 10); round(w.low, 4), round(w.high, 4)
    (0.7225, 1.0)
    """
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes in {trials} trials")
    share = successes / trials
    z2 = z * z
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return Interval(share, max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided p-value of McNemar's exact test from the discordant pairs of a paired yes/no comparison.

    Two agents answer the same positions; only the positions where exactly one of them errs tell them apart
    (``only_first``: only the first erred, ``only_second``: only the second). Under "equally accurate" each
    such position is a fair coin, so the p-value is the two-sided binomial tail, computed exactly with
    integers: p = min(1, 2 * P(X <= min(b, c))), X ~ Binomial(b + c, 1/2). Exact because the discordant
    counts of two strong agents are small, where the chi-squared approximation is wrong.

    >>> mcnemar_exact(10, 1)
    0.01171875
    >>> mcnemar_exact(0, 0), mcnemar_exact(3, 3)
    (1.0, 1.0)
    """
    if only_first < 0 or only_second < 0:
        raise ValueError("discordant counts cannot be negative")
    n = only_first + only_second
    tail = sum(math.comb(n, i) for i in range(min(only_first, only_second) + 1))
    return min(1.0, 2 * tail / 2 ** n)


def elo(score: float) -> float:
    """Logistic Elo difference for an expected score; +-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo_difference: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


def elo_interval(score: Interval) -> Interval:
    """The score interval mapped through ``elo`` (monotone, so the ends map to the ends)."""
    return Interval(elo(score.value), elo(score.low), elo(score.high))


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that the first agent is stronger, from wins and losses (draws carry no information)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float

    @property
    def verdict(self) -> str | None:
        """"H1" (at least elo1), "H0" (at most elo0) or None while undecided."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """(lower, upper) log-likelihood-ratio bounds of Wald's test."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must lie strictly between 0 and 1")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(values: Sequence[float], counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalised SPRT log-likelihood ratio of H1 (elo1) against H0 (elo0).

    Each hypothesis is represented by the most likely distribution over ``values`` whose mean is its
    expected score; LLR = sum_i n_i log(p1_i / p0_i). Empty bins get a count of 1e-3 (as fishtest does),
    which keeps both distributions defined when, say, every pair so far was won.
    """
    n = sum(counts)
    if n <= 0:
        return 0.0
    regular = [c if c > 0 else REGULARIZATION for c in counts]
    p0 = constrained_mle(values, regular, expected_score(elo0))
    p1 = constrained_mle(values, regular, expected_score(elo1))
    return sum(c * math.log(a / b) for c, a, b in zip(counts, p1, p0) if c > 0)


def constrained_mle(values: Sequence[float], counts: Sequence[float], mean: float) -> list[float]:
    """The distribution on ``values`` of largest likelihood for ``counts`` subject to the given mean.

    Lagrange: p_i = w_i / (1 + lam (x_i - mean)) with w the observed frequencies, and lam the root of
    sum_i w_i (x_i - mean) / (1 + lam (x_i - mean)) = 0, which is decreasing in lam: bisection.
    """
    total = sum(counts)
    weights = [c / total for c in counts]
    deviations = [x - mean for x in values]
    high_dev, low_dev = max(deviations), min(deviations)
    if high_dev <= 0 or low_dev >= 0:
        raise ValueError(f"mean {mean} is not inside the range of the values")
    low, high = -1.0 / high_dev, -1.0 / low_dev  # where some 1 + lam * d_i reaches 0

    def slope(lam: float) -> float:
        return sum(w * d / (1.0 + lam * d) for w, d in zip(weights, deviations))

    for _ in range(200):
        middle = 0.5 * (low + high)
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    lam = 0.5 * (low + high)
    return [w / (1.0 + lam * d) for w, d in zip(weights, deviations)]


def sprt(
    values: Sequence[float], counts: Sequence[float], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05
) -> SprtResult:
    lower, upper = sprt_bounds(alpha, beta)
    return SprtResult(sprt_llr(values, counts, elo0, elo1), lower, upper)
