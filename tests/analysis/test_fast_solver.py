"""The offline numba solver scores positions exactly as the independent oracle does."""

import importlib.util

import pytest

from tools.oracle import load_oracle_set

# numba is imported by the fixture, in the one test worker that runs this file: every worker collects every file
# (importing numba costs ~0.3 s of CPU)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")


@pytest.fixture(scope="module")
def fast_solver():
    from connectx_toolkit.analysis import fast_solver

    return fast_solver


@pytest.fixture(scope="module")
def solver(fast_solver):
    return fast_solver.Solver()


def sample(entries, step):
    return entries[::step]


@pytest.mark.parametrize("name", ["random", "strong"])
def test_exact_scores_of_every_move(solver, name):
    entries = sample(load_oracle_set(name, 16, 41), 4)
    assert len(entries) > 100
    for entry in entries:
        assert tuple(solver.score_moves(entry.moves)) == entry.scores, entry.moves


@pytest.mark.parametrize("name", ["random", "strong"])
def test_best_move_has_the_best_score_and_is_the_most_central(solver, name):
    for entry in sample(load_oracle_set(name, 14, 41), 5):
        column, score = solver.best_move(entry.moves)
        assert score == entry.best_score, entry.moves
        assert column in entry.best_moves, entry.moves
        assert column == min(entry.best_moves, key=lambda c: (abs(c - 3), c)), entry.moves


def test_solve_agrees_with_the_best_score(solver):
    for entry in sample(load_oracle_set("random", 18, 41), 10):
        if entry.position().immediate_wins():
            continue
        assert solver.solve(entry.moves) == entry.best_score, entry.moves


def test_solve_steps_narrow_to_the_exact_score_and_give_the_class_first(solver):
    entries = sample(load_oracle_set("strong", 14, 24), 6)
    assert len(entries) > 10
    for entry in entries:
        if entry.position().immediate_wins():
            continue
        steps = list(solver.solve_steps(entry.moves))
        for (low, high), (next_low, next_high) in zip(steps, steps[1:]):
            assert low <= next_low <= next_high <= high, (entry.moves, steps)  # each window only narrows
        assert all(low <= entry.best_score <= high for low, high in steps), (entry.moves, steps)
        assert steps[-1] == (entry.best_score, entry.best_score)
        low, high = steps[min(1, len(steps) - 1)]
        assert low > 0 or high < 0 or low == high == 0, (entry.moves, steps)  # two windows decide the class


def test_parse_moves_rejects_illegal_strings(fast_solver):
    parse_moves = fast_solver.parse_moves
    assert parse_moves("4")[2] == 1
    for bad in ("8", "0", "4444444", "4x"):
        with pytest.raises(ValueError):
            parse_moves(bad)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["random", "strong"])
def test_exact_scores_from_ply_12(solver, name):
    for entry in load_oracle_set(name, 12, 41):
        assert tuple(solver.score_moves(entry.moves)) == entry.scores, entry.moves

