"""The exact search given a known value (the outcome table's): it verifies a move that keeps it, and cheaply."""

from __future__ import annotations

import time

import pytest

from connectx_toolkit.agents import solver
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import MoveClock
from connectx_toolkit.agents.solver_engine import outcome_table
from connectx_toolkit.agents.solver_engine.negamax import ExactSolver, SearchTimeout
from connectx_toolkit.agents.solver_engine.outcome_table import OutcomeTable, encode_outcome_table
from tools.oracle import load_oracle_set, sign

UNBOUNDED = 42


def score_bounds(outcome_low: int, outcome_high: int) -> tuple[int, int]:
    """What agents.solver.known_scores makes of outcome-class bounds."""
    return (outcome_low if outcome_low >= 0 else -UNBOUNDED), (outcome_high if outcome_high <= 0 else UNBOUNDED)


def labelled(first: int, last: int, count: int):
    """Oracle positions (bitbully's scores) where the search has a choice: no win at once, two moves or more."""
    found = []
    for entry in load_oracle_set("random", first, last) + load_oracle_set("strong", first, last):
        position = entry.position()
        if not position.immediate_wins() and len(ExactSolver(Config()).non_losing_columns(position)) > 1:
            found.append(entry)
    return found[:count]


@pytest.mark.parametrize("outcome", [1, 0, -1])
def test_a_known_outcome_is_verified_with_a_move_that_keeps_it(outcome):
    entries = [e for e in labelled(20, 28, 300) if sign(e.best_score) == outcome][:6]
    assert len(entries) >= 4
    for entry in entries:
        analysis = ExactSolver(Config()).analyse(entry.position(), known=score_bounds(outcome, outcome))
        assert analysis.finished and analysis.outcome_known(), entry.moves
        assert entry.keeps_outcome(analysis.best), entry.moves
        assert analysis.low <= entry.best_score <= analysis.high, entry.moves
        if outcome == 0:
            assert analysis.exact and analysis.low == 0


def test_a_known_draw_costs_fewer_nodes_than_finding_it():
    """The "is it a win?" question, whose answer the table gives, is never asked."""
    entries = [e for e in labelled(18, 26, 300) if e.best_score == 0][:8]
    assert len(entries) >= 5
    with_table = without = 0
    for entry in entries:
        plain, verifying = ExactSolver(Config()), ExactSolver(Config())
        plain.analyse(entry.position())
        verifying.analyse(entry.position(), known=(0, 0))
        without += plain.nodes
        with_table += verifying.nodes
    assert with_table < without


def test_a_lower_bound_of_a_draw_still_finds_the_win_or_the_draw():
    """One ply after the table, "at least a draw" may be all it proves: the search finds a win where there is one."""
    entries = labelled(18, 26, 300)
    entries = [e for e in entries if e.best_score == 0][:4] + [e for e in entries if e.best_score > 0][:4]
    assert len(entries) == 8
    for entry in entries:
        analysis = ExactSolver(Config()).analyse(entry.position(), known=score_bounds(0, 1))
        assert analysis.finished and analysis.exact, entry.moves
        assert analysis.low == entry.best_score and entry.scores[analysis.best] == entry.best_score


def test_the_last_column_standing_is_not_searched():
    """When the table promises a win and every other column is refuted, the last one is the win."""
    entry = next(e for e in labelled(16, 30, 400)
                 if e.best_score > 0 and len([c for c in e.legal_moves if e.scores[c] > 0]) == 1
                 and len(ExactSolver(Config()).non_losing_columns(e.position())) >= 3)
    position = entry.position()
    exact = ExactSolver(Config())
    winner = next(c for c in entry.legal_moves if entry.scores[c] > 0)
    exact.ordered = lambda current, mask, candidates, order=exact.ordered: sorted(  # the winner last
        order(current, mask, candidates), key=lambda move: exact.column_of(move) == winner)
    searched = []
    real = exact.child_bound

    def child_bound(position, column, alpha, beta):
        searched.append((column, alpha))
        return real(position, column, alpha, beta)

    exact.child_bound = child_bound
    analysis = exact.analyse(position, time.perf_counter() + 60, known=score_bounds(1, 1))
    assert analysis.best == winner and analysis.low >= 1
    assert (winner, 0) not in searched  # refuting the others proved it
    assert {column for column, alpha in searched if alpha == 0} == set(analysis.columns) - {winner}


