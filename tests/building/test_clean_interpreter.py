"""The kept clean interpreter (building/clean_interpreter.py) answers every check as a fresh ``python -I`` does.

Differential: the builder's validation and the gate's clean-room load check give the same report and the same
answer through a child of the kept interpreter as through a fresh interpreter (``CONNECTX_CLEAN_ROOM=fresh``),
for agents of every outcome, timings aside. Then what a fork could get wrong: each check's generators are its
own, it sees the caller's environment of the moment, a check that overruns is killed with what it started and
the next one is served, and a kept interpreter that died is replaced by fresh interpreters.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest

from connectx_toolkit.building import clean_interpreter
from connectx_toolkit.building.errors import ValidationError
from connectx_toolkit.building.validation import validate
from connectx_toolkit.evaluation.seats.clean_room import clean_room_load

LEFTMOST = """
def agent(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
"""

AGENTS = {
    "plays": LEFTMOST,
    "prints and imports numpy": "import numpy\nprint('hello from the agent')\n" + LEFTMOST,
    "returns None at its third move": """
def agent(obs, config):
    if sum(1 for cell in obs.board if cell == obs.mark) >= 2:
        return None
    return [c for c in range(config.columns) if obs.board[c] == 0][0]
""",
    "raises at its second move": """
def agent(obs, config):
    if sum(1 for cell in obs.board if cell == obs.mark) >= 1:
        raise ValueError("no idea")
    return 3
""",
    "raises at import": "import json\njson.loads('{')\n" + LEFTMOST,
    "exits at import": "raise SystemExit(3)\n" + LEFTMOST,
    "defines no callable": "VALUE = 3\n",
    "tries a file it lives without": """
try:
    with open("weights.txt") as handle:
        COLUMN = int(handle.read())
except OSError:
    COLUMN = 3
""" + LEFTMOST,
    "imports a sibling": "import helper\n" + LEFTMOST,
    "looks at its folder and its arguments": """
import os, sys
if os.listdir(".") or os.getcwd() == "/" or len(sys.argv) < 2:
    raise RuntimeError(f"not a clean room: {os.getcwd()} {sys.argv}")
""" + LEFTMOST,
}

def without_chance(report: dict) -> dict:
    """The report less what differs from run to run in any interpreter: timings, and the moves and results of
    the games against Kaggle's random and negamax (both draw among their choices); what failed stays."""
    kept = {key: value for key, value in report.items() if key not in ("load_s", "games")}
    kept["games"] = [{key: value for key, value in game.items()
                      if key != "max_move_s" and (game["opponent"] == "itself" or key in ("opponent", "seat", "failure"))}
                     for game in report.get("games", [])]
    return kept


@pytest.fixture
def fresh(monkeypatch):
    def use_fresh(on: bool) -> None:
        if on:
            monkeypatch.setenv(clean_interpreter.FRESH, "fresh")
        else:
            monkeypatch.delenv(clean_interpreter.FRESH, raising=False)
    return use_fresh


def validated(text: str) -> dict | str:
    """The report, less chance (``without_chance``) and its temporary folder's name, or the ValidationError's
    message."""
    try:
        report = without_chance(validate(text))
    except ValidationError as error:
        return str(error)
    return json.loads(untemp(json.dumps(report)))


def untemp(text: str | None) -> str | None:
    """``text`` with the check's temporary folders named alike."""
    return None if text is None else re.sub(r"connectx-(check|clean-room)-[a-z0-9_]+", r"connectx-\1-TMP", text)


# The default run's sample: the exit code, the folder and arguments, a read, and the games of an agent that plays
# them all (the fresh interpreter costs a second of CPU each); -m slow runs every agent above.
SAMPLE = ("exits at import", "looks at its folder and its arguments", "tries a file it lives without")
EVERY = [pytest.param(tuple(AGENTS), marks=pytest.mark.slow, id="every"), pytest.param(SAMPLE, id="sample")]


@pytest.mark.parametrize("names", EVERY)
def test_validation_reports_are_a_fresh_interpreters(fresh, names):
    for name in names:
        text = AGENTS[name]
        fresh(True)
        expected = validated(text)
        fresh(False)
        assert validated(text) == expected, name
    assert clean_interpreter._kept is not None and clean_interpreter._kept.alive  # the kept one answered


@pytest.mark.parametrize("names", EVERY)
def test_load_answers_are_a_fresh_interpreters(fresh, tmp_path, names):
    for name in names:
        text = AGENTS[name]
        path = tmp_path / "agent.py"
        path.write_text(text)
        fresh(True)
        expected, _ = clean_room_load(str(path))
        fresh(False)
        answer, seconds = clean_room_load(str(path))
        assert untemp(answer) == untemp(expected), name
        assert (seconds is not None) == (answer is None), name


def test_each_check_draws_its_own_random_numbers_and_sees_the_environment_of_the_moment(tmp_path, monkeypatch):
    out = tmp_path / "drawn.txt"
    text = f"""
import os, random, numpy
with open({str(out)!r}, "a") as handle:
    handle.write(f"{{random.random()}} {{numpy.random.random()}} {{os.environ.get('CONNECTX_TEST_VALUE')}}\\n")
""" + LEFTMOST
    for value in ("first", "second"):
        monkeypatch.setenv("CONNECTX_TEST_VALUE", value)
        assert validate(text)["ok"]
    lines = [line.split() for line in out.read_text().splitlines()]
    firsts = [line for line in lines if line[2] == "first"]
    seconds = [line for line in lines if line[2] == "second"]
    assert firsts and seconds  # the environment as the caller had it at each check
    assert firsts[0][0] != seconds[0][0] and firsts[0][1] != seconds[0][1]  # random and numpy reseeded per check


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie left to its parent counts as gone
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_check_that_overruns_is_killed_with_what_it_started_and_the_next_is_served(tmp_path):
    pids = tmp_path / "pids.txt"
    hangs = f"""
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open({str(pids)!r}, "w") as handle:
    handle.write(f"{{os.getpid()}} {{child.pid}}")
time.sleep(600)
""" + LEFTMOST
    validate(LEFTMOST)  # the kept interpreter is up
    kept = clean_interpreter._kept
    started = time.monotonic()
    with pytest.raises(ValidationError, match="did not finish within 2 s"):
        validate(hangs, timeout=2)
    assert time.monotonic() - started < 20
    deadline = time.monotonic() + 5
    while any(alive(int(pid)) for pid in pids.read_text().split()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(int(pid)) for pid in pids.read_text().split())
    assert validate(LEFTMOST)["ok"] and clean_interpreter._kept is kept and kept.alive


def test_a_kept_interpreter_that_died_gives_way_to_fresh_ones(monkeypatch):
    monkeypatch.setattr(clean_interpreter, "_kept", None)
    monkeypatch.setattr(clean_interpreter, "_failed", False)
    expected = without_chance(validate(LEFTMOST))
    kept = clean_interpreter._kept
    assert kept is not None
    os.kill(kept.process.pid, signal.SIGKILL)
    kept.process.wait()
    assert without_chance(validate(LEFTMOST)) == expected  # answered by a fresh interpreter
    assert clean_interpreter._kept is None and clean_interpreter._failed
