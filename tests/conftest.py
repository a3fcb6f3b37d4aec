"""Set-up every test shares."""

import signal
import time

import pytest

# A suite started in the background by a non-interactive shell (`bash .ci/run &`) inherits SIGINT ignored, and so
# would every program a test starts: a test that stops one with Ctrl-C would wait for ever. A handler of our own
# is reset to the default in the programs the tests start, as an ignored signal is not.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The longest files first (their summed test times, a run with four workers: the gate's is about twice the next):
# with --dist loadfile a file runs whole on one worker, so a long file that starts last decides when the run ends.
# The rest keep their order. Paths from the repository's root, as in the tests' node ids.
LONGEST_FIRST = ("tests/evaluation/test_gate.py", "tests/building/test_kaggle_shapes.py", "tests/on_kaggle/test_submit.py",
                 "tests/evaluation/referees/test_differential.py", "tests/sandbox/test_sandbox.py",
                 "tests/building/test_any_agent.py", "tests/analysis/test_analysis.py", "tests/building/test_import_roots.py",
                 "tests/on_kaggle/test_ladder.py", "tests/evaluation/seats/test_hostile_agents.py")


# Long integration checks, run apart (`-m integration`; .ci/run runs them after the default suite, on every CI run):
# each drives a whole outside stack (a browser, a Jupyter kernel, a Ray cluster, numba compiling in clean
# interpreters, console scripts and whole jobs from another folder) or replays the shipped data end to end, and
# together they were about 30 % of the default suite's time (docs/testing.md). The rules each of them ends in are
# checked in the default run by faster tests. A file's path, or a test's node id up to a prefix of its name.
INTEGRATION = (
    "tests/board/test_browser.py",  # Selenium drives Chromium
    "tests/project/test_notebooks.py",  # notebooks run on Jupyter kernels
    "tests/evaluation/scheduling/test_ray_backend.py",  # a local Ray cluster
    "tests/building/test_numba_cache.py",  # numba compiles in each clean interpreter
    "tests/evaluation/seats/test_numba_cache.py",
    "tests/cli/test_console_scripts.py",  # the installed console scripts from another folder
    "tests/cli/test_old_forms.py",  # the older commands' whole jobs, beside the new forms
    "tests/agents/test_solver_oracle.py",  # full games against a perfect player
    "tests/bench/",  # the benchmarks' own smoke runs
    "tests/on_kaggle/test_ladder.py::test_a_ladder_of_100_episodes",
    "tests/analysis/test_replay.py::test_annotated_replay_renders_in_headless_chromium",
    "tests/evaluation/reports/test_replays.py::test_replay_renders_in_headless_chromium",
    "tests/agents/test_outcome_book.py::test_the_shipped_outcome_book_keeps_the_outcome",
    "tests/agents/test_outcome_book.py::test_the_shipped_outcome_book_is_rebuilt",
    "tests/agents/test_outcome_book.py::test_parents_bound_the_outcomes",
    "tests/agents/test_outcome_book.py::test_the_coverage_report_adds_up",
    "tests/agents/test_book.py::test_book_covers_the_agents_whole_tree",
    "tests/agents/test_book.py::test_builder_covers_the_trees_with_best_moves",
    "tests/measuring/test_benchmark.py::test_the_small_test_benchmark_is_what_its_maker_makes",
    # the n-tuple learner killed with SIGKILL and resumed, three trainer processes compiling numba
    "tests/training/test_ntuple_trainer.py::test_a_run_killed_and_resumed_ends_with_the_weights_of_one_that_never",
    # --runs: two runs stopped by Ctrl-C and resumed; two runs on a local Ray cluster beside two on processes
    "tests/training/test_ntuple_runs.py::test_ctrl_c_to_the_command_alone",
    "tests/training/test_ntuple_runs.py::test_two_runs_on_a_local_ray_cluster",
    "tests/training/test_ntuple_runs.py::test_two_runs_on_processes_keep_the_most_accurate_as_outs_agent",  # numba compiles in each process
    "tests/training/test_accuracy_callbacks.py",  # MaskablePPO trained twice (where requirements-train.txt is)
)


@pytest.hookimpl(tryfirst=True)  # before pytest's own -m filter, which then sees the marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.startswith(INTEGRATION):
            item.add_marker(pytest.mark.integration)
    rank = {path: index for index, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(params=["cpu", pytest.param("wall", marks=pytest.mark.realclock)])
def search_clock(request, monkeypatch):
    """The clock an agent's search reads (``time.perf_counter``: ``MoveClock``, the depth search) and a test
    measures the move by. By default this thread's CPU seconds: a search's deadline and its overrun are then
    counted in the work it did, which a loaded machine does not stretch (it stretches wall time several times
    over), while a search that ignored its deadline would still burn CPU far past it. The real clock under
    ``-m realclock``."""
    if request.param == "wall":
        yield time.perf_counter
        return
    from connectx_toolkit.agents import solver

    origin, cpu = time.perf_counter(), time.thread_time()

    def clock() -> float:
        return origin + (time.thread_time() - cpu)

    solver._engines.clear()  # a search keeps the clock it was built with
    monkeypatch.setattr(time, "perf_counter", clock)
    yield clock
    solver._engines.clear()


@pytest.fixture
def bubblewrap() -> None:
    """Skips the test, saying why and what to install, where no bubblewrap sandbox can be built: a Kaggle bundle
    is validated and played unpacked at /kaggle_simulations/agent, which only the sandbox binds (.ci/run installs
    bubblewrap; the toolkit itself says the same in one line, which test_bundle.py checks)."""
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
