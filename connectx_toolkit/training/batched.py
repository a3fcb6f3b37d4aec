"""ConnectX for reinforcement learning, N boards stepped together in numpy: a Gymnasium vector env.

Layout. Every board is two ``uint64`` bitboards in Pascal Pons' layout, the core's
(``agents/core/position.py``): column ``c`` owns bits ``c*H .. c*H + rows - 1`` with ``H = rows + 1``,
bit 0 of a column being its bottom cell; the column's top bit ``c*H + rows`` is a sentinel that stays 0,
so no line wraps from one column into the next. A batch of N boards is a few arrays of N ``uint64``
(``mask``: every stone; the learner's stones; the learner's seat), so every rule is a handful of numpy
operations over all boards at once, with no Python loop over boards:

- a drop: ``(mask + bottom[c]) & column[c]`` is the cell a stone lands on in column ``c`` (the carry of
  the addition climbs to the first empty cell); it is 0 when the column is full (the carry reaches the
  sentinel, outside ``column[c]``), so the same expression is the legality test;
- the win check: for each direction ``d`` in (1, H, H - 1, H + 1) (vertical, horizontal, the two
  diagonals), ``m &= m >> (run * d)`` doubles the length ``run`` of the runs that bit ``x`` of ``m``
  stands for (x, x+d, ..., x+(run-1)d all stones), so ``inarow`` stones in a row take about
  log2(inarow) + 1 shifts per direction; a board has a line iff some ``m`` is not 0;
- the cells that would complete a line (greedy's wins and blocks) grow the runs of stones on either side
  of every cell one shift at a time, as ``agents/core/winning_cells.any_in_a_row`` does.

Boards need ``(rows + 1) * columns <= 64`` bits (Connect 4's 6 x 7 uses 49; 7 x 8 uses all 64); a larger
board raises ``ValueError`` at construction (the one-board ``connectx_toolkit.training.single_env`` runs
on the core's unbounded Python integers and has no such limit).

:class:`BatchedConnectX` is a ``gymnasium.vector.VectorEnv``: the learner plays one seat on every board
(fixed, or alternating from one episode to the next) and the opponent replies inside ``step``, so one
step is one learner move plus the opponent's answer on every board. Opponents:

- ``"random"``: a uniformly random legal column, as Kaggle's ``random`` agent (rejection sampling over
  all boards at once, the few boards that draw full columns three times settled exactly among their
  legal columns);
- ``"greedy"``: ``agents/greedy.py``'s rule, vectorised: win at once if possible, else block the
  opponent's immediate win, else the most central legal column; ties at random;
- any Kaggle agent ``agent(obs, config)``: the slow path, called board by board with Kaggle's
  observation (``board``, ``mark``, ``step``) and configuration; it is not seeded by the env.

Rewards are Kaggle's score of the game, from the learner's side: +1 win, -1 loss, 0 draw, 0 mid-game. An
illegal column (a full one, or one outside ``0..columns-1``) ends that board's episode as the learner's
loss, -1 (Kaggle's INVALID); a callable opponent's illegal column ends it as the learner's win, +1
(Kaggle leaves the other agent's reward at 0 there but ranks the game as the faulty agent's loss).

Autoreset: ``AutoresetMode.SAME_STEP``. A board that ends in ``step`` is reset in that same step: the
returned observation is the new episode's first one (after the opponent's opening move when the learner
plays second) and ``infos["final_obs"]`` holds, for every board, the observation before any reset
(``infos["_final_obs"]`` marks the boards that ended). Connect X never truncates (a game lasts at most
rows x columns moves) and a terminal state's value is 0, so the final observation is rarely needed; with
NEXT_STEP every finished board would waste one step whose action is ignored (with games of 10-20 learner
moves, 5-10 % of all steps) and every learner would have to mask those steps out of its updates.

:class:`BatchedSelfPlay` is the two-learner mode: the caller gives the move of the player to move on
every board (one ply per step), for self-play.
"""

from __future__ import annotations

from typing import Any, Callable, Literal

import numpy as np

from connectx_toolkit.agents.core import Config
from connectx_toolkit.training.dependencies import INSTALL, MissingDependency

DEFAULT_CONFIG = Config()  # Kaggle's board: the defaults of every signature below

try:
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError:
    raise MissingDependency(f"connectx_toolkit.training.batched needs gymnasium, which is not installed: {INSTALL}",
                            name="gymnasium") from None

