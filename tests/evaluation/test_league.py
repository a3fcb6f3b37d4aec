"""League ratings: Bradley–Terry math on hand-made results, and one tiny real round robin through the CLI."""

import glob
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from connectx_toolkit.cli import evaluate as evaluate_cli
from connectx_toolkit.evaluation.reports.ratings import covariance, fit, rate
from tests.helpers import REPO

ROOT = REPO
LEFTMOST = os.path.join(ROOT, "tests", "fixtures", "gate_agents", "leftmost.py")


def league_of(points: dict[tuple[int, int], tuple[float, int]], k: int) -> tuple[np.ndarray, np.ndarray]:
    p, g = np.zeros((k, k)), np.zeros((k, k))
    for (i, j), (scored, played) in points.items():
        p[i, j], p[j, i], g[i, j], g[j, i] = scored, played - scored, played, played
    return p, g


def test_maximum_likelihood_recovers_known_strengths():
    # Strengths 4 : 2 : 1 and 150 games per match scored exactly as expected (100, 120 and 100 points):
    # the likelihood equations hold at the true strengths, so the fit must return them.
    p, g = league_of({(0, 1): (100, 150), (0, 2): (120, 150), (1, 2): (100, 150)}, 3)
    elo = fit(p, g, prior=0)
    step = 400 * math.log10(2)
    assert elo == pytest.approx([step, 0.0, -step], abs=1e-5)
    assert elo.mean() == pytest.approx(0.0, abs=1e-9)


def test_two_agents_match_the_logistic_elo_formula_and_the_prior_shrinks():
    p, g = league_of({(0, 1): (75, 100)}, 2)
    plain = fit(p, g, prior=0)
    assert plain[0] - plain[1] == pytest.approx(400 * math.log10(3), abs=1e-5)  # 75 % <-> +190.8 Elo
    shrunk = fit(p, g, prior=1)
    assert 0 < shrunk[0] - shrunk[1] < plain[0] - plain[1]
    assert shrunk[0] - shrunk[1] == pytest.approx(400 * math.log10(75.5 / 25.5), abs=1e-5)  # one virtual draw


def test_perfect_and_zero_scores_need_the_prior():
    p, g = league_of({(0, 1): (10, 10), (0, 2): (10, 10), (1, 2): (5, 10)}, 3)
    with pytest.raises(ValueError):
        fit(p, g, prior=0)
    elo = fit(p, g, prior=1)
    assert np.all(np.isfinite(elo)) and elo[0] > elo[1] == pytest.approx(elo[2], abs=1e-6)


def test_batch_fit_equals_separate_fits():
    first = league_of({(0, 1): (7, 10), (0, 2): (3, 10), (1, 2): (6, 10)}, 3)
    second = league_of({(0, 1): (2, 10), (0, 2): (9, 10), (1, 2): (5, 10)}, 3)
    batch = fit(np.stack([first[0], second[0]]), np.stack([first[1], second[1]]))
    assert batch[0] == pytest.approx(fit(*first), abs=1e-5)
    assert batch[1] == pytest.approx(fit(*second), abs=1e-5)


def test_two_agents_interval_is_the_binomial_standard_error():
    # 50 % over n games: Var(theta_a - theta_b) = 1 / (n p (1 - p)) = 4 / n in natural units; each mean-0
    # rating is half the difference, so its standard error is 1 / sqrt(n), i.e. 400 / ln 10 / sqrt(n) Elo.
    for n in (16, 400):
        p, g = league_of({(0, 1): (n / 2, n)}, 2)
        a, b = rate(["a", "b"], p, g, prior=0)
        half = 1.959963984540054 * 400 / math.log(10) / math.sqrt(n)
        assert a.elo == pytest.approx(0.0, abs=1e-6)
        assert (a.high - a.low) / 2 == pytest.approx(half, rel=1e-6)


