"""The outcome table (tools/make_outcomes.py) and the book of outcome-keeping moves made from it."""

import random

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.opening_book import (OpeningBook, book_move, load_outcome_book, outcome_book_proves_lost,
                                               outcome_move)
from tools.make_book import canonical_position
from tests.helpers import shared_oracle
from tools.oracle import ORACLE_SETS, Oracle, load_oracle_set, sign

STANDARD = Config(6, 7, 4)


def oracle_outcome(oracle: Oracle, position: Position) -> int:
    """1, 0 or -1 for the player to move, by bitbully."""
    return sign(max(oracle.position_scores(position).values()))


def keeps_the_outcome(oracle: Oracle, position: Position, move: int) -> bool:
    scores = oracle.position_scores(position)
    return sign(scores[move]) == sign(max(scores.values()))


CENTRE_FIRST = [3, 2, 4, 1, 5, 0, 6]


def oracle_outcome_and_move(oracle: Oracle, position: Position) -> tuple[int, int]:
    """What tools/make_outcomes.py records: the outcome and the most central move keeping it (-1 if lost)."""
    scores = oracle.position_scores(position)
    outcome = sign(max(scores.values()))
    if outcome < 0:
        return outcome, -1
    return outcome, min((c for c in scores if sign(scores[c]) == outcome), key=CENTRE_FIRST.index)


def test_positions_at_a_ply_match_perft_up_to_mirrors():
    from tools.make_outcomes import positions_at

    counts = [len(positions_at(ply)) for ply in range(7)]
    assert counts == [1, 4, 25, 121, 568, 2144, 8231]  # distinct positions, a mirror pair counted once
    assert len({p.canonical_key() for p in positions_at(6)}) == 8231
    assert all(not p.last_player_won() for p in positions_at(6))


def test_the_solver_outcome_and_move_agree_with_the_oracle():
    pytest.importorskip("numba")
    from connectx_toolkit.analysis.fast_solver import Solver, parse_moves

    solver = Solver()
    entries = [e for e in load_oracle_set("random", 10, 30) if e.legal_moves][::6]
    assert len(entries) >= 20
    for entry in entries:
        outcome = sign(entry.best_score)
        assert solver.outcome(entry.moves) == outcome, entry.moves
        kept = [c for c in entry.legal_moves if sign(entry.scores[c]) == outcome]
        expected = min(kept, key=CENTRE_FIRST.index) if outcome >= 0 else -1
        assert solver.outcome_and_move_bitboards(*parse_moves(entry.moves)) == (outcome, expected), entry.moves


@pytest.mark.parametrize("at_least", [-1, 0, 1])
def test_the_outcome_with_its_free_move_agrees_with_the_oracle(at_least):
    """The root's questions asked column by column give the outcome of ``outcome_bitboards`` and, where a
    question proved it, a column keeping it; a bound settles what it can with no move."""
    pytest.importorskip("numba")
    from connectx_toolkit.analysis.fast_solver import Solver, parse_moves

    solver, plain = Solver(1 << 20), Solver(1 << 20)
    entries = [e for e in load_oracle_set("random", 14, 30) if e.legal_moves and sign(e.best_score) >= at_least]
    assert len(entries) >= 30
    moves_found = 0
    for entry in entries[::5]:
        outcome, move = solver.outcome_with_move_bitboards(*parse_moves(entry.moves), at_least)
        assert outcome == plain.outcome_bitboards(*parse_moves(entry.moves), at_least) == sign(entry.best_score)
        if move is None:
            assert outcome < 0 or at_least == outcome or at_least == 1, entry.moves
            continue
        moves_found += 1
        assert sign(entry.scores[move]) == outcome, entry.moves
    assert moves_found > 0


def subtree_table(oracle: Oracle, root: Position, ply: int) -> dict[int, tuple[int, int]]:
    """What the command records for every position at ``ply`` below ``root`` (nobody has won)."""
    layer, table = [root], {}
    while layer and layer[0].moves < ply:
        layer = [p.played(c) for p in layer for c in p.legal_moves() if not p.is_winning_move(c)]
    for position in layer:
        canonical = canonical_position(position)
        table[canonical.key()] = oracle_outcome_and_move(oracle, canonical)
    return table


