"""``--backend ray`` on a private local Ray instance: the same games as the default backend, same isolation.

Ray is optional for users (requirements-ray.txt); CI installs it (.ci/run), so there these tests run.
"""

import importlib.util
import os

import pytest

from connectx_toolkit.evaluation.scheduling import pool
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.match import schedule
from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.scheduling.openings import load_suite
from tests.helpers import FIXTURES

# Ray is imported by the fixture, in the one test worker that runs this file: every worker collects every file
# (importing Ray costs ~0.4 s of CPU)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                                reason="Ray is optional: pip install -r requirements-ray.txt (CI installs it)")

SLEEPER = os.path.join(FIXTURES, "gate_agents", "sleeps_3s.py")


@pytest.fixture(scope="module")
def ray_backend():
    """The backend's module, on a private local Ray instance."""
    import ray

    from connectx_toolkit.evaluation.scheduling import ray_backend

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": ray_backend.ROOT}})
    yield ray_backend
    ray.shutdown()


def tasks(spec_a, spec_b, games, act_timeout=2.0, overage=60.0):
    settings = PlaySettings(act_timeout=act_timeout, overage=overage, seed=3)
    return schedule(spec_a, spec_b, games, load_suite(None, settings.config), settings)


def collect(run, todo, stop_after=None):
    records = []

    def on_record(record):
        records.append(record)
        return stop_after is not None and len(records) >= stop_after

    run(todo, on_record=on_record, settings=PlaySettings(workers=2))
    return sorted(records, key=lambda r: r.game_id)


def test_ray_plays_the_same_games_as_the_process_backend(ray_backend):
    todo = tasks(resolve_agent("greedy"), resolve_agent("random"), 6)
    on_ray = collect(ray_backend.run_games, todo)
    on_processes = collect(pool.run_games, todo)
    assert [r.game_id for r in on_ray] == list(range(6))
    assert [(r.moves, r.outcomes) for r in on_ray] == [(r.moves, r.outcomes) for r in on_processes]


def test_a_slow_agent_forfeits_by_timeout_inside_a_ray_task(ray_backend):
    # 1 s a move: the sleeper's 3 s run out whichever seat it has, while random's first move, which pays for its
    # process's start, stays inside it on a loaded machine (at 0.3 s random timed out first in a CI run, once)
    todo = tasks(resolve_agent(SLEEPER), resolve_agent("random"), 2, act_timeout=1.0, overage=0.0)
    records = collect(ray_backend.run_games, todo)
    assert [r.outcome_of(0) for r in records] == ["timeout", "timeout"]
    assert all(r.outcome_of(1) == "win" for r in records)


def test_stop_ends_scheduling_and_reports_every_started_game_once(ray_backend):
    todo = tasks(resolve_agent("random"), resolve_agent("random"), 12)
    records = collect(ray_backend.run_games, todo, stop_after=1)
    ids = [r.game_id for r in records]
    assert 1 <= len(ids) <= 3 and len(set(ids)) == len(ids)  # the first, plus at most the other running game(s)


def test_the_ray_backend_is_called_through_the_pools_one_signature(ray_backend):
    assert ray_backend.run_games.__code__ is pool.run_games.__code__  # pool.backend's wrapper: one contract
