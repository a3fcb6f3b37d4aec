"""bench/solver_games.py: full games through a built submission, every solver move checked."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("bitbully")

from bench import solver_games  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBMISSION = os.path.join(ROOT, "submissions", "submission.py")


def test_negamax_games_start_from_the_empty_board_and_differ(capsys):
    assert solver_games.main(["--submission", SUBMISSION, "--games", "2", "--opponents", "negamax"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| negamax |")]
    assert len(rows) == 2  # one per seat
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[3] == "2-0-0"
        assert cells[5] == "100.0 %"  # every solver move kept the best outcome


def test_random_first_move_of_a_deterministic_opponent(monkeypatch):
    """negamax alone would repeat one game: its first move (ply 0 or 1) is drawn at random."""
    plies = []
    real = solver_games.play_game

    def spy(path, kind, solver_first, opening, random_ply, rng, oracle):
        plies.append((solver_first, opening, random_ply))
        return real(path, kind, solver_first, opening, random_ply, rng, oracle)

    monkeypatch.setattr(solver_games, "play_game", spy)
    solver_games.main(["--submission", SUBMISSION, "--games", "1", "--opponents", "negamax"])
    assert plies == [(True, [], 1), (False, [], 0)]


def test_bad_arguments_exit_2(capsys):
    assert solver_games.main(["--games", "0"]) == 2
    assert solver_games.main(["--submission", "/no/such/file.py"]) == 2