Opponent = Literal["random", "greedy"] | Callable[[Any, Any], Any]
ObsType = Literal["planes", "kaggle"]

_U64 = np.uint64
_ZERO = _U64(0)


class BitGeometry:
    """The masks and shifts of one board shape, as numpy ``uint64`` constants, and the batched rules."""

    def __init__(self, config: Config) -> None:
        rows, columns, inarow = config.rows, config.columns, config.inarow
        if (rows + 1) * columns > 64:
            raise ValueError(f"a {rows} x {columns} board needs (rows + 1) * columns = {(rows + 1) * columns} "
                             "bits; the batched env holds at most 64 (use connectx_toolkit.training.single_env)")
        self.config = config
        self.rows, self.columns, self.inarow = rows, columns, inarow
        h = self.height = rows + 1
        one_column = (1 << rows) - 1
        self.bottom = np.array([1 << (c * h) for c in range(columns)], dtype=_U64)
        self.column = np.array([one_column << (c * h) for c in range(columns)], dtype=_U64)
        self.bottom_all = _U64(sum(1 << (c * h) for c in range(columns)))
        self.full = _U64(sum(one_column << (c * h) for c in range(columns)))
        self.directions = [_U64(d) for d in (1, h, h - 1, h + 1)]
        # has_line's shift plan per direction: the doubling steps, then the remainder
        self.line_shifts: list[list[np.uint64]] = []
        for d in (1, h, h - 1, h + 1):
            plan, run = [], 1
            while run * 2 <= inarow:
                plan.append(_U64(run * d))
                run *= 2
            if run < inarow:
                plan.append(_U64((inarow - run) * d))
            self.line_shifts.append(plan)
        self.side_shifts = [[_U64(j * d) for j in range(1, inarow)] for d in (1, h, h - 1, h + 1)]
        # Kaggle's cell index (row 0 at the top) -> bit index
        self.cell_bits = np.array([c * h + (rows - 1 - r) for r in range(rows) for c in range(columns)],
                                  dtype=np.intp)
        middle = (columns - 1) / 2
        self.centre_distance = np.array([abs(2 * c - 2 * middle) for c in range(columns)], dtype=np.int16)

    # -- rules over arrays of boards ------------------------------------------------------------
    def drop(self, mask: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The cell (one bit) a stone dropped into each board's column lands on; 0 where illegal."""
        inside = (columns >= 0) & (columns < self.columns)
        safe = np.where(inside, columns, 0)
        bits = (mask + self.bottom[safe]) & self.column[safe]
        if not inside.all():
            bits[~inside] = _ZERO
        return bits

    def has_line(self, stones: np.ndarray) -> np.ndarray:
        """True for each board whose ``stones`` hold ``inarow`` in a row in some direction."""
        found: np.ndarray | None = None
        for plan in self.line_shifts:
            m = stones
            for shift in plan:
                m = m & (m >> shift)
            found = m if found is None else found | m
        assert found is not None
        return found != _ZERO

    def winning_cells(self, stones: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The empty cells where one more stone of ``stones`` completes a line (any ``inarow``)."""
        cells = np.zeros_like(stones)
        everywhere = np.full_like(stones, self.full)
        for shifts in self.side_shifts:
            below, above = [everywhere], [everywhere]  # below[j]: the j nearest cells below are stones
            for s in shifts:
                below.append(below[-1] & (stones << s))
                above.append(above[-1] & (stones >> s))
            for a in range(self.inarow):
                cells |= below[a] & above[-1 - a]
        return cells & (self.full ^ mask)

    def possible(self, mask: np.ndarray) -> np.ndarray:
        """The cells a stone can be dropped on now (one per non-full column)."""
        return (mask + self.bottom_all) & self.full

    def columns_of(self, cells: np.ndarray) -> np.ndarray:
        """``(n, columns)`` bool: which columns hold one of each board's ``cells``."""
        return (cells[:, None] & self.column[None, :]) != _ZERO

    def planes(self, own: np.ndarray, other: np.ndarray) -> np.ndarray:
        """``(n, 2, rows, columns)`` int8: own stones, other stones, row 0 at the top (Kaggle's order)."""
        n = own.shape[0]
        stacked = np.empty((n, 2), dtype="<u8")  # little-endian: byte j holds bits 8j .. 8j + 7
        stacked[:, 0] = own
        stacked[:, 1] = other
        bits = np.unpackbits(stacked.view(np.uint8).reshape(-1), bitorder="little").reshape(2 * n, 64)
        # np.take keeps the result C-contiguous (bits[:, cell_bits] would not, and every later copy crawls)
        return np.take(bits, self.cell_bits, axis=1).view(np.int8).reshape(n, 2, self.rows, self.columns)


# -- opponents: (own, other, mask, own_mark, active, rng) -> (columns, move bits) ------------------
def pick_uniform(candidates: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each row of ``(n, columns)`` bool, a uniformly random True column (0 for a row with none)."""
    draw = rng.random(candidates.shape, dtype=np.float32)
    return np.argmax(np.where(candidates, draw, np.float32(-1)), axis=1)


def random_moves(g: BitGeometry, mask: np.ndarray, active: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A uniformly random legal column on every active board: uniform draws, the boards that drew a
    full column drawing again (exact rejection sampling), and after three rejections a draw among the
    board's legal columns."""
    columns = rng.integers(0, g.columns, size=mask.shape[0])
    bits = (mask + g.bottom[columns]) & g.column[columns]
    redraw = (bits == _ZERO) & active
    for _ in range(3):
        if not redraw.any():
            return columns, bits
        index = np.flatnonzero(redraw)
        again = rng.integers(0, g.columns, size=index.size)
        again_bits = (mask[index] + g.bottom[again]) & g.column[again]
        columns[index], bits[index] = again, again_bits
        redraw[index] = again_bits == _ZERO
    if redraw.any():
        index = np.flatnonzero(redraw)
        legal = g.columns_of(g.possible(mask[index]))
        again = pick_uniform(legal, rng)
        columns[index] = again
        bits[index] = (mask[index] + g.bottom[again]) & g.column[again]
    return columns, bits


def greedy_moves(g: BitGeometry, own: np.ndarray, other: np.ndarray, mask: np.ndarray,
                 rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``agents/greedy.choose`` on every board: a random winning column, else a random blocking
    column, else a random one of the most central legal columns."""
    possible = g.possible(mask)
    wins = g.winning_cells(own, mask) & possible
    blocks = g.winning_cells(other, mask) & possible
    target = np.where(wins != _ZERO, wins, blocks)
    distance = np.where(g.columns_of(possible), g.centre_distance, np.int16(32767))
    central = distance == distance.min(axis=1, keepdims=True)
    candidates = np.where((target != _ZERO)[:, None], g.columns_of(target), central)
    columns = pick_uniform(candidates, rng)
    return columns, possible & g.column[columns]


def kaggle_moves(agent: Callable[[Any, Any], Any], g: BitGeometry, own: np.ndarray, other: np.ndarray,
                 own_mark: np.ndarray, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Any Kaggle agent, called board by board (the slow path); a column it cannot play gives bit 0."""
    from connectx_toolkit.evaluation.seats.observation import structify

    n = own.shape[0]
    columns = np.zeros(n, dtype=np.int64)
    planes = g.planes(own, other)
    config = structify({**g.config.as_dict(), "timeout": 2, "actTimeout": 2, "episodeSteps": 1000,
                        "agentTimeout": 60, "runTimeout": 1200})
    for i in np.flatnonzero(active):
        mark = int(own_mark[i])
        board = (planes[i, 0] * mark + planes[i, 1] * (3 - mark)).ravel().tolist()
        obs = structify({"board": board, "mark": mark, "step": int(planes[i].sum()),
                         "remainingOverageTime": 60})
        answer = agent(obs, config)
        try:
            columns[i] = int(answer)
        except (TypeError, ValueError, OverflowError):  # not a column: Kaggle's INVALID
            columns[i] = -1
    mask = own | other
    return columns, g.drop(mask, columns)


def legal_columns(planes: np.ndarray) -> np.ndarray:
    """The action mask of every board, int8 as the other envs' (and PettingZoo's): 1 where the top cell is empty."""
    return ((planes[:, 0, 0, :] | planes[:, 1, 0, :]) == 0).view(np.int8)


class BatchedConnectX(VectorEnv):
    """``num_envs`` ConnectX boards against a vectorised opponent, stepped together (see the module doc).

    The parameters are ``single_env.ConnectXEnv``'s: ``seat``: 0 (the learner moves first on every board), 1
    (second), or ``"alternate"`` (board i starts in seat i % 2 and changes seat at every new episode).
    ``obs_type``: ``"planes"``, ``(num_envs, 2, rows, columns)`` int8 (the learner's stones, then the opponent's;
    row 0 is the top row), or ``"kaggle"``, Kaggle's flat board ``(num_envs, rows * columns)`` int8 with marks 1
    and 2 (``infos["mark"]`` says the learner's). ``infos["action_mask"]``: ``(num_envs, columns)`` int8, 1 for
    the legal columns of the returned observation.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, opponent: Opponent = "random", *, seat: int | Literal["alternate"] = "alternate",
                 obs_type: ObsType = "planes", rows: int = DEFAULT_CONFIG.rows,
                 columns: int = DEFAULT_CONFIG.columns, inarow: int = DEFAULT_CONFIG.inarow, seed: int | None = None) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if seat not in (0, 1, "alternate"):
            raise ValueError(f"seat must be 0, 1 or 'alternate', got {seat!r}")
        if obs_type not in ("planes", "kaggle"):
            raise ValueError(f"obs_type must be 'planes' or 'kaggle', got {obs_type!r}")
        if not (opponent in ("random", "greedy") or callable(opponent)):
            raise ValueError(f"opponent must be 'random', 'greedy' or an agent(obs, config), got {opponent!r}")
        self.geometry = g = BitGeometry(Config(rows, columns, inarow))
        self.num_envs = num_envs
        self.opponent = opponent
        self.seat_rule = seat
        self.obs_type = obs_type
        if obs_type == "planes":
            self.single_observation_space = spaces.Box(0, 1, (2, g.rows, g.columns), np.int8)
        else:
            self.single_observation_space = spaces.Box(0, 2, (g.rows * g.columns,), np.int8)
        self.single_action_space = spaces.Discrete(g.columns)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.mine = np.zeros(num_envs, dtype=_U64)
        self.mask = np.zeros(num_envs, dtype=_U64)
        self.seat = np.zeros(num_envs, dtype=np.int8)
        if seed is not None:
            self.reset(seed=seed)

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        n = self.num_envs
        if self.seat_rule == "alternate":
            self.seat = (np.arange(n) % 2).astype(np.int8)
        else:
            self.seat = np.full(n, self.seat_rule, dtype=np.int8)
        self.mine[:] = _ZERO
        self.mask[:] = _ZERO
        self._opening(np.arange(n))
        planes = self.geometry.planes(self.mine, self.mask ^ self.mine)
        return self._observe(planes), {"action_mask": self._action_mask(planes), "mark": self.seat + 1}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        g = self.geometry
        actions = np.asarray(actions).astype(np.int64, copy=False).reshape(self.num_envs)
        bits = g.drop(self.mask, actions)
        illegal = bits == _ZERO
        mine = self.mine | bits
        mask = self.mask | bits
        won = g.has_line(mine)
        active = ~(illegal | won | (mask == g.full))
        theirs = mask ^ mine
        _, their_bits = self._opponent_moves(theirs, mine, mask, active)
        forfeit = active & (their_bits == _ZERO)
        their_bits = np.where(active, their_bits, _ZERO)
        theirs |= their_bits
        mask |= their_bits
        lost = g.has_line(theirs)
        terminated = ~active | forfeit | lost | (mask == g.full)
        rewards = (won.astype(np.float32) + forfeit - lost - illegal)
        self.mine, self.mask = mine, mask
        final = g.planes(mine, theirs)
        infos: dict[str, Any] = {"illegal": illegal}
        if terminated.any():
            ended = np.flatnonzero(terminated)
            if self.seat_rule == "alternate":
                self.seat[ended] ^= 1
            self.mine[ended] = _ZERO
            self.mask[ended] = _ZERO
            self._opening(ended)
            planes = final.copy()
            planes[ended] = g.planes(self.mine[ended], self.mask[ended] ^ self.mine[ended])
            infos["final_obs"] = self._observe(final)
            infos["_final_obs"] = terminated
        else:
            planes = final
        infos["action_mask"] = self._action_mask(planes)
        infos["mark"] = self.seat + 1
        return self._observe(planes), rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    # -- helpers --------------------------------------------------------------------------------
    def _opponent_moves(self, theirs: np.ndarray, mine: np.ndarray, mask: np.ndarray,
                        active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g, rng = self.geometry, self.np_random
        if self.opponent == "random":
            return random_moves(g, mask, active, rng)
        if self.opponent == "greedy":
            return greedy_moves(g, theirs, mine, mask, rng)
        assert callable(self.opponent)
        return kaggle_moves(self.opponent, g, theirs, mine, 2 - self.seat[: theirs.shape[0]], active)

    def _opening(self, boards: np.ndarray) -> None:
        """The opponent's first move on the (empty) ``boards`` where the learner plays second."""
        second = boards[self.seat[boards] == 1]
        if second.size == 0:
            return
        empty = np.zeros(second.size, dtype=_U64)
        g, rng = self.geometry, self.np_random
        if self.opponent == "random":
            _, bits = random_moves(g, empty, np.ones(second.size, dtype=bool), rng)
        elif self.opponent == "greedy":
            _, bits = greedy_moves(g, empty, empty, empty, rng)
        else:
            assert callable(self.opponent)
            _, bits = kaggle_moves(self.opponent, g, empty, empty, np.ones(second.size, dtype=np.int8),
                                   np.ones(second.size, dtype=bool))
        self.mask[second] = bits

    def _observe(self, planes: np.ndarray) -> np.ndarray:
        if self.obs_type == "planes":
            return planes
        mark = (self.seat + 1)[:, None, None]
        board = planes[:, 0] * mark + planes[:, 1] * (3 - mark)
        return board.reshape(planes.shape[0], -1).astype(np.int8, copy=False)

    def _action_mask(self, planes: np.ndarray) -> np.ndarray:
        return legal_columns(planes)


class BatchedSelfPlay:
    """Two learners on ``num_envs`` boards: ``step`` plays the caller's column for the player to move on
    every board (one ply), with same-step autoreset.

    Observations are from the side of the player to move next: planes (its stones, the other's) or
    Kaggle's board. ``rewards`` are the mover's: +1 for a winning move, -1 for an illegal one, 0
    otherwise; the other seat's terminal reward is ``-rewards`` (zero-sum). ``infos["mark"]`` is the mark
    (1 or 2) of the player to move in the returned observation.
    """

    def __init__(self, num_envs: int, *, obs_type: ObsType = "planes", rows: int = DEFAULT_CONFIG.rows,
                 columns: int = DEFAULT_CONFIG.columns, inarow: int = DEFAULT_CONFIG.inarow, seed: int | None = None) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        if obs_type not in ("planes", "kaggle"):
            raise ValueError(f"obs_type must be 'planes' or 'kaggle', got {obs_type!r}")
        self.geometry = BitGeometry(Config(rows, columns, inarow))
        self.num_envs = num_envs
        self.obs_type = obs_type
        self.current = np.zeros(num_envs, dtype=_U64)
        self.mask = np.zeros(num_envs, dtype=_U64)
        self.moves = np.zeros(num_envs, dtype=np.int16)
        self.np_random = np.random.default_rng(seed)

    def reset(self, *, seed: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.current[:] = _ZERO
        self.mask[:] = _ZERO
        self.moves[:] = 0
        planes = self.geometry.planes(self.current, self.mask)
        return self._observe(planes), self._infos(planes)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        g = self.geometry
        actions = np.asarray(actions).astype(np.int64, copy=False).reshape(self.num_envs)
        bits = g.drop(self.mask, actions)
        illegal = bits == _ZERO
        mover = self.current | bits
        mask = self.mask | bits
        won = g.has_line(mover)
        terminated = illegal | won | (mask == g.full)
        rewards = won.astype(np.float32) - illegal
        final = g.planes(mask ^ mover, mover)  # the next player's side
        self.current, self.mask = mask ^ mover, mask
        self.moves += 1
        infos: dict[str, Any] = {"illegal": illegal}
        if terminated.any():
            ended = np.flatnonzero(terminated)
            infos["final_obs"] = self._observe(final)
            infos["_final_obs"] = terminated
            self.current[ended] = _ZERO
            self.mask[ended] = _ZERO
            self.moves[ended] = 0
            final = final.copy()
            final[ended] = 0
        infos.update(self._infos(final))
        return self._observe(final), rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def _infos(self, planes: np.ndarray) -> dict[str, Any]:
        return {"action_mask": legal_columns(planes),
                "mark": (1 + self.moves % 2).astype(np.int8)}

    def _observe(self, planes: np.ndarray) -> np.ndarray:
        if self.obs_type == "planes":
            return planes
        mark = (1 + self.moves % 2)[:, None, None]
        board = planes[:, 0] * mark + planes[:, 1] * (3 - mark)
        return board.reshape(planes.shape[0], -1).astype(np.int8, copy=False)