@pytest.mark.parametrize("moves", ["44556", "12345", "44332", "77112"])
def test_moves_derived_from_a_table_keep_the_outcome(moves):
    """A table of one subtree settles the subtree's root; with entries missing, what is derived is still right."""
    pytest.importorskip("bitbully")
    from connectx_toolkit.analysis.outcome_table import outcome_moves

    oracle = shared_oracle()
    root = Position.from_string(moves, STANDARD)
    table = subtree_table(oracle, root, 7)
    derived = outcome_moves(table, 7, root)
    children = [root.played(c) for c in root.legal_moves() if not root.is_winning_move(c)]
    below = [root] + children + [c.played(m) for c in children for m in c.legal_moves() if not c.is_winning_move(m)]
    for position in below:
        entry = derived.get(position.canonical_key())
        if oracle_outcome(oracle, position) < 0 or position.immediate_wins():
            assert entry is None  # lost, or won at once: the agent needs no entry
            continue
        assert entry is not None, str(position)
        move = entry if position.key() == position.canonical_key() else 6 - entry
        assert keeps_the_outcome(oracle, position, move), str(position)
    rng = random.Random(moves)
    for _ in range(5):
        partial = {k: v for k, v in table.items() if rng.random() < 0.8}
        for key, entry in outcome_moves(partial, 7, root).items():
            assert key in derived  # nothing is settled from a partial table that the whole one does not settle
            position = next(p for p in below if p.canonical_key() == key)
            move = entry if position.key() == key else 6 - entry
            assert keeps_the_outcome(oracle, position, move), str(position)


def test_the_committed_checkpoint_agrees_with_the_oracle():
    """A sample of analysis/data/outcomes_ply7.txt (the table the shipped outcome book is made from)."""
    pytest.importorskip("bitbully")
    from connectx_toolkit.analysis.outcome_table import DEFAULT_CHECKPOINT, read_checkpoint
    from tools.make_outcomes import positions_at

    solved = read_checkpoint(DEFAULT_CHECKPOINT)
    assert solved, "no outcome table committed"
    canonical = {}
    for position in positions_at(7):
        canonical[position.canonical_key()] = canonical_position(position)
    oracle = shared_oracle()
    for key in random.Random(7).sample(sorted(solved), min(300, len(solved))):
        assert solved[key] == oracle_outcome_and_move(oracle, canonical[key]), key


OUTCOMES = load_outcome_book()
needs_outcomes = pytest.mark.skipif(OUTCOMES is None, reason="no outcome book built")


@needs_outcomes
def test_the_shipped_outcome_book_is_what_make_outcomes_writes():
    from connectx_toolkit.agents.core.resources import load_resource

    data = load_resource("connect4_outcomes.bin")
    book = OpeningBook(data)
    assert book.metadata["kind"] == "outcomes" and book.metadata["ply"] == 7
    assert len(book) == book.metadata["entries"] > 0
    assert len(data) <= 1 * 2**20


@needs_outcomes
def test_the_shipped_outcome_book_is_rebuilt_from_the_committed_table(tmp_path):
    """Byte for byte: a book written by an older derivation than the code's would differ."""
    from connectx_toolkit.agents.core.resources import load_resource
    from connectx_toolkit.analysis.outcome_table import DEFAULT_CHECKPOINT, read_checkpoint
    from tools.make_outcomes import positions_at, write_outcome_book

    write_outcome_book(str(tmp_path / "o.bin"), read_checkpoint(DEFAULT_CHECKPOINT), 7, len(positions_at(7)))
    assert (tmp_path / "o.bin").read_bytes() == load_resource("connect4_outcomes.bin")


@needs_outcomes
def test_the_shipped_outcome_book_keeps_the_outcome():
    """A sample of its moves, every ply before 8, checked by bitbully."""
    pytest.importorskip("bitbully")
    from tools.make_outcomes import positions_at

    oracle = shared_oracle()
    checked = 0
    for ply in range(8):
        covered = [p for p in positions_at(ply) if outcome_move(p) is not None]
        for position in random.Random(ply).sample(covered, min(60, len(covered))):
            assert keeps_the_outcome(oracle, position, outcome_move(position)), str(position)
            assert keeps_the_outcome(oracle, position.mirrored(), outcome_move(position.mirrored()))
            checked += 1
    assert checked >= 8


@needs_outcomes
@pytest.mark.parametrize("name", ORACLE_SETS)
def test_outcome_moves_of_the_oracle_positions_keep_the_outcome(name):
    for entry in load_oracle_set(name, 0, 7):
        move = outcome_move(entry.position())
        if move is not None:
            assert sign(entry.scores[move]) == sign(entry.best_score), entry.moves


@needs_outcomes
def test_the_solver_plays_the_outcome_move_at_once_off_the_book(search_clock):
    from connectx_toolkit.agents.solver import agent
    from tools.make_outcomes import positions_at

    off_book = [p for p in positions_at(7) if book_move(p) is None and outcome_move(p) is not None
                and not p.immediate_wins()]
    assert off_book
    for position in off_book[:5]:
        board = position.to_board()
        started = search_clock()
        move = agent({"board": board, "mark": 1 + position.moves % 2, "step": position.moves,
                      "remainingOverageTime": 60}, {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2})
        assert move == outcome_move(position)
        assert search_clock() - started < 0.5


