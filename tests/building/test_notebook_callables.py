"""A function from a notebook is judged as the file the builder makes of it (Kaggle's view), and its errors
point at the cells.

The notebook here is IPython's own bookkeeping, reproduced: each cell's code compiled under a file name
of its own kept in ``linecache`` (ipykernel's ``/tmp/ipykernel_PID/HASH.py``) and the cells' code in
``_ih`` in execution order, all executed in one namespace named ``__main__``.
"""

from __future__ import annotations

import json
import linecache
from typing import Any

import pytest

from connectx_toolkit.building import build
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.api import play_match
from tests.helpers import REPO

ROOT = REPO


def notebook(*cells: str) -> dict[str, Any]:
    """Run ``cells`` as IPython runs them; the user namespace."""
    namespace: dict[str, Any] = {"__name__": "__main__", "_ih": [""]}
    for code in cells:
        number = len(namespace["_ih"])
        namespace["_ih"].append(code)
        filename = f"/tmp/ipykernel_4242/{2_000_000 + number}.py"
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        exec(compile(code, filename, "exec"), namespace)
    return namespace


COUNTER = "calls = 0\n"
STATEFUL = '''\
def agent(obs, config):
    global calls
    calls += 1
    if calls > 21:  # a seat makes at most 21 moves a game: more means state leaked from another game
        raise RuntimeError(f"move {calls} in one game")
    return [c for c in range(config.columns) if obs.board[c] == 0][len(obs.board) % 2 - 1]
'''
RUN_IT = '''\
from kaggle_environments.utils import Struct
for _ in range(4):
    agent(Struct(board=[0] * 42, mark=1), Struct(columns=7))
'''


def test_a_stateful_cell_agent_starts_every_game_from_its_cells_values():
    namespace = notebook(COUNTER, STATEFUL, RUN_IT)
    assert namespace["calls"] == 4
    spec = resolve_agent(namespace["agent"])
    assert spec.kind == "built"
    assert "`calls` is 4 here, 0 in In [1]: the submission starts from 0" in spec.note
    result = play_match(namespace["agent"], "greedy", games=10, workers=2)
    assert result["agents"][0]["errors"] == 0, result["agents"][0]["error_messages"]


def test_build_embeds_the_value_the_cell_writes_and_says_so(tmp_path):
    namespace = notebook(COUNTER, STATEFUL, RUN_IT)
    report = build(namespace["agent"], str(tmp_path / "submission.py"))
    text = (tmp_path / "submission.py").read_text()
    assert "calls = 0" in text and "calls = 4" not in text
    assert any("`calls` is 4 here, 0 in In [1]" in note for note in report.notes), report.notes


def test_a_computed_global_is_taken_as_built_with_a_note():
    namespace = notebook("WEIGHTS = [min(c, 6 - c) for c in range(7)]\n", '''\
def agent(obs, config):
    legal = [c for c in range(config.columns) if obs.board[c] == 0]
    return max(legal, key=lambda c: WEIGHTS[c])
''')
    spec = resolve_agent(namespace["agent"])
    assert spec.kind == "built"
    assert "`WEIGHTS` is computed in In [1] (`WEIGHTS = [min(c, 6 - c) for c in range(7)]`): taken as built" in spec.note


def test_the_cell_function_the_built_file_and_its_path_play_the_same_games(tmp_path):
    namespace = notebook("import random\n", '''\
def agent(obs, config):
    legal = [c for c in range(config.columns) if obs.board[c] == 0]
    return random.choice(legal)
''')
    built = tmp_path / "submission.py"
    build(namespace["agent"], str(built))
    games = []
    for agent in (namespace["agent"], str(built)):
        results = tmp_path / f"r{len(games)}.jsonl"
        play_match(agent, "greedy", games=6, workers=2, seed=5, results=str(results))
        records = [json.loads(line) for line in results.read_text().splitlines()[1:]]
        games.append(sorted((record["game_id"], record["moves"], record["statuses"]) for record in records))
    assert games[0] == games[1]


def test_an_error_is_told_at_the_cells_through_the_agents_own_frames():
    namespace = notebook("import math\n", "def explode(board):\n    raise ValueError('boom')\n", '''\
def helper(obs):
    return explode(obs.board)


def agent(obs, config):
    return helper(obs)
''')
    result = play_match(namespace["agent"], "random", games=2, workers=1)
    (message,) = result["agents"][0]["error_messages"]
    assert message["message"] == ("In [3], line 6 in agent → In [3], line 2 in helper → In [2], line 2 in explode: "
                                  "ValueError: boom")


def test_the_builders_validation_tells_the_cell_too(tmp_path):
    from connectx_toolkit.building import BuildError

    namespace = notebook("def explode(board):\n    raise ValueError('boom')\n",
                         "def agent(obs, config):\n    return explode(obs.board)\n")
    with pytest.raises(BuildError) as raised:
        build(namespace["agent"], str(tmp_path / "submission.py"))
    assert "In [1], line 2 in explode: ValueError: boom" in str(raised.value)


def test_a_closure_is_played_live_and_the_note_says_why():
    limit = 3

    def closure_agent(obs, config):
        return [c for c in range(config.columns) if obs.board[c] == 0][0] if limit else 0

    spec = resolve_agent(closure_agent)
    assert spec.kind == "callable"
    assert "played as the live object" in spec.note and "local variables of an enclosing function" in spec.note
