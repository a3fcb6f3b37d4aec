"""The n-tuple TD(λ) learner's training run: settings, chunks of compiled self-play, checkpoints, the curve.

``train(settings, folder)`` plays self-play games (``selfplay.play_episodes``) in chunks of at most ``CHUNK``
games, and between chunks: measures the network every ``settings.curve_every`` games (with the caller's
``measure``, e.g. the accuracy against perfect play: training never sees what it measures), writes a checkpoint
when ``settings.checkpoint_seconds`` have passed, and stops at ``episodes`` games in all, after ``minutes`` of
wall time, or at Ctrl-C (SIGINT: the chunk under way finishes, then a checkpoint is written). ``resume(folder)``
reads the checkpoint and goes on with its settings. Chunks end on curve points, and nothing a chunk does depends
on where chunks end, so a run stopped (even by ``kill -9``) and resumed ends with the same weights, bit for bit,
as one that never stopped.
"""

from __future__ import annotations

import math
import signal
import threading
import time
from dataclasses import asdict, dataclass, fields
from typing import Any, Callable

import numpy as np

from . import checkpoints
from .checkpoints import TrainingState
from .network import make_layout
from .selfplay import play_episodes, seeded_state
from .threats import THREAT_SHAPE, THREAT_SIZE, THREAT_SLOTS
from .tuples import CELLS, MOST_TUPLES, TABLE_SIZE, tuple_set

CHUNK = 2000  # games a compiled call plays: about half a second, so Ctrl-C and the clock are heard promptly


