"""The exact solver's parts: threat cells, move ordering, transposition bounds, exact scores."""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.position import geometry
from connectx_toolkit.agents.solver_engine.move_order import move_orderer
from connectx_toolkit.agents.solver_engine.negamax import ExactSolver
from connectx_toolkit.agents.solver_engine.transposition import TranspositionTable
from tools.oracle import Oracle
from tools.sample_positions import quiet_game


def random_position(config: Config, plies: int, rng: random.Random) -> Position | None:
    """``plies`` random moves that never complete a line; None if the game could not go on that long."""
    moves, position = quiet_game(rng, plies, config)
    return position if len(moves) == plies else None


def random_positions(config: Config, plies: int, count: int, seed: int) -> list[Position]:
    rng, found = random.Random(seed), []
    while len(found) < count:
        position = random_position(config, plies, rng)
        if position is not None and not position.immediate_wins():
            found.append(position)
    return found


@pytest.mark.parametrize("config", [Config(), Config(10, 12, 4), Config(6, 7, 5), Config(10, 12, 5),
                                    Config(5, 5, 1), Config(4, 9, 2), Config(3, 3, 6)])
def test_move_order_is_threat_count_then_centre(config):
    g = geometry(config)
    winning = g.winning_cells
    ordered = move_orderer(g, winning)
    rng = random.Random(2)
    for _ in range(100):
        position = random_position(config, rng.randrange(config.cells // 2), rng)
        if position is None:
            continue
        moves = [position.move_bit(c) for c in position.legal_moves()]
        expected = sorted(moves, key=lambda m: (
            -winning(position.current | m, position.mask).bit_count(),
            g.center_order.index((m.bit_length() - 1) // g.height)))
        assert ordered(position.current, position.mask, sum(moves)) == expected


def test_transposition_bounds_round_trip():
    table = TranspositionTable(-22, 22)
    for value in range(-22, 23):
        table.store_upper(7, value)
        assert table.bounds(7) == (None, value)
        table.store_lower(7, value)
        assert table.bounds(7) == (value, None)
    assert table.bounds(8) == (None, None)


@lru_cache(maxsize=None)
def brute_force_score(config: Config, current: int, mask: int, moves: int) -> int:
    """Pons-scale score by plain minimax over the core's rules: no pruning, no ordering, no table."""
    position = Position(config, current, mask, moves)
    cells = config.cells
    if position.is_full():
        return 0
    best = None
    for column in position.legal_moves():
        if position.is_winning_move(column):
            return (cells + 1 - moves) // 2
        child = position.played(column)
        score = -brute_force_score(config, child.current, child.mask, child.moves)
        best = score if best is None else max(best, score)
    return best


@pytest.mark.parametrize("config,plies", [(Config(4, 4, 3), 0), (Config(4, 5, 3), 3), (Config(3, 5, 3), 0),
                                          (Config(4, 4, 4), 2), (Config(3, 3, 2), 0), (Config(2, 2, 5), 0)])
def test_pruning_and_ordering_keep_exact_scores_on_small_boards(config, plies):
    rng = random.Random(3)
    for _ in range(12):
        position = random_position(config, plies + rng.randrange(4), rng)
        if position is None or position.is_full():
            continue
        expected = brute_force_score(config, position.current, position.mask, position.moves)
        assert ExactSolver(config).solve(position) == expected, str(position)
        if not position.immediate_wins() and ExactSolver(config).non_losing_columns(position):
            analysis = ExactSolver(config).analyse(position)
            assert analysis.finished and analysis.exact and analysis.low == expected
            child = position.played(analysis.best)
            assert -brute_force_score(config, child.current, child.mask, child.moves) == expected


def bitbully_scores(history: list[int]) -> dict[int, int]:
    return Oracle(book=False).scores(history)


@pytest.mark.parametrize("plies,count", [(22, 8), (26, 10), (32, 10)])
def test_exact_scores_and_best_moves_match_bitbully(plies, count):
    rng = random.Random(plies)
    checked = 0
    while checked < count:
        history, position = quiet_game(rng, plies)
        if len(history) < plies or position.immediate_wins():
            continue
        solver = ExactSolver(Config())
        if not solver.non_losing_columns(position):
            continue
        reference = bitbully_scores(history)
        best = max(reference.values())
        assert solver.solve(position) == best
        analysis = ExactSolver(Config()).analyse(position)
        assert analysis.finished and analysis.low == analysis.high == best
        assert reference[analysis.best] == best
        checked += 1


def test_analysis_past_its_deadline_proves_nothing_false():
    position = Position.from_moves([3, 3, 2, 4])
    analysis = ExactSolver(Config()).analyse(position, deadline=0.0)
    assert not analysis.finished
    assert analysis.best is None or analysis.low <= analysis.high
    assert set(analysis.plausible()) <= set(range(7))


@pytest.mark.parametrize("config", [Config(), Config(10, 12, 4), Config(5, 5, 3), Config(10, 12, 5), Config(4, 4, 2)])
def test_window_counts_match_the_core_windows(config, monkeypatch):
    from connectx_toolkit.agents.core.lines import windows
    from connectx_toolkit.agents.solver_engine import heuristic

    monkeypatch.setattr(heuristic, "THREAT", 0)
    monkeypatch.setattr(heuristic, "PARITY_THREAT", 0)
    g = geometry(config)
    evaluate = heuristic.evaluation(g, g.winning_cells)
    weights = [0] + [4 ** j for j in range(config.inarow - 1)]

    def counted(own: int, other: int) -> int:
        return sum(weights[(w & own).bit_count()] for w in windows(config)
                   if not w & other and 0 < (w & own).bit_count() < config.inarow)

    rng = random.Random(4)
    for _ in range(60):
        position = random_position(config, rng.randrange(config.cells), rng)
        if position is None:
            continue
        me, them = position.current, position.opponent
        assert evaluate(me, position.mask, position.moves) == counted(me, them) - counted(them, me)


@pytest.mark.parametrize("config", [Config(4, 4, 3), Config(3, 5, 3), Config(4, 4, 4)])
def test_depth_search_to_the_end_keeps_the_outcome(config):
    """With time to search every ply, the heuristic search's move has the best outcome class."""
    from connectx_toolkit.agents.solver_engine.depth_search import DepthSearch

    rng = random.Random(6)
    for _ in range(10):
        position = random_position(config, rng.randrange(1, 6), rng)
        if position is None or position.immediate_wins():
            continue
        columns = ExactSolver(config).non_losing_columns(position)
        if not columns:
            continue
        move, _ = DepthSearch(config).best_move(position, columns, float("inf"))
        child = position.played(move)
        chosen = -brute_force_score(config, child.current, child.mask, child.moves)
        best = brute_force_score(config, position.current, position.mask, position.moves)
        assert (chosen > 0) - (chosen < 0) == (best > 0) - (best < 0), str(position)


@pytest.mark.parametrize("rows,columns", [(6, 7), (5, 6), (7, 8), (4, 5), (6, 5), (9, 4)])
def test_parity_rows_are_those_the_first_player_gets_when_one_column_is_left(rows, columns):
    """Fill every column but the last; the first player moves on even plies, so owns those cells."""
    from connectx_toolkit.agents.solver_engine.heuristic import good_rows_of_first_player

    position = Position(Config(rows, columns, 4))
    for column in range(columns - 1):
        for _ in range(rows):
            position.play(column)
    first_player_rows = []
    for row in range(rows):
        if position.moves % 2 == 0:
            first_player_rows.append(row)
        position.play(columns - 1)
    assert list(good_rows_of_first_player(rows, columns)) == first_player_rows