def test_intervals_contain_the_estimate_narrow_with_games_and_never_collapse():
    small = rate(["a", "b", "c"], *league_of({(0, 1): (5, 10), (0, 2): (10, 10), (1, 2): (10, 10)}, 3))
    large = rate(["a", "b", "c"], *league_of({(0, 1): (50, 100), (0, 2): (100, 100), (1, 2): (100, 100)}, 3))
    assert [r.name for r in small][-1] == "c"
    for r in small + large:
        assert r.low < r.elo < r.high  # every match ended alike, still a real interval
    width = {r.name: r.high - r.low for r in small}
    assert all(r.high - r.low < width[r.name] for r in large)


def test_covariance_is_that_of_mean_zero_ratings():
    p, g = league_of({(0, 1): (7, 10), (0, 2): (3, 10), (1, 2): (6, 10)}, 3)
    cov = covariance(fit(p, g), g)
    assert cov.sum(axis=1) == pytest.approx([0, 0, 0], abs=1e-6)  # the sum of the ratings is fixed at 0
    assert np.all(np.linalg.eigvalsh(cov) > -1e-9)


def evaluate(capfd, *arguments: str) -> tuple[int, str, str]:
    """``evaluate.py ARGUMENTS``: the command's ``main`` in this process, which has imported Kaggle's environment
    once for every test (a subprocess paid ~0.7 CPU s); (exit code, stdout, stderr), read at the fd."""
    capfd.readouterr()
    code = evaluate_cli.main(list(arguments))
    out, err = capfd.readouterr()
    return code, out, err


def test_tiny_real_league(tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default results directory is under the current folder
    code, out, err = evaluate(capfd, "--league", "greedy", LEFTMOST, "random", "-n", "4", "--workers", "2", "--json")
    assert code == 0, err[-2000:]
    report = json.loads(out)
    assert report["games"] == 12 and report["games_per_match"] == 4
    ratings = report["ratings"]
    assert ratings[0]["name"] == "greedy" and ratings[0]["score"] >= 0.75
    assert sum(r["games"] for r in ratings) == 24
    assert all(r["elo_ci"][0] <= r["elo"] <= r["elo_ci"][1] for r in ratings)
    assert sum(r["elo"] for r in ratings) == pytest.approx(0.0, abs=0.5)  # the anchor: mean 0
    (directory,) = glob.glob(str(tmp_path / "results" / "league-*"))  # the default directory
    assert sorted(os.listdir(directory)) == ["games.jsonl", "league.json", "league.md", "league.png"]
    with open(os.path.join(directory, "league.png"), "rb") as png:
        assert png.read(8) == b"\x89PNG\r\n\x1a\n"
    markdown = open(os.path.join(directory, "league.md")).read()
    assert "| 1 | greedy" in markdown and "Score of the row agent" in markdown
    assert json.load(open(os.path.join(directory, "league.json")))["ratings"] == ratings
    games = [json.loads(line) for line in open(os.path.join(directory, "games.jsonl"))]
    assert len(games) == 1 + 12 and len({g["game_id"] for g in games[1:]}) == 12


def test_league_results_directory_is_chosen_with_results(tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)
    chosen = tmp_path / "my-league"
    code, out, err = evaluate(capfd, "--league", "random", LEFTMOST, "-n", "2", "--results", str(chosen))
    assert code == 0, err[-2000:]
    assert sorted(os.listdir(chosen)) == ["games.jsonl", "league.json", "league.md", "league.png"]
    assert f"saved {chosen / 'league.md'}" in out
    code, out, err = evaluate(capfd, "--league", "random", LEFTMOST, "-n", "2", "--results", str(chosen))
    assert code == 2 and "already holds a league" in err


@pytest.mark.parametrize("arguments, message", [
    (["--league", "greedy"], "at least two"),
    (["--league", "greedy", "greedy"], "twice"),
    (["--league", "greedy", "no_such_agent"], "unknown agent"),
    (["--league", "greedy", "random", "--sprt", "0", "10"], "--sprt"),
])
def test_bad_input_exits_2_with_one_line(arguments, message, tmp_path):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), *arguments],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert not os.path.exists(tmp_path / "results")  # nothing half-written
