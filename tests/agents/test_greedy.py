import random

from kaggle_environments.utils import Struct

from connectx_toolkit.agents import greedy
from connectx_toolkit.agents.core import Config, Position


def test_takes_a_win():
    pos = Position.from_string("121212")  # X has three in column 1, O three in column 2
    assert greedy.choose(pos) == 0


def test_blocks_the_opponent():
    pos = Position.from_string("12131")  # O to move; X has three in column 1
    assert greedy.choose(pos) == 0


def test_prefers_centre_and_breaks_ties_randomly():
    assert greedy.choose(Position()) == 3
    even = Position(Config(6, 6, 4))
    picks = {greedy.choose(even, random.Random(seed)) for seed in range(20)}
    assert picks == {2, 3}


def test_agent_returns_plain_int_on_odd_configs():
    for rows, columns, inarow in [(6, 7, 4), (1, 1, 1), (3, 9, 5), (10, 12, 5)]:
        board = [0] * (rows * columns)
        move = greedy.agent(Struct(board=board, mark=1), Struct(rows=rows, columns=columns, inarow=inarow))
        assert type(move) is int and 0 <= move < columns
