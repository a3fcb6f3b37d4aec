"""Set-up every test shares."""

import signal

# A suite started in the background by a non-interactive shell (`bash .ci/run &`) inherits SIGINT ignored, and so
# would every program a test starts: a test that stops one with Ctrl-C would wait for ever. A handler of our own
# is reset to the default in the programs the tests start, as an ignored signal is not.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# The longest files first (their summed test times, a run with four workers: test_gate.py's is about twice the
# next): with --dist loadfile a file runs whole on one worker, so a long file that starts last decides when the run
# ends. The rest keep their order.
LONGEST_FIRST = ("test_gate.py", "test_build_kaggle_shapes.py", "test_submit.py", "test_referee_differential.py",
                 "test_sandbox.py", "test_build_any_agent.py", "test_analysis.py", "test_build_import_roots.py",
                 "test_ladder.py", "test_hostile_agents.py")


def pytest_collection_modifyitems(config, items):
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