@needs_outcomes
@pytest.mark.parametrize("name", ORACLE_SETS)
def test_silence_of_the_complete_outcome_book_proves_a_loss(name):
    book = load_outcome_book()
    if book.metadata["solved"] != book.metadata["positions"]:
        pytest.skip("the outcome table is not complete: its silence proves nothing")
    proved = 0
    for entry in load_oracle_set(name, 0, 9):
        position = entry.position()
        lost = entry.best_score < 0
        if entry.ply <= 7 and not position.immediate_wins():
            assert outcome_book_proves_lost(position) == lost, entry.moves
            assert outcome_book_proves_lost(position.mirrored()) == lost, entry.moves
            proved += lost
        else:
            assert not outcome_book_proves_lost(position), entry.moves  # too late, or a win at once
    assert proved > 0


def test_an_incomplete_outcome_book_proves_nothing(monkeypatch):
    from connectx_toolkit.agents.solver_engine import opening_book
    from connectx_toolkit.agents.solver_engine.opening_book import encode_book

    partial = OpeningBook(encode_book({}, {"kind": "outcomes", "ply": 7, "solved": 10, "positions": 27109}))
    monkeypatch.setitem(opening_book._cache, opening_book.OUTCOME_RESOURCE, partial)
    assert not outcome_book_proves_lost(Position.from_moves([0, 0, 0, 2]))
    complete = OpeningBook(encode_book({}, {"kind": "outcomes", "ply": 7, "solved": 9, "positions": 9}))
    monkeypatch.setitem(opening_book._cache, opening_book.OUTCOME_RESOURCE, complete)
    assert outcome_book_proves_lost(Position.from_moves([0, 0, 0, 2]))  # an empty complete book: all lost
    assert not outcome_book_proves_lost(Position.from_moves([0, 0, 0, 2], Config(6, 8, 4)))  # another board


# The command itself: a few positions of the real ply 8, checked against bitbully.

def run(args, tmp_path):
    from tools import make_outcomes

    return make_outcomes.main(args + ["--checkpoint", str(tmp_path / "o.txt"), "--out", str(tmp_path / "o.bin"),
                                      "--table-mb", "64", "--no-progress"])


@pytest.mark.slow  # the offline builder's command: three runs enumerating ply 8, 15-30 s each
def test_the_command_solves_resumes_and_writes_the_book(tmp_path):
    pytest.importorskip("numba")
    pytest.importorskip("bitbully")
    from connectx_toolkit.analysis.outcome_table import read_checkpoint
    from tools.make_outcomes import positions_at

    assert run(["--positions", "2", "--ply", "8"], tmp_path) == 0
    first = (tmp_path / "o.txt").read_text()
    assert len(first.splitlines()) == 2
    with open(tmp_path / "o.txt", "a") as handle:
        handle.write("12")  # a line cut short by a kill
    assert run(["--positions", "2", "--ply", "8", "--resume", "--jobs", "2", "--chunk", "1"], tmp_path) == 0
    solved = read_checkpoint(str(tmp_path / "o.txt"))
    assert len(solved) == 4 and 12 not in solved
    by_key = {p.canonical_key(): p for p in positions_at(8)[:4]}
    assert set(solved) == set(by_key)  # the first positions in visiting order, none twice
    oracle = shared_oracle()
    for key, recorded in solved.items():
        position = canonical_position(by_key[key])
        assert recorded == oracle_outcome_and_move(oracle, position)
    book = OpeningBook((tmp_path / "o.bin").read_bytes())
    assert book.metadata == {"entries": len(book), "kind": "outcomes", "ply": 8, "positions": 91295, "solved": 4}
    assert run(["--positions", "0", "--ply", "8", "--resume"], tmp_path) == 0  # only rewrites the book
    assert len(read_checkpoint(str(tmp_path / "o.txt"))) == 4