@dataclass(frozen=True)
class NTupleSettings:
    """How the n-tuple network learns (kept in the checkpoint: a resumed run keeps them)."""

    seed: int = 1
    tuples: int = 70  # the network's n-tuples: the first of the 140 (``tuples.tuple_set``), each read twice (mirror)
    alpha: float = 0.5  # the sum's step size: each of its n entries (2 a tuple, and 8 threat entries) moves alpha/n
    alpha_end: float | None = None  # None: alpha throughout; else alpha decays exponentially to alpha_end ...
    alpha_episodes: int = 2_000_000  # ... over the first alpha_episodes games, then stays there
    lam: float = 0.5  # λ of the eligibility traces
    horizon: int = 8  # positions back a trace reaches (0.5**8 < 0.004)
    beta: float = 2.7  # TCL-EXP's exponent (0: plain TD(λ), one step size for all)
    epsilon_start: float = 0.95  # share of exploring moves, from epsilon_start ...
    epsilon_end: float = 0.1  # ... to epsilon_end,
    epsilon_episodes: int = 2_000_000  # ... linearly over the first epsilon_episodes games, then constant
    explore_learns: bool = True  # do the positions before an exploring move learn (then the traces are cut)? ...
    greedy_target: bool = True  # ... toward the greedy move's value, the whole trace (Watkins' Q(λ)), or (False)
    # toward the explored move's, the one position it was chosen in
    tactics: bool = True  # does self-play see one ply ahead (a move leaving the opponent a win is that loss)?
    side_tables: bool = True  # one set of tables for each side to move (GBG's), chosen by the stones' parity?
    stages: int = 1  # the game cut by its stones into this many stages of equal length, each with its own set(s)
    threats: bool = True  # eight threat-table entries in the sum (the columns' winning cells, by side to move)?
    siblings: float = 0.0  # share of moves at which the moves not played learn their own one-ply lookahead
    curve_every: int = 100_000  # games between two points of the learning curve
    checkpoint_seconds: float = 180.0  # wall seconds between checkpoints

    def __post_init__(self) -> None:
        problems = [name for name, ok in (
            ("tuples", 1 <= self.tuples <= MOST_TUPLES), ("alpha", self.alpha > 0), ("alpha_end", self.alpha_end is None or self.alpha_end > 0),
            ("alpha_episodes", self.alpha_episodes >= 1), ("lam", 0 <= self.lam <= 1), ("horizon", self.horizon >= 1),
            ("beta", self.beta >= 0), ("epsilon_start", 0 <= self.epsilon_start <= 1),
            ("epsilon_end", 0 <= self.epsilon_end <= 1), ("epsilon_episodes", self.epsilon_episodes >= 1),
            ("stages", 1 <= self.stages <= CELLS), ("curve_every", self.curve_every >= 1),
            ("checkpoint_seconds", self.checkpoint_seconds >= 0), ("siblings", 0 <= self.siblings <= 1),
        ) if not ok]
        if problems:
            raise ValueError(f"n-tuple settings out of range: {', '.join(problems)}")

    def table_sets(self) -> np.ndarray:
        """The set of tables a position with n stones reads, for n = 0 .. 42: its stage (``n * stages // 43``),
        and with side tables its stones' parity (``set = 2 * stage + n % 2``)."""
        stones = np.arange(CELLS + 1)
        stage = stones * self.stages // (CELLS + 1)
        return (2 * stage + stones % 2 if self.side_tables else stage).astype(np.int64)

    def record(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "NTupleSettings":
        known = {f.name for f in fields(cls)}
        # A run recorded before these settings existed played without them: it goes on as it began.
        before = {"tuples": 70, "explore_learns": False, "greedy_target": False, "tactics": False, "side_tables": False,
                  "threats": False}
        return cls(**{**before, **{k: v for k, v in record.items() if k in known}})


# measure(network) -> the curve's figures at this point, e.g. {"all": 0.95, "critical": 0.88}; network is the
# agent's ``Network`` of the state's tables (``network``), to be read, never changed.
Measure = Callable[[Any], dict[str, float]]
# progress(state, figures or None): after every chunk (figures when the chunk ended on a curve point)
Progress = Callable[[TrainingState, "dict[str, float] | None"], None]
# after_checkpoint(state): after every checkpoint written (e.g. to write the agent's weights beside it)
AfterCheckpoint = Callable[[TrainingState], None]


def tuple_entries(settings: NTupleSettings) -> int:
    """How many of the weights are the tuples' tables (the threat tables, when there are, come after them)."""
    return (int(settings.table_sets().max()) + 1) * settings.tuples * TABLE_SIZE


def new_state(settings: NTupleSettings) -> TrainingState:
    """A run's state before its first game: all tables 0, the generator seeded."""
    size = tuple_entries(settings) + (THREAT_SIZE if settings.threats else 0)
    return TrainingState(np.zeros(size), np.zeros(size), np.zeros(size), seeded_state(settings.seed),
                         settings=settings.record())


def tables(state: TrainingState) -> np.ndarray:
    """The network's tables, one row a tuple (a view of the state's weights), set after set
    (``NTupleSettings.table_sets``: with side tables and one stage, the even positions' then the odd ones')."""
    return state.weights[:tuple_entries(NTupleSettings.from_record(state.settings))].reshape(-1, TABLE_SIZE)


def threat_tables(state: TrainingState) -> np.ndarray | None:
    """The network's threat tables (``agents.ntuple_engine.network.THREAT_SHAPE``, a view of the state's weights),
    or None."""
    settings = NTupleSettings.from_record(state.settings)
    if not settings.threats:
        return None
    return state.weights[tuple_entries(settings):].reshape(THREAT_SHAPE)


def network(state: TrainingState):
    """The agent's ``Network`` of the state's tables as trained (float32; the weights file's are float16)."""
    from connectx_toolkit.agents.ntuple_engine.network import network_from

    settings = NTupleSettings.from_record(state.settings)
    return network_from(tuple_set(settings.tuples), tables(state), {}, settings.table_sets().tolist(),
                        threat_tables(state))


class _StopOnInterrupt:
    """While active, SIGINT (Ctrl-C) asks the run to stop after its chunk instead of raising mid-call."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None

    def __enter__(self) -> "_StopOnInterrupt":
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._request)
        return self

    def _request(self, signum: int, frame: Any) -> None:
        self.requested = True

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def play(state: TrainingState, episodes: int) -> None:
    """Play and learn from ``episodes`` more games, in place (one compiled call)."""
    settings = NTupleSettings.from_record(state.settings)
    layout = make_layout(tuple_set(settings.tuples))
    results = np.zeros(3, dtype=np.int64)
    slots = layout.slots + (THREAT_SLOTS if settings.threats else 0)  # the entries a value sums
    started = time.process_time()
    play_episodes(state.weights, state.coherence_sum, state.coherence_size, state.generator, episodes,
                  state.episodes, settings.alpha / slots,
                  (settings.alpha if settings.alpha_end is None else settings.alpha_end) / slots,
                  settings.alpha_episodes, settings.lam, settings.horizon, settings.beta,
                  settings.epsilon_start, settings.epsilon_end, settings.epsilon_episodes,
                  (2 if settings.greedy_target else 1) if settings.explore_learns else 0,
                  settings.tactics,
                  layout.slot_offsets, settings.table_sets() * (layout.tables * TABLE_SIZE),
                  layout.cell_slots, layout.cell_powers, layout.empty_indices, results, settings.threats,
                  tuple_entries(settings), settings.siblings)
    state.cpu_seconds += time.process_time() - started
    state.episodes += episodes


def train(
    state: TrainingState,
    folder: str,
    episodes: int | None = None,
    minutes: float | None = None,
    measure: Measure | None = None,
    progress: Progress | None = None,
    after_checkpoint: AfterCheckpoint | None = None,
) -> str:
    """Train ``state`` until ``episodes`` games in all (None: no limit), ``minutes`` of wall time from now (None:
    no limit) or Ctrl-C, whichever comes first, checkpointing into ``folder`` (which must exist); returns why it
    stopped: "episodes", "minutes" or "interrupted". A curve point is measured at game 0 and every
    ``curve_every`` games; the last checkpoint is written when it stops."""
    if episodes is None and minutes is None:
        raise ValueError("give a number of episodes, a number of minutes, or both")
    settings = NTupleSettings.from_record(state.settings)
    if episodes is not None:
        state.target = episodes
    deadline = math.inf if minutes is None else time.monotonic() + 60.0 * minutes
    last_checkpoint = time.monotonic()

    def point() -> dict[str, float] | None:
        if measure is None or state.episodes % settings.curve_every or any(
                row["episodes"] == state.episodes for row in state.curve):
            return None
        figures = dict(measure(network(state)))
        state.curve.append({"episodes": state.episodes, "cpu_minutes": round(state.cpu_seconds / 60.0, 4), **figures})
        return figures

    def checkpoint() -> None:
        checkpoints.save(state, folder)
        if after_checkpoint is not None:
            after_checkpoint(state)

    point()
    why = "episodes"
    with _StopOnInterrupt() as interrupt:
        while episodes is None or state.episodes < episodes:
            if interrupt.requested:
                why = "interrupted"
                break
            if time.monotonic() >= deadline:
                why = "minutes"
                break
            to_curve = settings.curve_every - state.episodes % settings.curve_every
            chunk = min(CHUNK, to_curve, (episodes - state.episodes) if episodes is not None else CHUNK)
            play(state, chunk)
            figures = point()
            if progress is not None:
                progress(state, figures)
            if time.monotonic() - last_checkpoint >= settings.checkpoint_seconds:
                checkpoint()
                last_checkpoint = time.monotonic()
    checkpoint()
    return why
