"""The shipped 6x7 opening suite: legal, distinct, balanced by the oracle, and reproducible."""

import os

import pytest

from connectx_toolkit.agents.core.config import Config
from connectx_toolkit.agents.core.position import Position
from tools import make_openings
from tests.helpers import REPO

SUITE = os.path.join(REPO, "connectx_toolkit", "evaluation", "scheduling",
                     "openings_6x7.txt")
MAX_SCORE = 2


def suite_lines() -> list[str]:
    with open(SUITE) as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


def test_every_line_is_a_legal_unfinished_four_ply_position():
    lines = suite_lines()
    assert len(lines) >= 200
    for moves in lines:
        assert moves.isdigit() and len(moves) == 4, moves
        position = Position.from_string(moves, Config(6, 7, 4))  # raises on an illegal move
        assert not position.last_player_won() and not position.immediate_wins(), moves


def test_no_position_twice_even_mirrored():
    classes = set()
    for moves in suite_lines():
        cls = Position.from_string(moves).canonical_key()
        assert cls not in classes, moves
        classes.add(cls)


def test_oracle_confirms_every_opening_is_balanced():
    pytest.importorskip("bitbully")
    for moves in suite_lines():
        assert abs(make_openings.solve(moves)) <= MAX_SCORE, moves


def test_oracle_rejects_positions_that_are_decided_early():
    pytest.importorskip("bitbully")
    # X (to move) has two adjacent stones on the bottom row, both ends open: it makes an open three
    # and wins with its 4th stone, score 22 - 4 = 18.
    assert make_openings.solve("3141") == 18
    kept = {o.moves for o in make_openings.balanced_openings(4, MAX_SCORE)}
    assert "3141" not in kept and "4444" in kept


def test_header_command_reproduces_the_shipped_file(tmp_path):
    pytest.importorskip("bitbully")
    out = tmp_path / "openings.txt"
    assert make_openings.main(["--plies", "4", "--max-score", "2", "--seed", "0", "-o", str(out)]) == 0
    with open(SUITE) as handle:
        assert out.read_text() == handle.read()


def test_bad_arguments_exit_2(tmp_path, capsys):
    assert make_openings.main(["--plies", "0", "-o", str(tmp_path / "x.txt")]) == 2
    assert "error:" in capsys.readouterr().err
    assert not (tmp_path / "x.txt").exists()
