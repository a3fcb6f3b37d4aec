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


def pytest_collection_modifyitems(config, items):
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
