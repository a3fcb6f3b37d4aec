"""bench/network_alone_errors.py: the rules-only search that sorts the network alone's errors by depth."""

from __future__ import annotations

from bench.network_alone_errors import rules_value, report, seen_at
from connectx_toolkit.agents.core import Position
from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import LabelledPosition

# The first player holds the bottom row's columns 3 and 4 (Pons' 1-based notation), the second two stones in
# column 1: the first player to move makes an open three with 5 (2 and 6 both win next), a forced win in 3 plies.
OPEN_THREE = "3141"


def test_the_rules_search_proves_a_double_threat_at_three_plies_and_not_before():
    position = Position.from_string(OPEN_THREE)
    assert rules_value(position, 1) == 0
    assert rules_value(position, 2) == 0
    assert rules_value(position, 3) == 1
    assert rules_value(position.played(4), 2) == -1  # the second player cannot block both ends


def _answer(column: int) -> Answer:
    # Synthetic scores: column 5 (0-based 4) keeps the win, every other column a draw.
    labelled = LabelledPosition(game=0, ply=4, moves=OPEN_THREE, scores=(0, 0, 0, 0, 5, 0, 0))
    return Answer(agent="test", position=labelled, column=column)


def test_an_error_is_seen_at_the_depth_where_the_kept_move_proves_better():
    assert seen_at(_answer(0)) == 4  # the kept move's win takes its reply and one more move: 4 plies with it
    assert seen_at(_answer(4)) is None  # the kept move itself: never proven worse


def test_the_report_counts_errors_by_depth():
    line = report("a set", [_answer(0), _answer(4)], 1.4)
    assert line == ("a set: 1 errors in 2 positions, 50.0 % (the minimax baseline 1.4 %); seen by the rules alone: "
                    "0 at 2, 1 at 4, 0 at 6, 0 at 8, 0 deeper")
