"""Small checks that several test files share."""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
import textwrap
from typing import Any

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.building.clean_interpreter import CHECK_SCRIPT, run_clean

# The checkout under test, and the tests' shared files in it: a test computes its paths from these, never from its
# own ``__file__`` (the test folders mirror the package and may move).
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures")  # agents and projects the tests build and play
DATA = os.path.join(REPO, "tests", "data")  # recorded games and labelled positions

# The agent a user keeps in an empty folder of their own (the console scripts' and the wheel's tests).
MY_BOT = """\
def agent(obs, config):
    for column in (3, 2, 4, 1, 5, 0, 6):
        if obs.board[column] == 0:
            return column
    return 0
"""


def kaggle_load_script(decoders: str) -> str:
    """A script for ``python -I -c SCRIPT BUILT CASES``: Kaggle's loader on the built file in a clean interpreter
    (the project not importable), then ``decoders = broken`` (the weights' decoders broken) before the agent plays
    the cases (a JSON list of ``{"board", "mark"}`` on 6x7): its moves, printed as JSON, show that the weights were
    decoded at load."""
    return textwrap.dedent(f"""
        import importlib.util, json, runpy, sys
        runpy.run_path({CHECK_SCRIPT!r})["forget_editable_installs"]()
        assert importlib.util.find_spec("agents") is None
        import numpy
        from kaggle_environments.agent import get_last_callable
        from kaggle_environments.utils import Struct
        agent = get_last_callable(open(sys.argv[1]).read(), path=sys.argv[1])
        cases = json.load(open(sys.argv[2]))
        def broken(*args, **kwargs):
            raise AssertionError("weights decoded during a move")
        {decoders} = broken
        moves = [agent(Struct(board=c["board"], mark=c["mark"]), Struct(rows=6, columns=7, inarow=4)) for c in cases]
        assert all(type(move) is int for move in moves), moves
        print(json.dumps(moves))
    """)


def played_without_forfeit(summary: dict[str, Any], games: int, seat: int = 0) -> bool:
    """The agent listed ``seat``-th in a match's summary finished each of ``games`` games without an invalid move,
    an error or a timeout. (Who wins against ``random`` depends on its draws, which the forced opening plies
    consume too: a test of loading and playing asserts that the agent played, not that it won.)"""
    agent = summary["agents"][seat]
    finished = agent["wins"] + agent["draws"] + agent["losses"]
    return finished == games and agent["invalid"] == agent["errors"] == agent["timeouts"] == 0


def drawn_game(seed: int = 7) -> list[int]:
    """A 42-ply game of 6x7 in which nobody ever has four in a row (found by seeded random play)."""
    rng = random.Random(seed)
    while True:
        position, moves = Position(Config()), []
        while position.moves < 42:
            safe = [c for c in position.legal_moves() if not position.is_winning_move(c)]
            if not safe:
                break
            column = rng.choice(safe)
            moves.append(column)
            position = position.played(column)
        if position.moves == 42:
            return moves


# A clean room's first lines, as the validator has them: the editable install forgotten, the project and the
# test fixtures not importable (the toolkit's own rule for ``agents``: kaggle_environments' import puts a folder
# holding another agents.py on sys.path).
CLEAN_ROOM_PRELUDE = f"""
import importlib.util, runpy, sys
_check = runpy.run_path({CHECK_SCRIPT!r})
_check["forget_editable_installs"]()
assert _check["rules"].project_importable() is None, "the project is importable"
assert importlib.util.find_spec("building") is None and importlib.util.find_spec("fxagents") is None
"""


def run_clean_script(script: str, *args: str, cwd: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python -I -c SCRIPT ARGS`` in folder ``cwd`` after the clean room's first lines (``CLEAN_ROOM_PRELUDE``),
    captured as ``subprocess.run`` captures it: through the toolkit's kept clean interpreter
    (``building.clean_interpreter``), so each script is a process of its own without paying kaggle_environments'
    import (~0.5 CPU s) again."""
    return run_clean([sys.executable, "-I", "-c", CLEAN_ROOM_PRELUDE + script, *args], cwd=cwd, timeout=timeout)


@functools.lru_cache(maxsize=None)
def shared_oracle() -> Any:
    """One bitbully ``tools.oracle.Oracle`` for the test process (loading its opening book costs ~0.25 s of CPU each
    time). Its answers are exact, so what one test asked before cannot change another's."""
    from tools.oracle import Oracle

    return Oracle()


def gate_first_checks(candidate: str, baseline: str = "random") -> list[Any]:
    """The gate's load, smoke and validation checks alone, in this process (``evaluation.gate.Check``s, those not
    run left ``passed=None``): what a test of loading and playing asserts, without the strength checks a whole
    gate plays after them (their 8 games against Kaggle's negamax are most of a whole gate's CPU)."""
    from connectx_toolkit.evaluation import gate

    context, load = gate.prepare(gate.GateSettings(candidate=candidate, baseline=baseline, workers=2))
    checks = [load, gate.Check("smoke"), gate.Check("validation")]
    if context is not None:
        gate.check_smoke(context, checks[1])
        if checks[1].passed:
            gate.check_validation(context, checks[2])
    return checks


def taking_turns(names, turns, always=(), start: int = 0, id_of=lambda name, choice: f"{name}-{choice}") -> list:
    """pytest params ``(name, choice)`` for every name with every choice of ``always`` and of ``turns``, for a grid
    whose costly choices are each covered by other names: the default run takes a name's ``always`` and one of
    ``turns``, the names taking the ``turns`` in order from ``start``; the rest are marked slow (``-m slow``)."""
    import pytest

    params = []
    for index, name in enumerate(names, start=start):
        for choice in (*always, *turns):
            later = choice in turns and choice != turns[index % len(turns)]
            params.append(pytest.param(name, choice, id=id_of(name, choice), marks=pytest.mark.slow if later else ()))
    return params
