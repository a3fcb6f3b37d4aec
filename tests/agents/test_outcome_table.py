"""The ply-8 outcome table: its numbering of positions, its file (tools/pack_outcomes.py), what it proves."""

from __future__ import annotations

import math
import random

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine import outcome_table
from connectx_toolkit.agents.solver_engine.outcome_table import (SlotIndex, OutcomeTable, encode_outcome_table, load_outcome_table,
                                                outcome_bounds, position_of_key)
from connectx_toolkit.analysis.outcome_table import DEFAULT_CHECKPOINT, read_checkpoint
from tools.make_book import canonical_position
from tests.helpers import shared_oracle
from tools.oracle import sign
from tools.sample_positions import quiet_game

STANDARD = Config(6, 7, 4)


def fills(ply: int) -> int:
    """Ways to give 7 columns heights 0-6 summing to ``ply`` (inclusion-exclusion over full columns)."""
    return sum((-1) ** k * math.comb(7, k) * math.comb(ply - 7 * k + 6, 6) for k in range(ply // 7 + 1))


@pytest.fixture(scope="module")
def ply7():
    """The committed, complete ply-7 table: {canonical key: (outcome, move)}, and its positions."""
    from tools.make_outcomes import positions_at

    solved = read_checkpoint(DEFAULT_CHECKPOINT)
    positions = positions_at(7)
    assert len(solved) == len(positions) == 27109
    return solved, positions


# -- the numbering ------------------------------------------------------------------------------------

@pytest.mark.parametrize("ply", range(7))
def test_slots_number_every_arrangement_once(ply):
    index = SlotIndex(ply)
    assert index.slots == fills(ply) * math.comb(ply, ply // 2)
    for slot in range(index.slots):
        position = index.position(slot)
        assert position.moves == ply and position.mask.bit_count() == ply
        assert position.current.bit_count() == ply // 2 and not position.current & ~position.mask
        assert index.slot(position.current, position.mask) == slot


def test_every_position_of_a_ply_has_its_own_slot(ply7):
    from tools.make_outcomes import positions_at

    for ply, positions in ((6, positions_at(6)), (7, ply7[1])):
        index = SlotIndex(ply)
        slots = {index.slot(p.current, p.mask) for p in map(canonical_position, positions)}
        assert len(slots) == len(positions)


def test_ply_8_slots_round_trip():
    index = SlotIndex(8)
    assert index.slots == 2954 * 70 == fills(8) * math.comb(8, 4)
    for slot in random.Random(8).sample(range(index.slots), 3000):
        position = index.position(slot)
        assert index.slot(position.current, position.mask) == slot
    rng = random.Random(1)
    for _ in range(300):
        moves, position = quiet_game(rng, 8)
        assert index.position(index.slot(position.current, position.mask)).key() == position.key()


def test_keys_decode_to_positions():
    rng = random.Random(2)
    for plies in (0, 1, 8, 9, 20):
        _, position = quiet_game(rng, plies)
        decoded = position_of_key(position.key(), position.moves)
        assert (decoded.current, decoded.mask, decoded.moves) == (position.current, position.mask, position.moves)
    with pytest.raises(ValueError):
        position_of_key(Position.from_moves([3, 3]).key(), 3)  # two stones, not three
    with pytest.raises(ValueError):
        position_of_key(1 << 49, 1)  # past the seventh column
    with pytest.raises(ValueError):
        SlotIndex(17)


# -- the file ----------------------------------------------------------------------------------------

def test_a_table_round_trips(ply7):
    solved, positions = ply7
    data = encode_outcome_table({k: v[0] for k, v in solved.items()}, 7, {"positions": len(positions)})
    table = OutcomeTable(data)
    assert table.complete and len(table) == 27109 and table.ply == 7
    assert table.metadata["wins"] + table.metadata["draws"] + table.metadata["losses"] == 27109
    for position in positions:
        expected = solved[position.canonical_key()][0]
        assert table.outcome(position) == table.outcome(position.mirrored()) == expected
        assert table.move(position) is None  # packed without moves
    assert {p.key(): o for p, o in table.entries()} == {k: v[0] for k, v in solved.items()}
    assert table.outcome(positions[0].played(0)) is None  # another ply
    assert table.outcome(Position.from_moves([0] * 4 + [1] * 3, Config(6, 8, 4))) is None  # another board


def test_a_partial_table_knows_only_what_it_was_given(ply7):
    solved, positions = ply7
    rng = random.Random(3)
    given = {k: v[0] for k, v in solved.items() if rng.random() < 0.3}
    table = OutcomeTable(encode_outcome_table(given, 7, {"positions": len(positions)}))
    assert not table.complete and len(table) == len(given)
    for position in positions[::7]:
        expected = given.get(position.canonical_key())
        assert table.outcome(position) == table.outcome(position.mirrored()) == expected  # None: unknown, not lost
    assert outcome_bounds(positions[1], table) == (lambda v: None if v is None else (v, v))(
        given.get(positions[1].canonical_key()))


def test_a_table_with_some_moves_gives_those_and_none_for_the_rest(ply7):
    solved, positions = ply7
    keys = sorted(k for k, v in solved.items() if v[0] >= 0)
    with_move = {k: solved[k][1] for k in keys[::3]}
    table = OutcomeTable(encode_outcome_table({k: v[0] for k, v in solved.items()}, 7,
                                              {"positions": len(positions)}, with_move))
    assert table.metadata["moves"] is True and table.metadata["with_move"] == len(with_move)
    for key in keys[:300]:
        position = position_of_key(key, 7)
        assert table.move(position) == with_move.get(key)
        assert table.outcome(position) == solved[key][0]


def test_a_table_with_moves_gives_them_in_either_orientation(ply7):
    solved, positions = ply7
    data = encode_outcome_table({k: v[0] for k, v in solved.items()}, 7, {"positions": len(positions)},
                                {k: v[1] for k, v in solved.items()})
    table = OutcomeTable(data)
    assert table.metadata["moves"] is True
    for position in positions[::5]:
        outcome, move = solved[position.canonical_key()]
        if outcome < 0:
            assert table.move(position) is None
            continue
        canonical_move = table.move(canonical_position(position))
        assert canonical_move == move
        if position.mirrored().key() != position.key():  # a symmetric position is its own mirror
            assert table.move(position.mirrored()) == 6 - table.move(position)
        assert table.outcome(canonical_position(position).played(move)) is None  # the child is past the ply


@pytest.mark.parametrize("bad", [
    {Position.from_moves([0, 1]).key(): 0},  # two stones in a one-stone table
    {Position.from_moves([6]).key(): 1},  # not the canonical orientation (column 0 is)
    {Position.from_moves([0]).key(): 2},  # not an outcome
])
def test_bad_entries_are_refused(bad):
    with pytest.raises(ValueError):
        encode_outcome_table(bad, 1, {"positions": 4})


def test_a_damaged_file_is_refused():
    data = encode_outcome_table({}, 2, {"positions": 25})
    with pytest.raises(ValueError):
        OutcomeTable(b"C4BK" + data[4:])
    with pytest.raises(Exception):
        OutcomeTable(data[:-3])


# -- what it proves ----------------------------------------------------------------------------------

def parents_of(position: Position) -> list[Position]:
    """Every position one stone earlier that can lead to ``position``, from Kaggle's board (row 0 on top)."""
    board, found = position.to_board(), []
    last_mark = 2 if position.moves % 2 == 0 else 1  # mark 1 moved first
    for column in range(7):
        filled = [row for row in range(6) if board[row * 7 + column]]
        if filled and board[filled[0] * 7 + column] == last_mark:
            earlier = list(board)
            earlier[filled[0] * 7 + column] = 0
            found.append(Position.from_board(earlier, last_mark, STANDARD))
    return found


def test_bounds_one_ply_later_are_true_and_as_strong_as_the_parents_allow(ply7):
    """A ply-7 table bounds ply-8 positions from below: the best of -outcome over their parents; bitbully agrees."""
    solved, positions = ply7
    table = OutcomeTable(encode_outcome_table({k: v[0] for k, v in solved.items()}, 7, {"positions": 27109}))
    oracle = shared_oracle()
    rng = random.Random(4)
    bounded = 0
    for _ in range(150):
        _, position = quiet_game(rng, 8)
        if position.moves != 8:
            continue
        # A parent no game reaches (the stone taken back leaves no alternating order) is in no table.
        known = [solved[p.canonical_key()][0] for p in parents_of(position) if p.canonical_key() in solved]
        low = max(-outcome for outcome in known)
        bounds = outcome_bounds(position, table)
        assert bounds == (None if low < 0 else (low, 1)), str(position)
        if bounds is not None:
            assert low <= sign(max(oracle.position_scores(position).values())), str(position)
            bounded += 1
    assert bounded >= 50


def test_bounds_take_the_best_parent_and_ignore_unknown_ones():
    child = Position.from_string("536376766")  # ply 9: the second player to move
    keys = sorted({p.canonical_key() for p in parents_of(child)})
    assert len(keys) == 3  # three columns have the first player's stone on top
    # A parent the opponent wins says nothing; one it draws makes the child at least a draw; one it loses, a win.
    table = OutcomeTable(encode_outcome_table({keys[0]: 1}, 8, {"positions": 91295}))
    assert outcome_bounds(child, table) is None
    table = OutcomeTable(encode_outcome_table({keys[0]: 1, keys[1]: 0}, 8, {"positions": 91295}))
    assert outcome_bounds(child, table) == (0, 1)
    table = OutcomeTable(encode_outcome_table({keys[0]: -1, keys[1]: 0}, 8, {"positions": 91295}))
    assert outcome_bounds(child, table) == (1, 1)
    assert outcome_bounds(child.played(0), table) is None  # two plies past the table
    assert outcome_bounds(Position.from_moves([3] * 4 + [2] * 4 + [1], Config(6, 8, 4)), table) is None


# -- the shipped table -------------------------------------------------------------------------------

SHIPPED = load_outcome_table()
needs_table = pytest.mark.skipif(SHIPPED is None, reason="no ply-8 outcome table built (tools/pack_outcomes.py)")


@needs_table
def test_the_shipped_table_is_a_ply_8_table_within_its_size():
    from connectx_toolkit.agents.core.resources import load_resource

    assert SHIPPED.ply == 8 and SHIPPED.metadata["positions"] == 91295
    assert len(SHIPPED) == 91295  # whole: every position with 8 stones, a mirror pair once
    assert len(load_resource("connect4_outcomes_ply8.bin")) <= 200_000


@needs_table
def test_a_sample_of_the_shipped_table_agrees_with_bitbully():
    """2,000 entries drawn at random (all of them while fewer are solved), scored by bitbully."""
    pytest.importorskip("bitbully")
    entries = list(SHIPPED.entries())
    assert len(entries) == len(SHIPPED)
    oracle = shared_oracle()
    for position, outcome in random.Random(2000).sample(entries, min(2000, len(entries))):
        assert not position.last_player_won() and position.key() == position.canonical_key()
        assert outcome == sign(max(oracle.position_scores(position).values())), str(position)
        move = SHIPPED.move(position)
        if move is not None:
            assert sign(oracle.position_scores(position)[move]) == outcome


@needs_table
def test_the_shipped_table_agrees_with_the_ply_7_table(ply7):
    """Minimax over the ply-8 children of ply-7 positions gives the committed ply-7 outcome (a third of them)."""
    solved, positions = ply7
    checked = 0
    for position in random.Random(7).sample(positions, 9000):
        children = [position.played(c) for c in position.legal_moves() if not position.is_winning_move(c)]
        values = [SHIPPED.outcome(child) for child in children]
        outcome = solved[position.canonical_key()][0]
        if position.immediate_wins():
            continue
        known = [-v for v in values if v is not None]
        if len(known) == len(values):
            assert max(known) == outcome, str(position)
            checked += 1
        elif known:
            assert max(known) <= outcome, str(position)
    assert checked > 8000  # the table is whole: every position but those won at once has all its children


def test_no_table_proves_nothing(monkeypatch):
    monkeypatch.setattr(outcome_table, "_cache", [None])
    assert outcome_bounds(Position.from_string("44444433")) is None
    assert outcome_table.table_move(Position.from_string("44444433")) is None


# -- the command -------------------------------------------------------------------------------------

def checkpoint_lines(solved: dict[int, tuple[int, int]], keys) -> str:
    return "".join(f"{key} {solved[key][0]} {solved[key][1]}\n" for key in keys)


def test_the_command_packs_partial_checkpoints(ply7, tmp_path, capsys):
    from tools.pack_outcomes import main

    solved, positions = ply7
    keys = sorted(solved)
    (tmp_path / "a.txt").write_text(checkpoint_lines(solved, keys[:300]) + "12")  # a line cut short by a kill
    (tmp_path / "b.txt").write_text(checkpoint_lines(solved, keys[200:500]))
    out = tmp_path / "t.bin"
    assert main(["--checkpoint", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--ply", "7",
                 "--out", str(out)]) == 0
    assert "500 of 27109 positions at ply 7" in capsys.readouterr().out
    table = OutcomeTable(out.read_bytes())
    assert len(table) == 500 and not table.complete and table.metadata["moves"] is False
    assert {p.key(): o for p, o in table.entries()} == {k: solved[k][0] for k in keys[:500]}
    assert main(["--checkpoint", str(tmp_path / "b.txt"), "--ply", "7", "--out", str(out), "--moves"]) == 0
    table = OutcomeTable(out.read_bytes())
    for key in keys[200:500]:
        position = position_of_key(key, 7)
        assert table.move(position) == (solved[key][1] if solved[key][0] >= 0 else None)
    # a checkpoint with moves for some positions only ("?" for the rest, as --no-moves writes them)
    lines = checkpoint_lines(solved, keys[200:500]).splitlines(True)
    (tmp_path / "c.txt").write_text("".join(line.rsplit(" ", 1)[0] + " ?\n" if i % 2 else line
                                            for i, line in enumerate(lines)))
    assert main(["--checkpoint", str(tmp_path / "c.txt"), "--ply", "7", "--out", str(out), "--moves"]) == 0
    table = OutcomeTable(out.read_bytes())
    for i, key in enumerate(keys[200:500]):
        position = position_of_key(key, 7)
        assert table.outcome(position) == solved[key][0]
        assert table.move(position) == (solved[key][1] if solved[key][0] >= 0 and not i % 2 else None)


@pytest.mark.parametrize("problem", ["conflict", "foreign key", "missing", "not a checkpoint", "bad ply", "no folder"])
def test_the_command_refuses_bad_input_in_one_line(problem, ply7, tmp_path, capsys):
    from tools.pack_outcomes import main

    solved, _ = ply7
    key = min(solved)
    good = tmp_path / "good.txt"
    good.write_text(checkpoint_lines(solved, [key]))
    out = tmp_path / "t.bin"
    args = {
        "conflict": ["--checkpoint", str(good), str(tmp_path / "other.txt"), "--ply", "7"],
        "foreign key": ["--checkpoint", str(tmp_path / "other.txt"), "--ply", "7"],
        "missing": ["--checkpoint", str(tmp_path / "nothing.txt"), "--ply", "7"],
        "not a checkpoint": ["--checkpoint", str(tmp_path / "other.txt"), "--ply", "7"],
        "bad ply": ["--checkpoint", str(good), "--ply", "17"],
        "no folder": ["--checkpoint", str(good), "--ply", "7", "--out", str(tmp_path / "no" / "t.bin")],
    }[problem]
    other = {"conflict": f"{key} {-solved[key][0] or 1} -1\n", "foreign key": f"{Position.from_moves([3]).key()} 1 3\n",
             "not a checkpoint": "abc 1 3\n"}.get(problem)
    if other is not None:
        (tmp_path / "other.txt").write_text(other)
    if "--out" not in args:
        args += ["--out", str(out)]
    assert main(args) == 2
    error = capsys.readouterr().err
    assert error.startswith("pack_outcomes: ") and error.count("\n") == 1
    assert not out.exists()
