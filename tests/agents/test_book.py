"""The opening book: exact lookups (mirrors included), full coverage of the agent's tree, best moves."""

import random

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.solver_engine.opening_book import OpeningBook, book_move, encode_book, load_book, mix
from tests.helpers import shared_oracle
from tools.oracle import ORACLE_SETS, load_oracle_set

STANDARD = Config(6, 7, 4)


def reflected(moves: str) -> Position:
    """The position after ``moves`` (Pons' notation) played in the mirrored columns."""
    return Position.from_moves([7 - int(ch) for ch in moves], STANDARD)


def test_mix_is_a_bijection_on_a_sample():
    rng = random.Random(3)
    keys = {rng.getrandbits(49) for _ in range(20000)} | {0, 1, (1 << 49) - 1}
    assert len({mix(k) for k in keys}) == len(keys)
    assert all(0 <= mix(k) < 1 << 49 for k in keys)


def test_round_trip_with_mirrors_and_misses():
    entries = load_oracle_set("strong") + load_oracle_set("random")
    stored = {}
    for entry in entries[::2]:
        position = entry.position()
        key = position.canonical_key()
        move = entry.best_moves[-1]
        stored[key] = 6 - move if key != position.key() else move
    book = OpeningBook(encode_book(stored, {"depth": 0}))
    assert len(book) == len(stored) == book.metadata["entries"]
    hits = 0
    for entry in entries:
        position, reflection = entry.position(), reflected(entry.moves)
        move = book.move(position)
        if position.canonical_key() in stored:
            hits += 1
            assert move in entry.best_moves, entry.moves
            if reflection.key() != position.key():  # a symmetric position is its own mirror
                assert book.move(reflection) == 6 - move
        else:
            assert move is None
    assert hits >= len(entries) // 2


def test_encode_rejects_bad_entries():
    with pytest.raises(ValueError):
        encode_book({5: 7}, {})
    with pytest.raises(ValueError):
        encode_book({1 << 49: 3}, {})
    with pytest.raises(ValueError):
        OpeningBook(b"nope")


def test_the_shipped_book_is_valid_and_small():
    from connectx_toolkit.agents.core.resources import load_resource

    data = load_resource("connect4_book.bin")
    book = OpeningBook(data)  # its decode time: bench/book_decode.py
    assert len(book) == book.metadata["entries"]
    assert len(data) <= 4 * 2**20