@pytest.mark.slow  # the offline builder's command: solving ten ply-8 positions, about 15 s
def test_outcomes_only_bounded_by_the_ply_below_agree_with_the_oracle(tmp_path):
    pytest.importorskip("numba")
    pytest.importorskip("bitbully")
    from connectx_toolkit.analysis.outcome_table import read_checkpoint
    from tools.make_outcomes import positions_at

    count = 10  # the first ten: seven wins and a draw the bound settles with no move, two wins whose question finds one
    assert run(["--positions", str(count), "--ply", "8", "--no-moves"], tmp_path) == 0
    assert not (tmp_path / "o.bin").exists()  # outcomes only: no book of moves
    solved = read_checkpoint(str(tmp_path / "o.txt"))
    by_key = {p.canonical_key(): p for p in positions_at(8)[:count]}
    assert set(solved) == set(by_key)
    oracle = shared_oracle()
    assert all(outcome == oracle_outcome(oracle, by_key[key]) for key, (outcome, _) in solved.items())
    # the move that answered a question is kept, and keeps the outcome; "?" where no question found one
    found = {key: move for key, (_, move) in solved.items() if move is not None}
    assert 0 < len(found) < len(solved)
    for key, move in found.items():
        scores = oracle.position_scores(canonical_position(by_key[key]))  # moves are the canonical side's
        assert sign(scores[move]) == sign(max(scores.values())) == solved[key][0]
    # --fill-moves then finds the others' moves, appended to the checkpoint, and nothing else changes
    assert run(["--ply", "8", "--fill-moves"], tmp_path) == 0
    filled = read_checkpoint(str(tmp_path / "o.txt"))
    assert {key: outcome for key, (outcome, _) in filled.items()} == {key: o for key, (o, _) in solved.items()}
    for key, (outcome, move) in filled.items():
        if outcome < 0:
            assert move is None
            continue
        assert move == found.get(key, move)  # a move found before stays
        scores = oracle.position_scores(canonical_position(by_key[key]))
        assert sign(scores[move]) == outcome, key
    lines = (tmp_path / "o.txt").read_text().splitlines()
    assert len(lines) == count + sum(1 for outcome, move in solved.values() if outcome >= 0 and move is None)
    assert run(["--ply", "8", "--fill-moves"], tmp_path) == 0  # nothing left to fill: the file stays
    assert (tmp_path / "o.txt").read_text().splitlines() == lines


def test_parents_bound_the_outcomes_of_the_shipped_ply_8_table():
    from connectx_toolkit.analysis.outcome_table import DEFAULT_CHECKPOINT, read_checkpoint
    from connectx_toolkit.agents.solver_engine.outcome_table import load_outcome_table, parents
    from tools.make_outcomes import lower_bound, positions_at

    below = read_checkpoint(DEFAULT_CHECKPOINT)
    table = load_outcome_table()
    settled = 0
    for position in positions_at(8)[:3000]:
        position = canonical_position(position)
        assert all(any(parent.played(c).key() == position.key() for c in range(7)) for parent in parents(position))
        bound = lower_bound(position, below)
        assert bound <= table.outcome(position)
        settled += bound == 1
    assert settled > 100  # a lost parent settles many children as wins


@pytest.mark.parametrize("bad", [["--ply", "0"], ["--ply", "13"], ["--jobs", "0"], ["--chunk", "0"],
                                 ["--hours", "-1"]])
def test_the_command_rejects_bad_arguments(bad, tmp_path, capsys):
    assert run(bad, tmp_path) == 2
    assert capsys.readouterr().err.startswith("make_outcomes:")
    assert not (tmp_path / "o.bin").exists() and not (tmp_path / "o.txt").exists()


def test_fill_moves_needs_a_checkpoint(tmp_path, capsys):
    assert run(["--ply", "8", "--fill-moves"], tmp_path) == 2
    assert "--fill-moves needs a checkpoint" in capsys.readouterr().err


def test_the_command_refuses_to_overwrite_a_checkpoint(tmp_path, capsys):
    (tmp_path / "o.txt").write_text("1 1 3\n")
    assert run([], tmp_path) == 2
    assert "--resume" in capsys.readouterr().err


@needs_outcomes
def test_the_coverage_report_adds_up(capsys):
    from bench import outcome_book_coverage

    assert outcome_book_coverage.main([]) == 0
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    plies = [r for r in rows if r[0].strip().isdigit()]
    assert [int(r[0]) for r in plies] == list(range(8))
    for row in plies:
        shares = [float(cell.strip().rstrip("%")) for cell in row[2:]]
        assert abs(sum(shares) - 100) < 0.5, row
    assert plies[0][3].strip() == "100.0%"  # the empty board is in the opening book
    sets = [r for r in rows if r[0].strip() in ORACLE_SETS]
    for row in sets:
        counts = [int(cell) for cell in row[1:]]
        assert counts[0] == sum(counts[1:]) > 0
    meta = load_outcome_book().metadata
    if meta["solved"] == meta["positions"]:  # the complete table leaves nothing before ply 8 to the search
        assert all(row[-1].strip() in ("0.0%", "0") for row in plies + sets), rows


@pytest.mark.parametrize("name", ORACLE_SETS)
def test_the_analysis_reads_the_committed_table_right(name):
    """analysis.table's classes from the committed checkpoint, on the oracle sets' positions up to ply 7."""
    from connectx_toolkit.analysis.table import OutcomeTable

    table = OutcomeTable()
    settled = 0
    for entry in load_oracle_set(name, 0, 7):
        value = table.value(entry.position())
        if value is not None:
            assert value.outcome == {1: "win", 0: "draw", -1: "loss"}[sign(entry.best_score)], entry.moves
            assert value.low <= entry.best_score <= value.high
            settled += 1
    assert settled >= 40
    assert table.value(Position.from_moves([3] * 4 + [2] * 4, STANDARD)) is None  # past the table's ply
