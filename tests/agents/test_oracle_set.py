"""The labelled position sets are well formed and their labels agree with facts the core can check.

The labels come from an independent solver; here they are checked against what needs no search:
legal, unfinished positions, full columns exactly where the core says so, Pons' score bounds, the
maximal score exactly for immediate wins, the minimal one exactly for moves that let the opponent
win at once, and the known scores of the empty board.
"""

import pytest

from tools.oracle import ORACLE_SETS, DATA_DIR, Oracle, load_oracle_set

PHASES = {"early": (4, 11), "middle": (12, 23), "late": (24, 41)}


@pytest.mark.parametrize("name", ORACLE_SETS)
def test_header_states_the_command(name):
    with open(f"{DATA_DIR}/oracle_{name}.jsonl") as handle:
        header = handle.readline()
    assert header.startswith("# python tools/make_oracle_set.py ")
    assert f"--origin {name}" in header


@pytest.mark.parametrize("name", ORACLE_SETS)
@pytest.mark.parametrize("phase", PHASES)
def test_every_phase_is_covered_with_all_outcomes(name, phase):
    entries = load_oracle_set(name, *PHASES[phase])
    assert len(entries) >= 200
    outcomes = {(e.best_score > 0) - (e.best_score < 0) for e in entries}
    assert outcomes == {-1, 0, 1} or (phase == "early" and outcomes >= {-1, 1})
    assert len({e.moves for e in entries}) == len(entries)


@pytest.mark.parametrize("name", ORACLE_SETS)
def test_labels_agree_with_the_rules(name):
    for entry in load_oracle_set(name):
        position = entry.position()
        ply = entry.ply
        assert not position.last_player_won(), entry.moves
        assert entry.legal_moves == position.legal_moves(), entry.moves
        win_now, lose_next = (43 - ply) // 2, -((42 - ply) // 2)
        for column in entry.legal_moves:
            score = entry.scores[column]
            assert lose_next <= score <= win_now, entry
            assert (score == win_now) == position.is_winning_move(column), (entry, column)
            if not position.is_winning_move(column) and ply < 41:  # at ply 41 nobody can lose
                gives_a_win = bool(position.played(column).immediate_wins())
                assert (score == lose_next) == gives_a_win, (entry, column)


def test_outcome_helpers():
    entry = load_oracle_set("strong", 4, 4)[0]
    best = entry.best_moves
    assert all(entry.scores[c] == entry.best_score for c in best)
    assert all(entry.keeps_outcome(c) for c in best)
    assert entry.outcome_class(best[0]) == (entry.best_score > 0) - (entry.best_score < 0)


def test_oracle_sign_convention_on_the_empty_board():
    pytest.importorskip("bitbully")
    scores = Oracle().scores([])
    assert [scores[c] for c in range(7)] == [-2, -1, 0, 1, 0, -1, -2]