def test_decoding_the_shipped_book_needs_little_memory():
    import tracemalloc

    from connectx_toolkit.agents.core.resources import load_resource

    data = load_resource("connect4_book.bin")
    tracemalloc.start()
    try:
        book = OpeningBook(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(book) == book.metadata["entries"]
    assert peak < 16 * 2**20, f"{peak / 2**20:.1f} MB"  # a million bucket starts as int objects: ~50 MB


def test_other_configurations_have_no_book():
    assert book_move(Position(Config(6, 8, 4))) is None
    assert book_move(Position(Config(6, 7, 5))) is None
    assert book_move(Position(Config(7, 7, 4))) is None


BOOK = load_book()
needs_book = pytest.mark.skipif(BOOK is None, reason="no book built")


def agent_tree(seat: int, depth: int):
    """Positions the agent (seat 0 moves first) must answer up to ``depth`` when following the book."""
    frontier = [Position(STANDARD)]
    for ply in range(depth + 1):
        grown = []
        for position in frontier:
            if ply % 2 == seat:
                move = book_move(position)
                yield position, move
                if move is None or position.is_winning_move(move) or ply == depth:
                    continue
                grown.append(position.played(move))
            elif ply < depth:
                grown += [position.played(c) for c in position.legal_moves() if not position.is_winning_move(c)]
        frontier = list({p.key(): p for p in grown}.values())


@needs_book
@pytest.mark.parametrize("seat", [0, 1])
def test_book_covers_the_agents_whole_tree(seat):
    depth = BOOK.metadata["depth"]
    count = 0
    for position, move in agent_tree(seat, depth):
        assert move is not None and position.can_play(move), str(position)
        count += 1
    assert count >= 1 or depth < 0  # depth -1: the empty book (tools/make_book.py --depth -1)


@needs_book
def test_book_covers_every_position_up_to_all_plies():
    layer = [Position(STANDARD)]
    for ply in range(BOOK.metadata["all_plies"] + 1):
        for position in layer:
            assert book_move(position) is not None, str(position)
        layer = list({c.key(): c for p in layer for c in map(p.played, p.legal_moves())
                      if not c.last_player_won()}.values())


@needs_book
@pytest.mark.parametrize("name", ORACLE_SETS)
def test_book_moves_have_the_exact_best_score(name):
    for entry in load_oracle_set(name):
        position = entry.position()
        for candidate in (position, reflected(entry.moves)):
            move = book_move(candidate)
            if move is None:
                continue
            if candidate is not position:
                move = 6 - move
            assert entry.scores[move] == entry.best_score, entry.moves


@needs_book
def test_book_moves_agree_with_the_independent_solver():
    """Every book move in the agent's trees (a sample when large) has bitbully's best score."""
    pytest.importorskip("bitbully")
    oracle = shared_oracle()
    depth = min(BOOK.metadata["depth"], 9)
    positions = [p for seat in (0, 1) for p, _ in agent_tree(seat, depth)]
    for position in random.Random(5).sample(positions, min(150, len(positions))):
        scores = oracle.position_scores(position)
        assert scores[book_move(position)] == max(scores.values()), str(position)


@pytest.fixture(scope="module")
def sub_book(tmp_path_factory):
    """A book built by tools/make_book.py from a ply-24 position, and the command's pieces."""
    pytest.importorskip("numba")
    from tools import make_book

    root = load_oracle_set("strong", 24, 24)[3].moves
    folder = tmp_path_factory.mktemp("book")
    args = ["--root", root, "--depth", "30", "--all-plies", "26", "--no-progress",
            "--out", str(folder / "a.bin"), "--checkpoint", str(folder / "a.txt")]
    assert make_book.main(args) == 0
    return make_book, root, folder, args


def test_builder_covers_the_trees_with_best_moves(sub_book):
    from connectx_toolkit.analysis.fast_solver import Solver

    _, root, folder, _ = sub_book
    book = OpeningBook((folder / "a.bin").read_bytes())
    assert book.metadata["depth"] == 30 and "root_key" in book.metadata
    solver = Solver()
    start = Position.from_string(root, STANDARD)
    for seat in (0, 1):
        frontier = [start]
        for ply in range(24, 31):
            grown = []
            for position in frontier:
                if ply % 2 == seat:
                    move = book.move(position)
                    assert move is not None and position.can_play(move)
                    current, mask = position.current, position.mask
                    scores = solver.score_moves_bitboards(current, mask, position.moves)
                    assert scores[move] == max(s for s in scores if s is not None)
                    if not position.is_winning_move(move):
                        grown.append(position.played(move))
                else:
                    grown += [position.played(c) for c in position.legal_moves() if not position.is_winning_move(c)]
            frontier = grown


def test_builder_is_deterministic_and_resumable(sub_book):
    make_book, _, folder, args = sub_book
    lines = (folder / "a.txt").read_text().splitlines()
    assert len(lines) > 10
    (folder / "b.txt").write_text("\n".join(lines[: len(lines) // 2]) + "\n12")  # cut short by a kill
    resumed = [a.replace("a.bin", "b.bin").replace("a.txt", "b.txt") for a in args] + ["--resume"]
    assert make_book.main(resumed) == 0
    assert (folder / "b.bin").read_bytes() == (folder / "a.bin").read_bytes()
    assert sorted((folder / "b.txt").read_text().split("\n")) == sorted(lines + ["12", ""])
    parallel = [a.replace("a.bin", "c.bin").replace("a.txt", "c.txt") for a in args] + ["--jobs", "2"]
    assert make_book.main(parallel) == 0
    assert (folder / "c.bin").read_bytes() == (folder / "a.bin").read_bytes()


@pytest.mark.parametrize("bad", [["--root", "49"], ["--root", "4444444"], ["--depth", "3", "--all-plies", "5"],
                                 ["--root", "444444", "--depth", "3"], ["--jobs", "0"]])
def test_builder_rejects_bad_arguments(sub_book, bad, capsys, tmp_path):
    make_book = sub_book[0]
    assert make_book.main(bad + ["--out", str(tmp_path / "x.bin"), "--checkpoint", str(tmp_path / "x.txt")]) == 2
    assert "make_book:" in capsys.readouterr().err
    assert not (tmp_path / "x.bin").exists()


def test_builder_refuses_to_overwrite_a_checkpoint(sub_book, capsys):
    make_book, _, folder, args = sub_book
    assert make_book.main(args) == 2
    assert "--resume" in capsys.readouterr().err
