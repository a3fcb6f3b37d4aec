"""Depth-limited alpha-beta over a small game interface, with ConnectX plugged in.

The textbook formulation (Russell & Norvig's ``alpha_beta_cutoff_search``): the search knows a game
only through ``Game`` — whose turn it is, the actions, the state an action leads to, whether the
game is over, its utility, and an evaluation for states at the depth cut. ``minimax_search`` is the
same search without pruning; both count the nodes they visit, so the saving is measurable.

``ConnectX`` implements the interface on the core's ``Position``; at the cut it scores the
position with the line heuristic (``agents.heuristic_search.line_heuristic``). The agent deepens the search
1, 2, 3, ... plies while its time budget lasts and plays a best move of the deepest finished depth.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, Sequence, TypeVar

from .core import Config, Position
from .core.clock import MoveClock, move_deadline
from .core.lines import windows
from .heuristic_search.deepening import OutOfTime, deepen, first_at_front
from .heuristic_search.line_heuristic import line_heuristic

State = TypeVar("State")
Action = TypeVar("Action")

TIME_SHARE = 0.2  # of the act timeout: 0.4 s on Kaggle's 2 s
TIME_CEILING = 0.4
MAX_DEPTH = 42


class Game(Protocol[State, Action]):
    """What a two-player, zero-sum, perfect-information game must offer the search."""

    def to_move(self, state: State) -> int:
        """The player whose turn it is."""
        ...

    def actions(self, state: State) -> Sequence[Action]:
        """Legal actions, best guesses first (alpha-beta prunes more when good moves come early)."""
        ...

    def result(self, state: State, action: Action) -> State:
        """The state after ``action``; ``state`` itself is left unchanged."""
        ...

    def is_terminal(self, state: State) -> bool:
        """Is the game over?"""
        ...

    def utility(self, state: State, player: int) -> float:
        """Final payoff of a terminal state for ``player``."""
        ...

    def evaluate(self, state: State, player: int) -> float:
        """Estimated payoff of a non-terminal state for ``player`` (used at the depth cut)."""
        ...


@dataclass
class Decision(Generic[Action]):
    """A search's answer: every best root action, their value, and the nodes visited."""

    actions: list[Action]
    value: float
    nodes: int = 0


@dataclass
class _Counter:
    nodes: int = 0
    deadline: MoveClock | None = field(default=None)

    def visit(self) -> None:
        self.nodes += 1
        if self.deadline is not None and self.nodes & 63 == 0 and self.deadline.expired():
            raise OutOfTime


def _leaf_value(game: Game, state: Any, depth: int, player: int) -> float | None:
    if game.is_terminal(state):
        return game.utility(state, player)
    if depth <= 0:
        return game.evaluate(state, player)
    return None


def minimax_search(game: Game[State, Action], state: State, depth: int) -> Decision[Action]:
    """Plain depth-limited minimax: every node to ``depth`` plies is visited."""
    player, counter = game.to_move(state), _Counter()

    def value(node: State, remaining: int) -> float:
        counter.visit()
        leaf = _leaf_value(game, node, remaining, player)
        if leaf is not None:
            return leaf
        values = (value(game.result(node, a), remaining - 1) for a in game.actions(node))
        return max(values) if game.to_move(node) == player else min(values)

    scored = [(value(game.result(state, a), depth - 1), a) for a in game.actions(state)]
    best = max(v for v, _ in scored)
    return Decision([a for v, a in scored if v == best], best, counter.nodes)


def alphabeta_search(
    game: Game[State, Action],
    state: State,
    depth: int,
    deadline: MoveClock | None = None,
    first: Action | None = None,
) -> Decision[Action]:
    """Depth-limited minimax with alpha-beta pruning; same value as ``minimax_search`` at equal depth.

    ``first`` is searched first at the root. Every root action whose value equals the best is
    reported (the root keeps its window just below the best so ties are exact). Raises
    ``OutOfTime`` when ``deadline`` passes.
    """
    player, counter = game.to_move(state), _Counter(deadline=deadline)

    def value(node: State, remaining: int, alpha: float, beta: float) -> float:
        counter.visit()
        leaf = _leaf_value(game, node, remaining, player)
        if leaf is not None:
            return leaf
        if game.to_move(node) == player:
            best = -float("inf")
            for a in game.actions(node):
                best = max(best, value(game.result(node, a), remaining - 1, alpha, beta))
                if best >= beta:
                    return best  # the opponent will never allow this node
                alpha = max(alpha, best)
        else:
            best = float("inf")
            for a in game.actions(node):
                best = min(best, value(game.result(node, a), remaining - 1, alpha, beta))
                if best <= alpha:
                    return best  # we will never choose this node
                beta = min(beta, best)
        return best

    actions = first_at_front(list(game.actions(state)), first)
    best_actions: list[Action] = []
    best = -float("inf")
    for a in actions:
        # Strictly below ``best``, so a tie is computed exactly instead of cut off.
        v = value(game.result(state, a), depth - 1, best - 1e-9, float("inf"))
        if v > best:
            best, best_actions = v, [a]
        elif v == best:
            best_actions.append(a)
    return Decision(best_actions, best, counter.nodes)


class ConnectX:
    """ConnectX as a ``Game``: states are core ``Position``s, actions columns, players 0 and 1."""

    WIN = 1_000_000.0  # plus the empty cells left, so that sooner wins are worth more

    def __init__(self, config: Config) -> None:
        self.config = config
        self.windows = windows(config)

    def to_move(self, state: Position) -> int:
        return state.moves % 2

    def actions(self, state: Position) -> list[int]:
        return [c for c in state.geometry.center_order if state.can_play(c)]

    def result(self, state: Position, action: int) -> Position:
        return state.played(action)

    def is_terminal(self, state: Position) -> bool:
        return state.is_full() or state.last_player_won()

    def utility(self, state: Position, player: int) -> float:
        if not state.last_player_won():
            return 0.0
        payoff = self.WIN + self.config.cells - state.moves
        return payoff if self.to_move(state) != player else -payoff

    def evaluate(self, state: Position, player: int) -> float:
        mine, theirs = state.current, state.opponent
        if self.to_move(state) != player:
            mine, theirs = theirs, mine
        return line_heuristic(mine, theirs, self.windows, self.config.inarow)


def choose(position: Position, deadline: MoveClock, rng: random.Random | None = None) -> int:
    """A best column of the deepest alpha-beta search finished before ``deadline``."""
    game = ConnectX(position.config)

    def search(depth: int, previous: Sequence[int]) -> tuple[list[int], float]:
        decision = alphabeta_search(game, position, depth, deadline, previous[0])
        return decision.actions, decision.value

    best, _ = deepen(
        search,
        game.actions(position)[:1],
        deadline,
        min(MAX_DEPTH, position.config.cells - position.moves),
        decided=lambda value: abs(value) >= ConnectX.WIN,
    )
    return (rng or random).choice(best)


def agent(obs: Any, config: Any) -> int:
    position = Position.from_kaggle(obs, Config.from_kaggle(config))
    return int(choose(position, move_deadline(obs, config, TIME_SHARE, TIME_CEILING)))
