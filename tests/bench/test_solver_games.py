"""bench/solver_games.py: full games through a built submission, every solver move checked."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("bitbully")

from bench import solver_games  # noqa: E402
from tests.helpers import REPO

ROOT = REPO
SUBMISSION = os.path.join(ROOT, "submissions", "submission.py")


@pytest.mark.slow  # the bench's own games against negamax (4 s of CPU); its arguments are checked below
def test_negamax_games_start_from_the_empty_board_and_differ(capsys):
    assert solver_games.main(["--submission", SUBMISSION, "--games", "2", "--opponents", "negamax"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| negamax |")]
    assert len(rows) == 2  # one per seat
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[3] == "2-0-0"
        assert cells[5] == "100.0 %"  # every solver move kept the best outcome


@pytest.mark.parametrize("opponent", [pytest.param("negamax", marks=pytest.mark.slow), "mcts", "file:{greedy}"])
def test_random_first_move_of_a_deterministic_opponent(monkeypatch, opponent, capsys):
    """negamax, OpenSpiel's MCTS or an agent file alone could repeat one game: its first move (ply 0 or 1)
    is drawn at random."""
    plies = []
    real = solver_games.play_game

    def spy(path, kind, solver_first, opening, random_ply, *rest):
        plies.append((solver_first, opening, random_ply))
        return real(path, kind, solver_first, opening, random_ply, *rest)

    monkeypatch.setattr(solver_games, "play_game", spy)
    opponent = opponent.format(greedy=os.path.join(ROOT, "tests", "fixtures", "gate_agents", "leftmost.py"))
    solver_games.main(["--submission", SUBMISSION, "--games", "1", "--opponents", opponent, "--mcts-simulations", "50"])
    assert plies == [(True, [], 1), (False, [], 0)]
    assert "outcome lost in 0 of" in capsys.readouterr().out


def test_an_unknown_opponent_exits_2(capsys):
    with pytest.raises(SystemExit) as stopped:
        solver_games.main(["--opponents", "file:/no/such/agent.py"])
    assert stopped.value.code == 2 and "not an opponent: 'file:/no/such/agent.py'" in capsys.readouterr().err


def test_bad_arguments_exit_2(capsys):
    assert solver_games.main(["--games", "0"]) == 2
    assert solver_games.main(["--submission", "/no/such/file.py"]) == 2


def test_suite_openings_reach_outside_opponents(monkeypatch):
    """--openings suite takes the solver off its own lines against an agent file too: each game starts from
    one of the suite's 4-ply openings, with no random move on top."""
    games = []
    real = solver_games.play_game

    def spy(path, kind, solver_first, opening, random_ply, *rest):
        games.append((opening, random_ply))
        return real(path, kind, solver_first, opening, random_ply, *rest)

    monkeypatch.setattr(solver_games, "play_game", spy)
    leftmost = os.path.join(ROOT, "tests", "fixtures", "gate_agents", "leftmost.py")
    solver_games.main(["--submission", SUBMISSION, "--games", "1", "--opponents", f"file:{leftmost}",
                       "--openings", "suite"])
    assert len(games) == 2
    assert all(len(opening) == 4 and random_ply is None for opening, random_ply in games)
