"""The game core: perft against known counts, win detection against Kaggle's own referee."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments.envs.connectx.connectx import is_win
from kaggle_environments.utils import Struct

from agents.core import Config, Position
from agents.core.clock import act_timeout, move_deadline, overage
from agents.core.lines import windows

PERFT = [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275]  # CONNECTX.md, plies 0..8


def distinct_positions(max_ply: int) -> list[int]:
    """Distinct positions per ply, games already won not extended (as in CONNECTX.md)."""
    layer = {Position().key(): Position()}
    counts = [1]
    for _ in range(max_ply):
        nxt = {}
        for pos in layer.values():
            if pos.last_player_won():
                continue
            for c in pos.legal_moves():
                child = pos.played(c)
                nxt.setdefault(child.key(), child)
        layer = nxt
        counts.append(len(layer))
    return counts


def test_perft_small():
    assert distinct_positions(6) == PERFT[:7]


def test_perft_1_to_8():
    layer = {Position().key(): (0, 0)}
    cfg = Config()
    counts = []
    for ply in range(8):
        nxt = {}
        for current, mask in layer.values():
            pos = Position(cfg, current, mask, ply)
            if pos.last_player_won():
                continue
            for c in pos.legal_moves():
                child = pos.played(c)
                nxt[child.key()] = (child.current, child.mask)
        layer = nxt
        counts.append(len(layer))
    assert counts == PERFT[1:]


configs = st.builds(
    Config,
    rows=st.integers(1, 8),
    columns=st.integers(1, 9),
    inarow=st.integers(1, 6),
)


@settings(max_examples=300, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_win_detection_agrees_with_kaggle(cfg, rng):
    """Play random games; after every move our win test must equal Kaggle's ``is_win``."""
    kcfg = Struct(rows=cfg.rows, columns=cfg.columns, inarow=cfg.inarow)
    board = [0] * cfg.cells
    pos = Position(cfg)
    mark = 1
    while pos.legal_moves():
        column = rng.choice(pos.legal_moves())
        expected_winning_move = pos.is_winning_move(column)
        row = max(r for r in range(cfg.rows) if board[column + r * cfg.columns] == 0)
        board[column + row * cfg.columns] = mark
        pos.play(column)
        kaggle_says = is_win(board, column, mark, kcfg)
        assert pos.last_player_won() == kaggle_says == expected_winning_move
        assert pos.to_board(3 - mark) == board
        assert Position.from_board(board, 3 - mark, cfg).key() == pos.key()
        if kaggle_says:
            break
        mark = 3 - mark


def random_game_prefix(cfg: Config, rng: random.Random) -> Position:
    """A random number of random moves from the empty board, stopping early at a win or a full board."""
    pos = Position(cfg)
    for _ in range(rng.randrange(cfg.cells + 1)):
        moves = pos.legal_moves()
        if not moves or pos.last_player_won():
            break
        pos.play(rng.choice(moves))
    return pos


@settings(max_examples=150, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_winning_cells_match_brute_force(cfg, rng):
    pos = random_game_prefix(cfg, rng)
    if pos.last_player_won():
        return
    expected = [c for c in pos.legal_moves() if pos.is_winning_move(c)]
    assert pos.immediate_wins() == expected
    # The opponent's threats are the columns that would win for them, tested by swapping sides.
    swapped = Position(cfg, pos.opponent, pos.mask, pos.moves)
    assert pos.opponent_threats() == [c for c in swapped.legal_moves() if swapped.is_winning_move(c)]


def brute_force_winning_cells(cfg: Config, stones: int, mask: int) -> int:
    expected = 0
    for w in windows(cfg):
        for cell in (1 << i for i in range(w.bit_length()) if w >> i & 1):
            if not cell & mask and (w & ~cell) & stones == w & ~cell:
                expected |= cell
    return expected


@settings(max_examples=200, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_winning_cells_match_every_window(cfg, rng):
    """The shift formulas (Pons' for k = 4, growing runs otherwise) against a brute force: an empty
    cell completes a line iff some window through it holds the player's stones everywhere else."""
    pos = random_game_prefix(cfg, rng)
    for stones in (pos.current, pos.opponent):
        assert pos.geometry.winning_cells(stones, pos.mask) == brute_force_winning_cells(cfg, stones, pos.mask)


@pytest.mark.parametrize("cfg", [Config(), Config(10, 12, 4), Config(5, 9, 4)])
def test_four_in_a_row_shifts_on_dense_boards(cfg):
    """Pons' k = 4 formulas, one line per direction and gap: columns filled to random heights with
    stones of random owners (no game needed) make every pattern common, which random games do not."""
    rng = random.Random(7)
    g = Position(cfg).geometry
    for _ in range(300):
        mask = stones = 0
        for column in range(cfg.columns):
            for row in range(rng.randrange(cfg.rows + 1)):
                mask |= g.bit(column, row)
                if rng.random() < 0.5:
                    stones |= g.bit(column, row)
        assert g.winning_cells(stones, mask) == brute_force_winning_cells(cfg, stones, mask)


def test_windows_count_standard():
    # 6x7, 4 in a row: 24 horizontal + 21 vertical + 12 + 12 diagonal = 69 windows.
    assert len(windows(Config())) == 69
    assert all(w.bit_count() == 4 for w in windows(Config()))


def test_windows_single_cell():
    assert len(windows(Config(3, 4, 1))) == 12


def test_from_kaggle_accepts_struct_and_dict():
    board = [0] * 42
    board[41] = 1  # bottom-right cell
    a = Position.from_kaggle(Struct(board=board, mark=2), Struct(rows=6, columns=7, inarow=4))
    b = Position.from_kaggle({"board": board, "mark": 2}, {"rows": 6, "columns": 7, "inarow": 4})
    assert a.key() == b.key() and a.moves == 1
    assert a.opponent == 1 << (6 * 7)  # column 6, bottom row
    assert a.legal_moves() == list(range(7))


def test_from_string_and_illegal_moves():
    pos = Position.from_string("4444")
    assert pos.moves == 4
    with pytest.raises(ValueError):
        Position.from_string("4444444")
    with pytest.raises(ValueError):
        Config(0, 7, 4)


def test_vertical_line_does_not_wrap_between_columns():
    cfg = Config(6, 7, 4)
    # Three at the top of column 0 and one at the bottom of column 1 are contiguous bits
    # only across the sentinel; that must not count as a line.
    g = Position(cfg).geometry
    stones = g.bit(0, 3) | g.bit(0, 4) | g.bit(0, 5) | g.bit(1, 0)
    assert not g.has_line(stones)
    assert g.has_line(g.bit(0, 2) | stones)


def test_clock_reads_struct_and_defaults():
    assert act_timeout(Struct(actTimeout=2)) == 2
    assert act_timeout({}) == 2
    assert overage(Struct(remainingOverageTime=60)) == 60
    d = move_deadline({}, {"actTimeout": 2}, share=0.25)
    assert 0 < d.remaining() <= 0.5


def test_random_games_end_correctly():
    rng = random.Random(1)
    for _ in range(50):
        pos = Position()
        while not pos.last_player_won() and not pos.is_full():
            pos.play(rng.choice(pos.legal_moves()))
        assert pos.last_player_won() or pos.is_full()
