"""Bradley–Terry ratings for a league, on the Elo scale, with 95 % intervals.

Model: agent i has strength g_i > 0 and scores against j with expectation g_i / (g_i + g_j); a draw counts
as half a win for each side (as in Elo). Ratings are ``400 log10 g_i``, so a 100-point gap means an
expected score of 0.64, exactly as in the logistic Elo formula used by the match statistics.

Fit: Hunter's minorisation–maximisation iteration (Hunter 2004, "MM algorithms for generalized
Bradley–Terry models"), g_i <- W_i / sum_j n_ij / (g_i + g_j), which increases the likelihood at every step.
A prior of ``prior`` virtual draws between every two agents that met (BayesElo's device) keeps a perfect
or a zero score finite; ``prior=0`` gives the plain maximum-likelihood estimate.

Anchor: ratings are relative; they are shifted so that their mean is 0.

Intervals: from the Fisher information of the fitted model (the observed information of the penalised
likelihood, a weighted graph Laplacian; its pseudo-inverse is the covariance of mean-0 ratings), rating
plus or minus 1.96 standard errors. Games are treated as independent. Game pairs (one opening played
twice with seats swapped) in fact vary less than independent games, so the intervals err on the wide
side; unlike a bootstrap over pairs they do not collapse to a point when every pair of a match ends
alike, which deterministic agents often do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from connectx_toolkit.evaluation.reports.stats import Z95

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
    league fitted independently. Every agent must be connected to every other through games (a round robin
    always is).
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


def covariance(elo: np.ndarray, games: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """Covariance matrix (Elo squared) of mean-0 ratings ``elo`` fitted from ``games`` with ``prior``."""
    games = np.asarray(games, dtype=float)
    k = len(games)
    met = (games > 0) & ~np.eye(k, dtype=bool)
    n = games + prior * met
    theta = np.asarray(elo, dtype=float) / ELO_PER_NEPER
    expected = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # expected score of i against j
    weights = n * expected * (1.0 - expected)
    information = np.diag(weights.sum(axis=1)) - weights
    return np.linalg.pinv(information) * ELO_PER_NEPER**2


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


def rate(names: Sequence[str], points: np.ndarray, games: np.ndarray, prior: float = 1.0,
         z: float = Z95) -> list[Rating]:
    """Ratings with their ``z``-sigma (default 95 %) intervals, best first."""
    elo = fit(points, games, prior)
    spread = z * np.sqrt(np.clip(np.diag(covariance(elo, games, prior)), 0.0, None))
    ratings = [Rating(name, float(elo[i]), float(elo[i] - spread[i]), float(elo[i] + spread[i]))
               for i, name in enumerate(names)]
    return sorted(ratings, key=lambda r: -r.elo)
