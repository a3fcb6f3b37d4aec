"""A match between two agents: the schedule of game pairs over an opening suite, played on a backend.

Game ``i`` of a match uses opening ``suite[order[(i // 2) % len(suite)]]`` (``order`` a seeded shuffle)
with A moving first when ``i`` is even and B when it is odd, so games ``2p`` and ``2p + 1`` form a pair
with seats swapped. Per-game seeds derive from the match seed and ``i``. The schedule is therefore a pure
function of (agents, games, suite, board, seed, time limits): that is what lets ``--resume`` skip exactly
the games a results file already holds.

Backends: "process" (``evaluation.scheduling.pool.run_games``, the default) and "ray"
(``evaluation.scheduling.ray_backend.run_games``), called alike: ``run_games(tasks, on_record=...,
settings=...)``.
"""

from __future__ import annotations

import random
from typing import Callable, Iterable

from connectx_toolkit.evaluation.referees.record import GameRecord, GameTask
from connectx_toolkit.evaluation.scheduling.openings import load_suite
from connectx_toolkit.evaluation.scheduling.play_settings import PROCESS, RAY, PlaySettings
from connectx_toolkit.evaluation.seats.agent_kinds import BUNDLE, CALLABLE
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec


class BackendUnavailable(RuntimeError):
    """The requested backend's module is not there (yet)."""


def game_seed(seed: int, game_id: int) -> int:
    return random.Random(f"game:{seed}:{game_id}").getrandbits(31)


def schedule(spec_a: AgentSpec, spec_b: AgentSpec, games: int, suite: list[list[int]],
             settings: PlaySettings = PlaySettings()) -> list[GameTask]:
    """The ``games`` tasks of a match over ``suite``, in order (see the module docstring); the board, the
    clock and the seed are ``settings``'."""
    order = list(range(len(suite)))
    random.Random(f"order:{settings.seed}").shuffle(order)
    shape = tuple(settings.config.as_dict().items())
    return [
        GameTask(
            game_id=i,
            spec_a=spec_a,
            spec_b=spec_b,
            swapped=i % 2 == 1,
            opening=tuple(suite[order[(i // 2) % len(order)]]),
            config=shape,
            act_timeout=settings.act_timeout,
            overage=settings.overage,
            seed=game_seed(settings.seed, i),
        )
        for i in range(games)
    ]


def match_suite(settings: PlaySettings, games: int) -> list[list[int]]:
    """The openings a match of ``games`` games is scheduled over: ``settings.openings`` (None = the default
    suite, a ply depth or a file; see ``evaluation.scheduling.openings``), enough for every pair."""
    return load_suite(settings.openings, settings.config, settings.seed, count=max(64, (games + 1) // 2))


def run_match(
    spec_a: AgentSpec,
    spec_b: AgentSpec,
    games: int | list[GameTask],
    settings: PlaySettings = PlaySettings(),
    *,
    on_game: Callable[[GameRecord], None] | None = None,
    done: Iterable[GameRecord] = (),
    stop: Callable[[list[GameRecord]], bool] | None = None,
    keep_steps: bool = False,
) -> list[GameRecord]:
    """Play a match of A against B and return every record (``done`` ones included), by game id.

    ``games`` is a number of games (scheduled over ``settings.openings``, see ``match_suite``) or an
    explicit task list; how and where they are played is ``settings`` (the board, the clock, the
    backend and its workers, the referee, the sandbox, the memory cap). Games whose ids appear in
    ``done`` are not played again. ``on_game`` sees each new record as soon as it ends; ``stop(records)``
    returning True (e.g. an SPRT that has decided) stops scheduling further games. Kaggle's ``steps``
    (what a replay needs) are dropped from a record once ``on_game`` has seen it, unless ``keep_steps``: a
    long match would otherwise hold every board of every game in memory.
    """
    if isinstance(games, int):
        tasks = schedule(spec_a, spec_b, games, match_suite(settings, games), settings)
    else:
        tasks = list(games)
    records = {record.game_id: record for record in done}
    if stop is not None and records and stop(sorted(records.values(), key=lambda r: r.game_id)):
        return sorted(records.values(), key=lambda r: r.game_id)

    def on_record(record: GameRecord) -> bool:
        records[record.game_id] = record
        if on_game is not None:
            on_game(record)
        if not keep_steps:
            record.steps = []
        return bool(stop and stop(sorted(records.values(), key=lambda r: r.game_id)))

    todo = [task for task in tasks if task.game_id not in records]
    require_backend_can_load(settings.backend, todo)
    backend_runner(settings.backend)(todo, on_record=on_record, settings=settings)
    return sorted(records.values(), key=lambda r: r.game_id)


def require_backend_can_load(backend: str, tasks: list[GameTask]) -> None:
    """Callables live in this process; only the process backend's forked workers inherit them. Kaggle bundles
    need its sandbox (it shows them at /kaggle_simulations/agent)."""
    if backend == PROCESS:
        return
    callables = sorted({spec.name for task in tasks for spec in task.seats if spec.kind == CALLABLE})
    if callables:
        raise BackendUnavailable(
            f"--backend {backend} cannot take callables ({', '.join(callables)}): its workers are not forked from "
            "this process; use the process backend, or give the agent as a file, folder or module"
        )
    bundles = sorted({spec.name for task in tasks for spec in task.seats if spec.kind == BUNDLE})
    if bundles:
        raise BackendUnavailable(f"--backend {backend} cannot run Kaggle bundles ({', '.join(bundles)}): they run "
                                 "unpacked at /kaggle_simulations/agent in the process backend's sandbox")


def backend_runner(name: str) -> Callable[..., None]:
    if name == PROCESS:
        from connectx_toolkit.evaluation.scheduling.pool import run_games

        return run_games
    if name == RAY:
        try:
            from connectx_toolkit.evaluation.scheduling.ray_backend import run_games
        except ModuleNotFoundError as error:
            if error.name == "connectx_toolkit.evaluation.scheduling.ray_backend":  # Ray is optional; the module's message names the fix
                raise BackendUnavailable(error.msg) from None
            raise
        return run_games
    raise BackendUnavailable(f"unknown backend {name!r}")
