"""Alpha-beta over the game interface: minimax's values with far fewer nodes, then a real agent."""

import random

import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.agents import alphabeta
from connectx_toolkit.agents.alphabeta import ConnectX, alphabeta_search, minimax_search
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.agents.core.clock import MoveClock
from connectx_toolkit.agents.heuristic_search.line_heuristic import line_heuristic
from tools.sample_positions import undecided_position


class Nim:
    """Take 1-3 sticks; whoever takes the last stick wins. A second game, to show the search is generic."""

    def to_move(self, state):
        return state[1]

    def actions(self, state):
        return [n for n in (1, 2, 3) if n <= state[0]]

    def result(self, state, action):
        return (state[0] - action, 1 - state[1])

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state, player):
        return 1.0 if state[1] != player else -1.0  # the player who just moved took the last stick

    def evaluate(self, state, player):
        return 0.0


@pytest.mark.parametrize("cfg,depth", [(Config(), 4), (Config(), 5), (Config(10, 12, 5), 3)])
def test_same_values_as_minimax_with_far_fewer_nodes(cfg, depth):
    rng = random.Random(7)
    game = ConnectX(cfg)
    ab_nodes = mm_nodes = 0
    for _ in range(4):
        pos = undecided_position(rng, cfg, rng.randrange(0, 16))
        pruned = alphabeta_search(game, pos, depth)
        full = minimax_search(game, pos, depth)
        assert pruned.value == full.value
        assert pruned.actions == full.actions  # the very same set of best moves, ties included
        ab_nodes += pruned.nodes
        mm_nodes += full.nodes
    print(f"\n{cfg} depth {depth}: alpha-beta {ab_nodes} nodes, minimax {mm_nodes} ({mm_nodes / ab_nodes:.1f}x)")
    assert ab_nodes * 2 < mm_nodes


def test_the_search_is_game_agnostic():
    # Nim with 1-3 sticks: positions with a multiple of 4 sticks are lost for the player to move.
    for sticks in range(1, 13):
        decision = alphabeta_search(Nim(), (sticks, 0), depth=sticks)
        if sticks % 4 == 0:
            assert decision.value == -1.0
        else:
            assert decision.value == 1.0 and decision.actions == [sticks % 4]
        assert decision.value == minimax_search(Nim(), (sticks, 0), depth=sticks).value


def test_connectx_plugs_the_line_heuristic_and_utility_in_from_each_side():
    cfg = Config()
    game = ConnectX(cfg)
    pos = Position.from_moves([0, 6, 1, 6, 2])  # player 0 (X) has three on the bottom; O to move
    x_view = line_heuristic(pos.opponent, pos.current, game.windows, 4)
    assert x_view > 0 and game.evaluate(pos, 0) == x_view and game.evaluate(pos, 1) == -x_view
    won = pos.played(6).played(3)  # O stacks a third stone, X completes the bottom line
    assert game.is_terminal(won) and game.to_move(won) == 1
    assert game.utility(won, 0) == ConnectX.WIN + cfg.cells - 7 == -game.utility(won, 1)
    assert not game.is_terminal(pos) and game.actions(pos)[:3] == [3, 2, 4]


def test_takes_a_win_and_blocks_a_loss():
    assert alphabeta.choose(Position.from_string("121212"), MoveClock(1.0)) == 0
    assert alphabeta.choose(Position.from_string("12131"), MoveClock(1.0)) == 0
    # X to move with two on the bottom (columns 4-5): extending to an open three wins within 3 plies.
    decision = alphabeta_search(ConnectX(Config()), Position.from_string("4151"), 4)
    assert set(decision.actions) <= {2, 5}


def test_agent_keeps_its_time_budget_on_a_large_board(search_clock):
    cfg = Struct(rows=10, columns=12, inarow=5, actTimeout=2)
    pos = undecided_position(random.Random(1), Config(10, 12, 5), 20)
    deadline = MoveClock(2.0)
    move = alphabeta.agent(Struct(board=pos.to_board(), mark=1 + pos.moves % 2), cfg)
    assert type(move) is int and pos.can_play(move)
    assert deadline.elapsed() < alphabeta.TIME_CEILING + 0.2
