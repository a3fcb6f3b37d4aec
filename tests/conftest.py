"""Set-up every test shares."""

import glob
import os
import signal
import subprocess
import sys

# A suite started in the background by a non-interactive shell (`bash .ci/run &`) inherits SIGINT ignored, and so
# would every program a test starts: a test that stops one with Ctrl-C would wait for ever. A handler of our own
# is reset to the default in the programs the tests start, as an ignored signal is not.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The longest files first (their summed test times, --durations=0, four workers on two cores: 70, 61, 47, 44,
# 37, 33 and 26 s): with --dist loadfile a file runs whole on one worker, so a long file that starts last
# decides when the run ends. The rest keep their order.
LONGEST_FIRST = ("test_gate.py", "test_outcome_book.py", "test_referee_differential.py", "test_build_kaggle_shapes.py",
                 "test_analysis.py", "test_ladder.py", "test_hostile_agents.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


# The compiled solver (connectx_toolkit/analysis/fast_solver.py) is compiled by numba on first use and cached in
# the __pycache__ beside it (cache=True). On a fresh clone nothing is cached, and every process that starts
# before the first compile has written its cache compiles it again: the workers, the analysis's forked solver
# pools (two workers and a spare each), tools/make_outcomes.py's jobs, about 3.5 s of CPU each on an idle core.
# So the controller compiles it once, before the workers start, when the cache is missing or older than the
# source (a warm run pays one glob). Every public entry point is called, as each is cached on its own.
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST_SOLVER = os.path.join(REPOSITORY, "connectx_toolkit", "analysis", "fast_solver.py")
WARM_UP = """
from connectx_toolkit.analysis.fast_solver import Solver, parse_moves
solver = Solver(table_size=1 << 12)
quiet = "257771314744647214154617633623313"  # 33 stones, no immediate win: every root path runs
solver.solve(quiet); solver.score_moves(quiet); solver.best_move(quiet)
position = parse_moves(quiet)
outcome = solver.outcome_bitboards(*position)
solver.outcome_with_move_bitboards(*position); solver.move_keeping_bitboards(*position, max(outcome, 0))
"""


def numba_cache_is_warm() -> bool:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False  # numba's own rules decide where; compile once to be sure
    indexes = glob.glob(os.path.join(os.path.dirname(FAST_SOLVER), "__pycache__", "fast_solver.*.nbi"))
    return len(indexes) >= 4 and min(map(os.path.getmtime, indexes)) >= os.path.getmtime(FAST_SOLVER)


def pytest_configure(config):
    if hasattr(config, "workerinput") or numba_cache_is_warm():  # an xdist worker: the controller did it
        return
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (REPOSITORY, os.environ.get("PYTHONPATH")) if p))
    try:  # an optimisation only: without numba, or if it fails, the tests that need it say so themselves
        subprocess.run([sys.executable, "-c", WARM_UP], env=env, capture_output=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired):
        pass
