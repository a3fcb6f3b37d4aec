"""Bradley–Terry ratings for a league, on the Elo scale, with bootstrap intervals.

Model: agent i has strength g_i > 0 and scores against j with expectation g_i / (g_i + g_j); a draw counts
as half a win for each side (as in Elo). Ratings are ``400 log10 g_i``, so a 100-point gap means an
expected score of 0.64, exactly as in the logistic Elo formula used by the match statistics.

Fit: Hunter's minorisation–maximisation iteration (Hunter 2004, "MM algorithms for generalized
Bradley–Terry models"), g_i <- W_i / sum_j n_ij / (g_i + g_j), which increases the likelihood at every step.
A prior of ``prior`` virtual draws between every two agents that met (BayesElo's device) keeps a perfect
or a zero score finite; ``prior=0`` gives the plain maximum-likelihood estimate.

Anchor: ratings are relative; they are shifted so that their mean is 0.

Intervals: the league is resampled ``samples`` times — within every match the scheduling units (game
pairs: one opening with seats swapped, which must stay together) are drawn with replacement — and refitted;
the 2.5 % and 97.5 % quantiles of each agent's rating form its 95 % interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

ELO_PER_NEPER = 400.0 / np.log(10.0)


@dataclass(frozen=True)
class Rating:
    name: str
    elo: float
    low: float
    high: float


def fit(points: np.ndarray, games: np.ndarray, prior: float = 1.0, tolerance: float = 1e-9,
        max_iterations: int = 100_000) -> np.ndarray:
    """Elo ratings (mean 0) from ``points[i, j]`` (points i scored against j) and ``games[i, j]`` (symmetric).

    Leading dimensions are a batch: ``points`` of shape (..., k, k) gives ratings of shape (..., k), every
    league fitted independently (the bootstrap fits all its resampled leagues at once). Every agent must be
    connected to every other through games (a round robin always is).
    """
    points = np.asarray(points, dtype=float)
    games = np.asarray(games, dtype=float)
    k = games.shape[-1]
    if points.shape != games.shape or games.shape[-2:] != (k, k):
        raise ValueError("points and games must be square matrices of the same shape")
    met = (games > 0) & ~np.eye(k, dtype=bool)
    n = games + prior * met
    wins = points.sum(axis=-1) + 0.5 * prior * met.sum(axis=-1)
    scored = (points + 0.5 * prior * met) > 0
    for league in scored.reshape(-1, k, k):
        if not _strongly_connected(league):
            raise ValueError("no finite ratings: some agents scored every point (or none) against the rest; "
                             "use prior > 0")
    log_strength = np.zeros(wins.shape)
    for _ in range(max_iterations):
        strength = np.exp(log_strength)
        pair_sums = strength[..., :, None] + strength[..., None, :]
        updated = np.log(wins) - np.log((n / pair_sums).sum(axis=-1))
        updated -= updated.mean(axis=-1, keepdims=True)  # fix the scale: geometric mean 1
        done = np.max(np.abs(updated - log_strength)) < tolerance
        log_strength = updated
        if done:
            break
    return ELO_PER_NEPER * log_strength  # mean 0 by construction


def bootstrap(units: dict[tuple[int, int], Sequence[tuple[float, int]]], k: int, prior: float = 1.0,
              samples: int = 1000, seed: int = 0, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ``level`` quantiles of every rating over ``samples`` bootstrap leagues.

    ``units[(i, j)]`` lists the scheduling units of the match i–j as (points of i, games) tuples.
    """
    rng = np.random.default_rng(seed)
    points, games = np.zeros((samples, k, k)), np.zeros((samples, k, k))
    for (i, j), match in units.items():
        if not len(match):
            continue
        table = np.asarray(match, dtype=float)
        drawn = table[rng.integers(0, len(table), (samples, len(table)))]  # (samples, units, 2)
        scored, played = drawn[..., 0].sum(axis=1), drawn[..., 1].sum(axis=1)
        points[:, i, j] += scored
        points[:, j, i] += played - scored
        games[:, i, j] += played
        games[:, j, i] += played
    fits = fit(points, games, prior)
    tail = (1.0 - level) / 2.0
    return np.quantile(fits, tail, axis=0), np.quantile(fits, 1.0 - tail, axis=0)


def _strongly_connected(scored: np.ndarray) -> bool:
    """Every agent reaches every other along "scored a point against" edges: the condition (Zermelo, Ford)
    for the maximum-likelihood strengths to exist and be finite."""
    k = len(scored)

    def reach(edges: np.ndarray) -> int:
        seen, frontier = {0}, [0]
        while frontier:
            node = frontier.pop()
            for other in np.flatnonzero(edges[node]):
                if int(other) not in seen:
                    seen.add(int(other))
                    frontier.append(int(other))
        return len(seen)

    return reach(scored) == k and reach(scored.T) == k


def rate(names: Sequence[str], units: dict[tuple[int, int], Sequence[tuple[float, int]]], prior: float = 1.0,
         samples: int = 1000, seed: int = 0) -> list[Rating]:
    """Ratings with 95 % bootstrap intervals, best first."""
    k = len(names)
    points, games = totals(units, k)
    elo = fit(points, games, prior)
    low, high = bootstrap(units, k, prior, samples, seed) if samples > 0 else (elo, elo)
    ratings = [Rating(name, float(elo[i]), float(min(low[i], elo[i])), float(max(high[i], elo[i])))
               for i, name in enumerate(names)]
    return sorted(ratings, key=lambda r: -r.elo)


def totals(units: dict[tuple[int, int], Sequence[tuple[float, int]]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """The points and games matrices of a league given as units per match."""
    points, games = np.zeros((k, k)), np.zeros((k, k))
    for (i, j), match in units.items():
        scored = sum(p for p, _ in match)
        played = sum(g for _, g in match)
        points[i, j] += scored
        points[j, i] += played - scored
        games[i, j] += played
        games[j, i] += played
    return points, games
