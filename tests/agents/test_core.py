"""The game core: perft against known counts, win detection against Kaggle's own referee."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments.envs.connectx.connectx import is_win
from kaggle_environments.utils import Struct

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import act_timeout, move_deadline, overage
from connectx_toolkit.agents.core.lines import windows

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


# -- rules that search loops inline: the core method, and every copy agreeing with it ---------------

def grid_game(cfg: Config, rng: random.Random) -> tuple[list[int], list[list[int]]] | None:
    """Random moves on a plain grid (``grid[column]`` lists the marks from the bottom up) until a
    random length, a full board or a line; None if a line was completed."""
    grid: list[list[int]] = [[] for _ in range(cfg.columns)]
    moves: list[int] = []
    for _ in range(rng.randrange(cfg.cells + 1)):
        open_columns = [c for c in range(cfg.columns) if len(grid[c]) < cfg.rows]
        if not open_columns:
            break
        column = rng.choice(open_columns)
        mark = len(moves) % 2 + 1
        grid[column].append(mark)
        moves.append(column)
        if grid_completes_line(cfg, grid, column):
            return None
    return moves, grid


def grid_completes_line(cfg: Config, grid: list[list[int]], column: int) -> bool:
    """Does the top stone of ``column`` lie in ``inarow`` same-coloured cells in a row?"""
    row = len(grid[column]) - 1
    mark = grid[column][row]

    def same(c: int, r: int) -> bool:
        return 0 <= c < cfg.columns and 0 <= r < len(grid[c]) and grid[c][r] == mark

    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            step = 1
            while same(column + sign * step * dc, row + sign * step * dr):
                run += 1
                step += 1
        if run >= cfg.inarow:
            return True
    return False


def grid_wins_at_once(cfg: Config, grid: list[list[int]], mark: int) -> bool:
    """Can ``mark`` complete a line with one stone?"""
    for column in range(cfg.columns):
        if len(grid[column]) < cfg.rows:
            grid[column].append(mark)
            wins = grid_completes_line(cfg, grid, column)
            grid[column].pop()
            if wins:
                return True
    return False


@settings(max_examples=300, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_non_losing_moves_match_brute_force(cfg, rng):
    """A move is non-losing iff, on a plain grid, the opponent then has no stone that completes a line."""
    game = grid_game(cfg, rng)
    if game is None:
        return
    moves, grid = game
    mover, other = len(moves) % 2 + 1, 2 - len(moves) % 2
    if grid_wins_at_once(cfg, grid, mover):
        return  # the rule is for a player to move who cannot win at once
    expected = []
    for column in range(cfg.columns):
        if len(grid[column]) < cfg.rows:
            grid[column].append(mover)
            if not grid_wins_at_once(cfg, grid, other):
                expected.append(column)
            grid[column].pop()
    position = Position.from_moves(moves, cfg)
    assert position.non_losing_columns() == expected
    assert position.non_losing_moves() == sum(position.move_bit(c) for c in expected)


@settings(max_examples=200, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_mirror_is_an_involution_that_mirrors_the_moves(cfg, rng):
    moves = []
    position = Position(cfg)
    for _ in range(rng.randrange(cfg.cells + 1)):
        moves.append(rng.choice(position.legal_moves()))
        position.play(moves[-1])
    reflected = Position.from_moves([cfg.columns - 1 - c for c in moves], cfg)
    mirrored = position.mirrored()
    assert (mirrored.current, mirrored.mask, mirrored.moves) == (reflected.current, reflected.mask, reflected.moves)
    back = mirrored.mirrored()
    assert (back.current, back.mask, back.moves) == (position.current, position.mask, position.moves)
    assert position.canonical_key() == mirrored.canonical_key() == min(position.key(), reflected.key())


@settings(max_examples=100, deadline=None)
@given(configs, st.randoms(use_true_random=False))
def test_move_bit_is_where_the_stone_lands(cfg, rng):
    position = random_game_prefix(cfg, rng)
    for column in position.legal_moves():
        assert position.move_bit(column) == position.played(column).mask ^ position.mask
        assert position.geometry.move_bit(position.mask, column) == position.move_bit(column)


def quiet_positions(cfg: Config, count: int, seed: int, min_moves: int = 0) -> list[Position]:
    """Random positions (at least ``min_moves`` deep) where nobody has a line and the player to move
    cannot win at once."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        position = random_game_prefix(cfg, rng)
        if (position.moves >= min_moves and not position.last_player_won() and not position.is_full()
                and not position.immediate_wins()):
            found.append(position)
    return found


