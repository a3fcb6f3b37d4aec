"""The ntuple agent: its weights file, the network alone, the search over it, and the shipped weights."""

from __future__ import annotations

import random

import numpy as np
import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import ntuple
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import MoveClock

TUPLES = [[0, 6, 12, 18, 24, 30, 36, 1], [5, 11, 17, 23, 29, 35, 41, 4]]  # two 8-tuples: cells column * 6 + row


def small_network(seed: int = 1, threats: bool = False) -> ntuple.Network:
    rng = np.random.default_rng(seed)
    tables = rng.normal(0, 0.1, (len(TUPLES), 4 ** 8))
    threat_tables = rng.normal(0, 0.3, ntuple.THREAT_SHAPE) if threats else None
    return ntuple.read_network(ntuple.write_network(TUPLES, tables, {"made": "by a test"}, threats=threat_tables))


def test_the_weights_file_round_trips_as_float16_and_the_same_network_gives_the_same_bytes():
    tables = np.random.default_rng(2).normal(0, 0.1, (len(TUPLES), 4 ** 8))
    blob = ntuple.write_network(TUPLES, tables, {"episodes": 5})
    assert blob == ntuple.write_network(TUPLES, tables, {"episodes": 5})
    network = ntuple.read_network(blob)
    assert network.training == {"episodes": 5}
    assert network.slot_cells.shape == (4, 8)  # the tuples, then their mirror images
    assert network.slot_cells[2].tolist() == [ntuple.mirror_cell(c) for c in TUPLES[0]]
    assert np.array_equal(network.tables, tables.astype(np.float16).astype(np.float32).reshape(-1))


@pytest.mark.parametrize("blob", [b"", b"not a zip", ntuple.npz_bytes({"tuples": np.zeros((2, 8), dtype=np.int8)})])
def test_what_is_not_a_weights_file_is_a_value_error(blob):
    with pytest.raises(ValueError, match="not an n-tuple weights file"):
        ntuple.read_network(blob)


def test_the_value_reads_each_tuple_on_the_board_and_on_its_mirror_image():
    network = small_network()
    rng = random.Random(3)
    for _ in range(20):
        position = Position.from_moves(rng.sample(range(7), 3) + rng.sample(range(7), 3))
        value = network.values(ntuple.cell_states(position)[None, :])[0]
        assert np.isclose(value, network.values(ntuple.cell_states(position.mirrored())[None, :])[0])
        states = ntuple.cell_states(position)
        total = sum(float(network.tables[network.slot_offsets[s] + sum(int(states[c]) * 4 ** j
                                                                       for j, c in enumerate(network.slot_cells[s]))])
                    for s in range(4))
        assert np.isclose(value, np.tanh(total), atol=1e-6)


def test_a_network_with_threat_tables_adds_each_columns_entry_to_the_sum():
    network, without = small_network(threats=True), small_network()
    assert network.threats is not None and without.threats is None
    assert np.array_equal(network.tables, without.tables)
    rng = random.Random(4)
    for stones in (0, 5, 12, 19, 26, 33):
        position = random_position(rng, stones)
        first = position.current if position.moves % 2 == 0 else position.current ^ position.mask
        entries = ntuple.threat_entries(first, position.mask, position.moves)
        states = ntuple.cell_states(position)[None, :]
        expected = np.arctanh(without.values(states)[0]) + sum(float(network.threats[e]) for e in entries)
        assert np.isclose(network.values(states)[0], np.tanh(expected), atol=1e-6)
    with pytest.raises(ValueError, match="threat tables"):
        ntuple.network_from(TUPLES, np.zeros((len(TUPLES), 4 ** 8)), {}, threats=np.zeros((2, 4, 100)))


def test_a_network_with_a_set_of_tables_for_each_side_to_move_reads_the_set_of_the_stones_parity():
    even_tables = np.random.default_rng(4).normal(0, 0.1, (len(TUPLES), 4 ** 8))
    odd_tables = np.random.default_rng(5).normal(0, 0.1, (len(TUPLES), 4 ** 8))
    both = ntuple.read_network(ntuple.write_network(TUPLES, np.concatenate([even_tables, odd_tables]), {}))
    even = ntuple.read_network(ntuple.write_network(TUPLES, even_tables, {}))
    odd = ntuple.read_network(ntuple.write_network(TUPLES, odd_tables, {}))
    assert not even.set_shifts.any() and (both.set_shifts == np.arange(43) % 2 * len(TUPLES) * 4 ** 8).all()
    positions = [Position.from_moves(moves) for moves in ([], [3], [3, 3], [0, 1, 2], [6, 5, 4, 3, 2, 1])]
    states = np.array([ntuple.cell_states(position) for position in positions])
    expected = [(odd if position.moves % 2 else even).values(states[k:k + 1])[0]
                for k, position in enumerate(positions)]
    assert np.allclose(both.values(states), expected)
    assert not np.allclose(even.values(states), expected)