def test_a_known_value_past_the_deadline_proves_nothing_false():
    entry = labelled(9, 9, 1)[0]
    analysis = ExactSolver(Config()).analyse(entry.position(), 0.0, known=score_bounds(sign(entry.best_score), 1))
    assert not analysis.finished and analysis.best is None
    assert set(analysis.plausible()) <= set(entry.legal_moves)


# -- the agent -----------------------------------------------------------------------------------------

@pytest.fixture
def told(monkeypatch):
    """Make the agent believe the outcome table says ``bounds`` about every position."""
    solver._engines.clear()

    def tell(bounds):
        monkeypatch.setattr(solver, "outcome_bounds", lambda position: bounds)
    yield tell
    solver._engines.clear()


def test_the_agent_verifies_what_the_table_knows(told):
    for entry in labelled(20, 26, 12):
        outcome = sign(entry.best_score)
        told((outcome, outcome))
        solver._engines.clear()
        move = solver.choose(entry.position(), MoveClock(30.0))
        assert entry.keeps_outcome(move), entry.moves


def test_a_position_the_table_proves_lost_is_not_hard(told, search_clock):
    """Every move loses: the agent keeps its bank instead of extending the move (before ply 8 it already did)."""
    entry = next(e for e in labelled(9, 12, 200) if e.best_score < 0)
    told((-1, -1))
    clock = MoveClock(0.05, 3.0)
    planned_end = clock.end
    started = search_clock()
    solver.choose(entry.position(), clock)
    assert clock.end == planned_end and search_clock() - started < 1.0
    told(None)  # unknown: as without a table, the move is hard and extended
    solver._engines.clear()
    clock = MoveClock(0.05, 0.5)
    solver.choose(entry.position(), clock)
    assert clock.end > planned_end


def test_a_table_with_moves_answers_ply_8_at_once(monkeypatch, search_clock):
    position = Position.from_string("22752461")  # off the opening book's lines
    assert position.key() != position.canonical_key()
    canonical = position if position.key() == position.canonical_key() else position.mirrored()
    table = OutcomeTable(encode_outcome_table({canonical.key(): 0}, 8, {"positions": 91295}, {canonical.key(): 1}))
    monkeypatch.setattr(outcome_table, "_cache", [table])
    started = search_clock()
    move = solver.choose(position, MoveClock(5.0))
    assert move == (1 if canonical is position else 5) and search_clock() - started < 0.1
    monkeypatch.setattr(outcome_table, "_cache", [OutcomeTable(encode_outcome_table({canonical.key(): 0}, 8, {}))])
    assert outcome_table.table_move(position) is None  # outcomes only: the search verifies instead
    assert solver.known_scores(position) == (0, 0)
    assert solver.known_scores(position.mirrored()) == (0, 0)


@pytest.mark.parametrize("known,first_question", [((1, UNBOUNDED), 0), ((0, 0), -1), ((0, UNBOUNDED), 0),
                                                  ((-UNBOUNDED, -1), None), (None, 0)])
def test_the_first_question_is_the_one_the_table_leaves_open(known, first_question):
    """A win: is there a winning column? A draw: a column keeping it. At least a draw: is it a win? A loss: how long."""
    position = Position.from_string("4453")
    exact = ExactSolver(Config())
    asked = []

    def stop(position, result, med):
        asked.append(med)
        raise SearchTimeout  # one question is enough here

    exact._test = stop
    exact.analyse(position, known=known)
    if first_question is None:  # the exact losing score is bisected: no outcome question
        assert asked and asked[0] < -1
    else:
        assert asked[0] == first_question
