"""A raw agent with ``@njit(cache=True)`` plays as on Kaggle: a fresh numba cache every game (Kaggle loads the file
once per episode on a fresh machine), never the cache in the user's own folder, which gains no file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from connectx_toolkit.cli import evaluate
from tests.helpers import REPO, played_without_forfeit

AGENT = os.path.join(REPO, "tests", "fixtures", "numba_agents", "zobrist_cached.py")
# Loads the file as Kaggle's loader does, in the folder it lies in, with other Zobrist keys: numba writes its cache
# beside it (``__pycache__``), as a user's own run of the agent would have left it
_EARLIER_RUN = """
import sys
import numpy as np
from kaggle_environments.agent import get_last_callable
np.random.seed(12345)
path = sys.argv[1]
with open(path) as handle:
    agent = get_last_callable(handle.read(), path=path)
class Struct(dict):
    __getattr__ = dict.__getitem__
print(agent(Struct(board=[0] * 42, mark=1, step=0), Struct(rows=6, columns=7, inarow=4)))
"""


def _files(folder) -> dict[str, tuple[int, int]]:
    """Every file below ``folder``: its size and modification time."""
    found = {}
    for parent, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(parent, name)
            found[os.path.relpath(path, folder)] = (os.path.getsize(path), os.stat(path).st_mtime_ns)
    return found


@pytest.mark.parametrize("cache, isolation", [
    ("stale", "plain"), ("corrupt", "plain"), pytest.param("stale", "sandbox", marks=pytest.mark.slow)])
def test_a_cached_numba_agent_compiles_afresh_every_game_and_leaves_its_folder_alone(tmp_path, capsys, cache,
                                                                                    isolation):
    """The folder holds a cache written by an earlier run (other keys frozen into the compiled code; numba also
    fails to rebuild a cached function's environment for a file exec'd as Kaggle execs it) or a corrupt one: loaded on
    it, every game of the agent raised. One worker plays every game in one kept agent process, loading the agent
    afresh each game, as a second game on a cache the first wrote did too."""
    if isolation == "sandbox":
        from connectx_toolkit.sandbox import SandboxUnavailable, require

        try:
            require()
        except SandboxUnavailable as error:
            pytest.skip(str(error))
    folder = tmp_path / "bot"
    folder.mkdir()
    agent = folder / "bot.py"
    shutil.copyfile(AGENT, agent)
    earlier = subprocess.run([sys.executable, "-c", _EARLIER_RUN, str(agent)], cwd=folder, capture_output=True,
                             text=True, timeout=120)
    assert earlier.returncode == 0, earlier.stderr[-2000:]
    index = [name for name in os.listdir(folder / "__pycache__") if name.endswith(".nbi")]
    assert len(index) == 1, os.listdir(folder / "__pycache__")
    if cache == "corrupt":
        (folder / "__pycache__" / index[0]).write_bytes(b"not a pickle")
    before = _files(folder)
    code = evaluate.main([str(agent), "random", "-n", "4", "--workers", "1", "--json", "--results",
                          str(tmp_path / "r.jsonl"), *(["--sandbox"] if isolation == "sandbox" else [])])
    out = capsys.readouterr().out
    assert code == 0
    summary = json.loads(out)
    assert played_without_forfeit(summary, 4), summary["agents"][0]["error_messages"]
    assert _files(folder) == before  # no cache, no bytecode, nothing touched


def test_each_game_has_its_own_cache_folder_and_a_closed_process_leaves_none(tmp_path):
    """Without numba itself: the folder the agent's process is told to cache in (``NUMBA_CACHE_DIR``), per game."""
    from connectx_toolkit.evaluation.seats.agent_process import AgentProcess
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

    agent = tmp_path / "says_its_cache.py"
    agent.write_text("import os\nprint('cache', os.environ.get('NUMBA_CACHE_DIR'))\n\n"
                     "def agent(obs, config):\n    return 3\n")
    process = AgentProcess(resolve_agent(str(agent)))
    folders = []
    try:
        for game in range(2):
            process.new_game(game)
            board = {"remainingOverageTime": 60, "step": 0, "board": [0] * 42, "mark": 1}
            assert process.act(board, {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2, "timeout": 2}, 5).action == 3
            (line,) = [line for line in process.logs() if line.startswith("cache ")]
            folders.append(line.split(" ", 1)[1])
            process.end_game()
    finally:
        process.close()
    assert len(set(folders)) == 2 and all(folder.startswith("/") for folder in folders), folders
    assert not any(folder.startswith(str(tmp_path)) for folder in folders)
    assert not os.path.exists(os.path.dirname(folders[0]))  # removed with its process
