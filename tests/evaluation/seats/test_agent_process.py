"""Each seat's agent in its own process: loaded as Kaggle loads it, timed, killed at its deadline, logged."""

from __future__ import annotations

import os
import textwrap
import time

import pytest

from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.referees.kaggle import play_kaggle
from connectx_toolkit.evaluation.referees.native import play_native
from connectx_toolkit.evaluation.scheduling.runner import play_game
from tests.helpers import REPO

ROOT = REPO
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "eval_agents")
SHAPE = {"rows": 6, "columns": 7, "inarow": 4}
CONFIG = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2.0, "timeout": 2}


def fixture(name: str):
    return resolve_agent(os.path.join(FIXTURES, f"{name}.py"))


def write_agent(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return resolve_agent(str(path))


def empty_observation(mark: int = 1) -> dict:
    return {"remainingOverageTime": 60, "step": 0, "board": [0] * 42, "mark": mark}


def test_each_game_starts_from_fresh_module_state(tmp_path):
    counter = write_agent(tmp_path, "counter", """
        calls = 0
        def agent(obs, config):
            global calls
            calls += 1
            return calls
    """)
    with AgentProcess(counter) as process:
        for _ in range(2):
            process.new_game()
            answers = [process.act(empty_observation(), dict(CONFIG), 2.0).action for _ in range(3)]
            assert answers == [1, 2, 3]


def test_the_action_keeps_its_type_and_errors_name_the_agents_line(tmp_path):
    odd = write_agent(tmp_path, "odd", """
        import numpy as np
        VALUES = [None, True, np.int64(3), 3.0, "3", [3], 2**70]
        calls = 0
        def agent(obs, config):
            global calls
            calls += 1
            if calls > len(VALUES):
                raise ValueError("no more values")
            return VALUES[calls - 1]
    """)
    import numpy

    with AgentProcess(odd) as process:
        process.new_game()
        moves = [process.act(empty_observation(), dict(CONFIG), 2.0) for _ in range(8)]
    actions = [move.action for move in moves[:7]]
    assert actions[0] is None and actions[1] is True and type(actions[2]) is numpy.int64
    assert type(actions[3]) is float and actions[4] == "3" and type(actions[5]).__name__ == "UnsupportedAction"
    assert actions[6] == 2**70
    assert moves[7].error.startswith("odd.py:9 in agent: ValueError: no more values")


def test_load_time_is_charged_to_the_first_move_and_a_late_move_is_killed(tmp_path):
    sleepy = write_agent(tmp_path, "sleepy", """
        import time
        time.sleep(0.4)
        def agent(obs, config):
            if obs.step >= 2:
                time.sleep(30)
            return [c for c in range(config.columns) if obs.board[c] == 0][0]
    """)
    record = play_game(sleepy, resolve_agent("random"), act_timeout=0.1, overage=1.0)
    assert record.move_times[0][0] >= 0.4  # the load, inside move 1, paid from the bank
    assert record.statuses[0] == "TIMEOUT" and record.outcomes == ["timeout", "win"]
    assert record.move_times[0][-1] < 5  # killed at its deadline, not waited for


def test_a_killed_process_is_restarted_by_the_next_game():
    with AgentProcess(fixture("sleeps_forever")) as process:
        process.new_game()
        started = time.perf_counter()
        move = process.act(empty_observation(), dict(CONFIG), 0.2)
        assert move.timed_out and time.perf_counter() - started < 3
        assert not process.alive()
        process.new_game()
        assert process.alive()


def test_a_dying_agent_is_an_error_and_its_logs_are_kept():
    with AgentProcess(fixture("exits")) as process:
        process.new_game()
        move = process.act(empty_observation(), dict(CONFIG), 2.0)
        assert move.error is not None and not move.timed_out
    record = play_game(fixture("chatty"), fixture("raises"))
    assert record.logs[0][:2] == ["loading chatty", "thinking"] and len(record.logs[0]) <= 20
    assert record.outcomes == ["win", "error"]
    assert "raises.py:5 in agent: RuntimeError: this agent always fails" == record.error[1]
    assert "RuntimeError" in "\n".join(record.logs[1]) or record.logs[1] == []


@pytest.mark.parametrize("agents", [("greedy", "random"), ("returns_99", "greedy"), ("numpy_int", "greedy"),
                                    ("raises", "greedy"), ("returns_float", "random")])
def test_end_to_end_games_are_the_same_under_both_referees(agents):
    specs = [fixture(name) if os.path.exists(os.path.join(FIXTURES, f"{name}.py")) else resolve_agent(name)
             for name in agents]
    results = []
    for play in (play_native, play_kaggle):
        processes = [AgentProcess(spec) for spec in specs]
        try:
            for seat, process in enumerate(processes):
                process.new_game(seed=5 + seat)
            results.append(play(processes, SHAPE, 2.0, 60.0, (3, 3)))
        finally:
            for process in processes:
                process.close()
    native, kaggle = results
    assert native.moves == kaggle.moves and native.statuses == kaggle.statuses and native.rewards == kaggle.rewards
    strip = [[[{k: v for k, v in agent.items() if k != "observation"} for agent in step] for step in played.steps]
             for played in results]
    assert strip[0] == strip[1]


def test_pinned_cores_play_the_same_games():
    from connectx_toolkit.evaluation.scheduling.match import run_match
    from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

    spec = resolve_agent("greedy")
    plain = run_match(spec, resolve_agent("random"), 4, PlaySettings(workers=2, seed=4))
    pinned = run_match(spec, resolve_agent("random"), 4, PlaySettings(workers=2, seed=4, pin_cores=True))
    assert [r.moves for r in plain] == [r.moves for r in pinned]


def test_a_module_agent_starts_each_game_from_fresh_module_state(tmp_path, monkeypatch):
    """Module agents run from a code object read once per process: the module itself is new each game."""
    package = tmp_path / "statefulpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "counter.py").write_text("calls = 0\n\ndef agent(obs, config):\n    global calls\n    calls += 1\n"
                                        "    return calls\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = resolve_agent("statefulpkg.counter")
    assert spec.kind == "module"
    with AgentProcess(spec) as process:
        for _ in range(2):
            process.new_game()
            assert [process.act(empty_observation(), dict(CONFIG), 2.0).action for _ in range(3)] == [1, 2, 3]


needs_two_cpus = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")


@needs_two_cpus
def test_an_agent_that_runs_threads_gets_every_cpu_back(tmp_path):
    """Started on its worker's core, an agent's process is widened once it has a second thread; a
    single-threaded one stays on the core."""
    threaded = write_agent(tmp_path, "threaded", """
        import os, threading, time
        def agent(obs, config):
            if obs.step == 0:
                threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
            return min(len(os.sched_getaffinity(0)), 6)
    """)
    single = write_agent(tmp_path, "single", """
        import os
        def agent(obs, config):
            return min(len(os.sched_getaffinity(0)), 6)
    """)
    everything = frozenset(os.sched_getaffinity(0))
    for spec, expected in ((threaded, [1, min(len(everything), 6), min(len(everything), 6)]), (single, [1, 1, 1])):
        os.sched_setaffinity(0, {min(everything)})  # as a pinned worker forks it
        try:
            process = AgentProcess(spec, widen_to=everything)
            process.new_game()
        finally:
            os.sched_setaffinity(0, everything)
        with process:
            moves = [process.act({**empty_observation(), "step": step}, dict(CONFIG), 2.0).action for step in range(3)]
        assert moves == expected, spec.name


@needs_two_cpus
def test_workers_and_their_agents_share_a_core_unless_told_not_to(tmp_path):
    from connectx_toolkit.evaluation.scheduling.match import run_match
    from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

    cores = write_agent(tmp_path, "cores", """
        import os
        def agent(obs, config):
            return min(len(os.sched_getaffinity(0)), 6) - 1
    """)
    cpus = min(len(os.sched_getaffinity(0)), 6)
    pinned = run_match(cores, resolve_agent("random"), 2, PlaySettings(workers=1, seed=4))
    free = run_match(cores, resolve_agent("random"), 2, PlaySettings(workers=1, seed=4, pin_cores=False))

    def first_choice(record):
        ply = len(record.opening)
        return record.moves[ply if ply % 2 == record.seats[0] else ply + 1]

    assert [first_choice(record) for record in pinned] == [0, 0]  # one CPU
    assert [first_choice(record) for record in free] == [cpus - 1, cpus - 1]


def _running(pid: int) -> bool:
    """Is ``pid`` a live process (not gone, not a zombie waiting to be reaped)?"""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def _still_running(pids: list[int], wait: float = 2.0) -> list[int]:
    """The ``pids`` still running after at most ``wait`` seconds (a SIGKILL takes a moment to land)."""
    limit = time.monotonic() + wait
    while (alive := [pid for pid in pids if _running(pid)]) and time.monotonic() < limit:
        time.sleep(0.02)
    return alive


def _started_pids(path) -> list[int]:
    return [int(pid) for pid in path.read_text().split()]


@pytest.mark.parametrize("referee", ["native", "kaggle"])
def test_an_agent_may_start_processes_and_none_outlives_its_game(tmp_path, monkeypatch, referee):
    """Kaggle runs an agent that starts a multiprocessing Pool and Process each move; here its process used to
    be a fork of a daemonic worker ("daemonic processes are not allowed to have children"). Whatever it
    leaves running is killed when the game ends, while its own process is kept for the next game."""
    from connectx_toolkit.evaluation.seats.kept_agents import KeptAgents

    pids = tmp_path / "pids"
    monkeypatch.setenv("PIDS_FILE", str(pids))
    hosts = KeptAgents()
    try:
        record = play_game(fixture("starts_processes"), resolve_agent("random"), [3, 3], referee=referee,
                           hosts=hosts)
        assert record.outcomes[0] in ("win", "loss", "draw") and record.error == [None, None], record.error
        started = _started_pids(pids)
        assert len(started) == 3 * len(record.move_times[0]) >= 3 * 4
        assert _still_running(started) == []
        assert all(process.alive() for process in hosts._idle)  # the agents' own processes are kept
    finally:
        hosts.close()


def test_what_an_agent_started_dies_with_it_at_its_deadline(tmp_path, monkeypatch):
    """However many processes the agent managed to start before its deadline (a busy machine starts fewer:
    it used to expect 6 and found 3), every one of them dies with it. Its first move hangs once its pool is
    up, so the deadline is what ends it; 2.5 s leave it time to start at least its first process."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("PIDS_FILE", str(pids))
    monkeypatch.setenv("HANG_AT_STEP", "0")
    record = play_game(fixture("starts_processes"), resolve_agent("random"), act_timeout=0.5, overage=2.0)
    assert record.outcomes[0] == "timeout"
    started = _started_pids(pids) if pids.exists() else []
    assert started, "the agent started no process before its deadline"
    assert _still_running(started) == []


def test_an_agent_may_start_processes_in_the_sandbox(tmp_path):
    from connectx_toolkit.evaluation.seats.process_limits import process_tree
    from connectx_toolkit.evaluation.seats.kept_agents import KeptAgents
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    hosts = KeptAgents(sandbox=True)
    try:
        record = play_game(fixture("starts_processes"), resolve_agent("random"), [3, 3], hosts=hosts)
        assert record.error == [None, None], record.error
        process = next(process for process in hosts._idle if process.spec.name.endswith("starts_processes.py"))
        host = process._host_pid(process_tree(process.pid))
        assert host is not None and process.alive()
        assert _still_running(process_tree(host)[1:]) == []  # the pool and the background process are gone
    finally:
        hosts.close()


@needs_two_cpus
def test_a_one_worker_run_starts_on_the_core_it_runs_on_not_always_the_first(tmp_path, monkeypatch):
    """Two runs side by side (two commands, parallel tests) each start on the core the scheduler gave them:
    always starting at the first CPU piled every one-worker run onto one core."""
    from connectx_toolkit.evaluation.scheduling import pool
    from connectx_toolkit.evaluation.scheduling.match import run_match
    from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings

    which = write_agent(tmp_path, "which", """
        import os
        def agent(obs, config):
            return min(min(os.sched_getaffinity(0)), 6)
    """)
    cpus = sorted(os.sched_getaffinity(0))
    last = [cpu for cpu in cpus if cpu <= 6][-1]
    monkeypatch.setattr(pool, "_running_cpu", lambda: last)
    assert pool._from_running_cpu(cpus)[0] == last
    played = run_match(which, resolve_agent("random"), 2, PlaySettings(workers=1, seed=4))

    def first_choice(record):
        ply = len(record.opening)
        return record.moves[ply if ply % 2 == record.seats[0] else ply + 1]

    assert [first_choice(record) for record in played] == [last, last]


@pytest.mark.parametrize("referee", ["native", "kaggle"])
def test_each_game_runs_the_agents_file_once_in_a_process_of_its_own(referee):
    """A file that sets multiprocessing's start method as it loads (and raises if it runs twice in a process):
    Kaggle runs it once in an episode's process. Here each seat's kept process played every game and ran the file
    again at each: "context has already been set" from the second game on (and at the first in a process forked
    from a worker, whose multiprocessing had already chosen "fork")."""
    from connectx_toolkit.evaluation.seats.kept_agents import KeptAgents

    hosts = KeptAgents()
    try:
        records = [play_game(fixture("runs_once"), fixture("runs_once"), [3, 3], seed=game, referee=referee,
                             hosts=hosts) for game in range(3)]
    finally:
        hosts.close()
    assert [record.error for record in records] == [[None, None]] * 3
    assert all(record.statuses == ["DONE", "DONE"] for record in records)


def test_a_bundles_main_runs_once_in_each_games_process(tmp_path):
    """The same file as a Kaggle bundle's main.py (run in its sandbox, at /kaggle_simulations/agent): 2 of 4 match
    games were errors ("context has already been set"), the second game of each seat's kept process."""
    from connectx_toolkit.evaluation.seats.kept_agents import KeptAgents
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    with open(os.path.join(FIXTURES, "runs_once.py")) as handle:  # a bundle's main.py names Kaggle's folder
        (bundle / "main.py").write_text('import sys\nsys.path.append("/kaggle_simulations/agent")\n' + handle.read())
    spec = resolve_agent(str(bundle))
    assert spec.kind == "bundle"
    hosts = KeptAgents()
    try:
        records = [play_game(spec, resolve_agent("random"), [3, 3], seed=game, hosts=hosts) for game in range(2)]
    finally:
        hosts.close()
    assert [record.error for record in records] == [[None, None]] * 2


@needs_two_cpus
def test_a_process_an_agent_forks_may_use_every_cpu_from_its_first_move(tmp_path):
    """Started on its worker's core (``--pin-cores``, the default), an agent's process was widened only once it ran
    threads: a worker it forked inherited the one core and shared it with its parent, so that a search split
    between them lost its races (an MCTS agent's KeyError in 9 of 25 first moves, 0 of 11 under
    kaggle_environments). Widened before its first fork, the worker gets every core, as under Kaggle's runner."""
    everything = frozenset(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {min(everything)})  # as a pinned worker forks it
    try:
        process = AgentProcess(fixture("forks_a_worker"), widen_to=everything)
        process.new_game()
    finally:
        os.sched_setaffinity(0, everything)
    with process:
        moves = [process.act({**empty_observation(), "step": step}, dict(CONFIG), 30.0) for step in range(2)]
    assert [move.error for move in moves] == [None, None]
    assert [move.action for move in moves] == [min(len(everything), 6)] * 2