def recording(ordered, seen: list):
    """A move orderer that also records the candidates each search node hands it."""

    def record(current: int, mask: int, candidates: int) -> list[int]:
        seen.append((current, mask, candidates))
        return ordered(current, mask, candidates)

    return record


SEARCH_CONFIGS = [Config(), Config(5, 6, 4), Config(6, 5, 3)]


@pytest.mark.parametrize("cfg, min_moves", [(Config(), 28), (Config(5, 6, 4), 14), (Config(6, 5, 3), 2)])
def test_exact_solver_inlines_non_losing_moves(cfg, min_moves):
    from connectx_toolkit.agents.solver_engine.negamax import ExactSolver

    solver, seen = ExactSolver(cfg), []
    solver.ordered = recording(solver.ordered, seen)
    solver.negamax = solver._build()
    cells = cfg.rows * cfg.columns
    for position in quiet_positions(cfg, 20, seed=1, min_moves=min_moves):
        score = solver.negamax(position.current, position.mask, position.moves, -cells, cells)
        if not position.non_losing_moves():
            assert score == -((cells - position.moves) // 2)  # the copy's "no candidate" exit
        assert set(solver.non_losing_columns(position)) == set(position.non_losing_columns())
    assert len(seen) > 100
    for current, mask, candidates in seen:
        assert candidates == Position(cfg, current, mask).non_losing_moves()


def test_the_ntuple_search_inlines_non_losing_moves():
    from connectx_toolkit.agents.ntuple import WIN, LearnedSearch, shipped_network

    cfg = Config()
    search = LearnedSearch(shipped_network(), Position(cfg))
    positions = [p for p in quiet_positions(cfg, 300, seed=3, min_moves=4) if p.moves + 1 < cfg.cells]
    for position in positions:
        ruled, candidates, wins = search.rules(position.current, position.mask, position.moves)
        expected = position.non_losing_moves()
        assert candidates == expected
        # The copy's "no candidate" exit: a loss by the rules.
        assert ruled == (None if expected else -(WIN + cfg.cells - position.moves - 2))
        # What it hands the threat entries of an undecided node: the first player's winning cells, the second's.
        if ruled is None:
            first = position.current if position.moves % 2 == 0 else position.current ^ position.mask
            assert wins == tuple(position.geometry.winning_cells(stones, position.mask)
                                 for stones in (first, first ^ position.mask))
    assert any(not p.non_losing_moves() for p in positions) and any(
        p.non_losing_moves() != p.possible() for p in positions)


@pytest.mark.parametrize("cfg", SEARCH_CONFIGS)
def test_depth_search_inlines_non_losing_moves(cfg):
    from connectx_toolkit.agents.solver_engine.depth_search import WIN, DepthSearch

    search, seen = DepthSearch(cfg), []
    search.ordered = recording(search.ordered, seen)
    search.negamax = search._build()
    for position in quiet_positions(cfg, 20, seed=2, min_moves=4):
        value = search.negamax(position.current, position.mask, position.moves, 4, -WIN - 1, WIN + 1)
        if not position.non_losing_moves():
            assert value == position.moves + 1 - WIN  # the copy's "no candidate" exit
    assert len(seen) > 100
    for current, mask, candidates in seen:
        assert candidates == Position(cfg, current, mask).non_losing_moves()


@pytest.mark.parametrize("cfg", SEARCH_CONFIGS)
def test_bitboard_minimax_inlines_move_bit(cfg):
    """Every child the search expands is its parent plus Geometry.move_bit of a legal column."""
    from connectx_toolkit.agents.bitboard_minimax import Negamax

    expanded: list[tuple[int, int, int]] = []

    class Recording(Negamax):
        def value(self, current, mask, moves, depth, alpha, beta):
            expanded.append((current, mask, moves))
            return super().value(current, mask, moves, depth, alpha, beta)

    for position in quiet_positions(cfg, 10, seed=3):
        if position.opponent_threats():
            continue
        expanded.clear()
        Recording(position.geometry).value(position.current, position.mask, position.moves, 1, -1e18, 1e18)
        children = {(c, m) for c, m, n in expanded[1:]}
        assert children == {(position.opponent, position.mask | position.move_bit(c)) for c in position.legal_moves()}


def test_fast_solver_compiles_non_losing_moves():
    pytest.importorskip("numba")
    import numpy as np

    from connectx_toolkit.analysis.fast_solver import _non_losing_moves

    for position in quiet_positions(Config(), 200, seed=4):
        expected = position.non_losing_moves()
        assert int(_non_losing_moves(np.uint64(position.current), np.uint64(position.mask))) == expected