def test_a_network_with_stages_reads_the_set_its_count_of_stones_names_in_the_file():
    rng = np.random.default_rng(6)
    parts = [rng.normal(0, 0.1, (len(TUPLES), 4 ** 8)) for _ in range(4)]
    sets = [2 * (n // 22) + n % 2 for n in range(43)]  # two stages (0-21, 22-42 stones), a set for each side in each
    staged = ntuple.read_network(ntuple.write_network(TUPLES, np.concatenate(parts), {}, sets))
    alone = [ntuple.read_network(ntuple.write_network(TUPLES, part, {})) for part in parts]
    moves = [3, 3, 2, 4, 4, 2, 1, 5, 5, 1, 0, 6, 6, 0, 3, 3, 2, 4, 4, 2, 1, 5, 5, 1]
    positions = [Position.from_moves(moves[:n]) for n in (0, 1, 20, 21, 22, 23, 24)]
    states = np.array([ntuple.cell_states(position) for position in positions])
    expected = [alone[sets[position.moves]].values(states[k:k + 1])[0] for k, position in enumerate(positions)]
    assert np.allclose(staged.values(states), expected)
    for wrong in (sets[:-1], [0] * 43, [s + 1 for s in sets]):  # too short; a set never read; a fifth set
        with pytest.raises(ValueError, match="not an n-tuple weights file"):
            ntuple.read_network(ntuple.write_network(TUPLES, np.concatenate(parts), {}, wrong))


@pytest.mark.parametrize("rows", [1, 3])
def test_tables_neither_one_nor_two_a_tuple_are_not_a_weights_file(rows):
    tables = np.zeros((rows, 4 ** 8))
    with pytest.raises(ValueError, match="not an n-tuple weights file"):
        ntuple.read_network(ntuple.write_network(TUPLES, tables, {}))


def test_cell_states_name_the_first_player_the_second_and_the_playable_cells():
    position = Position.from_moves([3, 3, 4])  # first: d1 and e1; second: d2
    states = ntuple.cell_states(position)
    assert states[3 * 6 + 0] == ntuple.FIRST and states[4 * 6 + 0] == ntuple.FIRST
    assert states[3 * 6 + 1] == ntuple.SECOND
    assert states[3 * 6 + 2] == ntuple.PLAYABLE and states[4 * 6 + 1] == ntuple.PLAYABLE
    assert states[0] == ntuple.PLAYABLE and states[1] == ntuple.EMPTY and states[3 * 6 + 3] == ntuple.EMPTY
    assert (ntuple.cell_states(Position.from_moves([3, 3, 4]).mirrored())[[18, 19, 12]] == [1, 2, 1]).all()


def test_the_network_alone_takes_a_win_blocks_one_and_else_plays_its_best_value():
    network = small_network()
    assert ntuple.choose(Position.from_moves([0, 1, 0, 1, 0]), network) == 0  # block the three in column 0
    assert ntuple.choose(Position.from_moves([0, 1, 0, 1, 0, 1]), network) == 0  # win, rather than block column 1
    position = Position.from_moves([3, 2])
    moves = position.legal_moves()
    values = ntuple.move_values(position, moves, network)
    chosen = ntuple.choose(position, network)
    assert values[moves.index(chosen)] == max(values)


def test_the_search_finds_a_win_two_moves_deep_that_the_network_alone_need_not():
    # First to move: d1 d2 ... an open three on the bottom row (b1 c1 d1 with a1 and e1 empty) wins next move.
    position = Position.from_moves([2, 2, 3, 3])
    assert ntuple.search(position, small_network(), MoveClock(5.0)) in (1, 4)


def test_the_shipped_weights_load_and_were_trained_by_self_play():
    network = ntuple.shipped_network()
    assert network.slot_cells.shape == (140, 8)
    assert network.training["learner"] == "ntuple" and network.training["episodes"] > 0
    assert np.count_nonzero(network.tables) > 10_000


@pytest.mark.parametrize("shape", [(6, 7, 4), (5, 6, 3), (1, 1, 1)])
def test_the_agent_plays_legal_plain_ints(shape):
    rows, columns, inarow = shape
    config = Config(rows, columns, inarow)
    rng = random.Random(1)
    position = Position(config)
    while not position.is_full():
        mark = 1 if position.moves % 2 == 0 else 2
        move = ntuple.agent(Struct(board=position.to_board(), mark=mark, remainingOverageTime=60),
                            Struct(rows=rows, columns=columns, inarow=inarow, actTimeout=0.2))
        assert type(move) is int and position.can_play(move)
        won = position.is_winning_move(move)
        position.play(move)
        if won or position.is_full():
            break
        position.play(rng.choice(position.legal_moves()))
        if position.last_player_won():
            break


def test_the_built_submission_is_one_file_under_10_mb_that_plays_with_the_shipped_weights():
    from connectx_toolkit.cli import build_submission

    text, _, resources = build_submission.build_text("ntuple")
    assert "ntuple_6x7.npz" in resources
    assert len(text.encode("utf-8")) <= 10 * 1024 * 1024
    namespace: dict = {}
    exec(compile(text, "submission.py", "exec"), namespace)
    embedded = namespace["_module"]("agents.ntuple").shipped_network()
    assert np.array_equal(embedded.tables, ntuple.shipped_network().tables)
    board = Position.from_string("4444").to_board()
    move = namespace["agent"](Struct(board=board, mark=1, remainingOverageTime=60),
                              Struct(rows=6, columns=7, inarow=4, actTimeout=0.2))
    assert type(move) is int and 0 <= move < 7


def reference_value(position: Position, network: ntuple.Network, depth: int) -> float:
    """``LearnedSearch``'s value of a node written out as plain minimax over the core's ``Position``, every child
    searched, the learned value read from the cell states afresh."""
    cells = position.config.cells
    if position.immediate_wins():
        return ntuple.WIN + cells - position.moves - 1
    if position.moves + 1 >= cells:
        return 0.0
    moves = position.non_losing_columns()
    if not moves:
        return -(ntuple.WIN + cells - position.moves - 2)
    if depth == 0:
        first_value = float(network.values(ntuple.cell_states(position)[None, :])[0])
        return first_value if position.moves % 2 == 0 else -first_value
    return max(-reference_value(position.played(c), network, depth - 1) for c in moves)


def random_position(rng: random.Random, stones: int) -> Position:
    position = Position()
    while position.moves < stones:
        safe = [c for c in position.legal_moves() if not position.is_winning_move(c)]
        if not safe or position.moves + 1 >= position.config.cells:
            break
        position.play(rng.choice(safe))
    return position


@pytest.mark.parametrize("network", [small_network(), small_network(threats=True), ntuple.shipped_network()],
                         ids=["random", "random-threats", "shipped"])
def test_the_search_equals_plain_minimax_over_the_same_rules_and_values_at_every_depth(network):
    rng = random.Random(7)
    for stones in (2, 9, 16, 23, 30, 36):
        position = random_position(rng, stones)
        moves = ntuple.candidate_moves(position)
        searcher = ntuple.LearnedSearch(network, position)
        for depth in (1, 2, 3):  # one searcher for all depths: its table must not carry a value across depths
            best, value = searcher.root(position, moves, depth)
            expected = {c: -reference_value(position.played(c), network, depth - 1)
                        if not position.is_winning_move(c) else ntuple.WIN + 41 - position.moves for c in moves}
            top = max(expected.values())
            assert value == pytest.approx(top, abs=1e-9), (position, depth)
            assert sorted(best) == sorted(c for c in moves if abs(expected[c] - top) <= 1e-9), (position, depth)


def test_a_move_carries_the_slot_indices_as_reading_the_new_position_afresh_does():
    network = ntuple.shipped_network()
    rng = random.Random(8)
    for stones in range(0, 40, 3):
        position = random_position(rng, stones)
        searcher = ntuple.LearnedSearch(network, position)
        for column in position.legal_moves():
            moved = network.indices(ntuple.cell_states(position)) + network.move_deltas[
                position.moves % 2, searcher.cell(position.mask, column)]
            assert (moved == network.indices(ntuple.cell_states(position.played(column)))).all()
