"""Small checks that several test files share."""

from __future__ import annotations

import atexit
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
from typing import Any

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.building.validation import CHECK_SCRIPT

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


# The clean interpreter's server: the validator's clean room set up once (the project forgotten and checked not
# importable before kaggle_environments is imported, which puts a folder holding an agents.py on sys.path), then
# kaggle_environments imported once; each request is a forked child, so every file is loaded in a fresh process.
_CLEAN_SERVER = """
import importlib.util, json, os, runpy, sys, traceback
runpy.run_path(sys.argv[1])["forget_editable_installs"]()  # as the validator does
for name in ("agents", "building", "connectx_toolkit", "fxagents"):
    assert importlib.util.find_spec(name) is None, name + " is importable"
import kaggle_environments, kaggle_environments.agent, kaggle_environments.utils
while True:
    line = sys.stdin.readline()
    if not line:
        break
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(request["cwd"])
            for fd, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
            sys.argv = ["-c", *request["argv"]]
            exec(compile(request["script"], "<string>", "exec"), {"__name__": "__main__"})
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (stop.code is not None)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


class CleanInterpreter:
    """``python -I -c SCRIPT ARGS`` in a clean interpreter (an empty folder, the project not importable, as the
    builder's validation runs), kaggle_environments already imported: importing it costs ~0.5 CPU s a process, paid
    here once per test process; each script still runs in a process of its own (forked from the clean one)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.folder = ""

    def start(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            self.folder = tempfile.mkdtemp(prefix="clean_interpreter_")
            os.mkdir(os.path.join(self.folder, "cwd"))
            self.process = subprocess.Popen([sys.executable, "-I", "-c", _CLEAN_SERVER, CHECK_SCRIPT],
                                            cwd=os.path.join(self.folder, "cwd"), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, text=True, start_new_session=True)
        return self.process

    def run(self, script: str, *args: str, cwd: str, timeout: float = 180) -> subprocess.CompletedProcess:
        """``subprocess.run([sys.executable, "-I", "-c", script, *args], cwd=cwd, capture_output=True, text=True)``
        as that clean interpreter runs it."""
        process = self.start()
        out, err = (os.path.join(self.folder, name) for name in ("stdout", "stderr"))
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"script": script, "argv": list(args), "cwd": cwd, "stdout": out,
                                        "stderr": err}) + "\n")
        process.stdin.flush()
        if not select.select([process.stdout], [], [], timeout)[0]:
            self.close()
            raise subprocess.TimeoutExpired(script, timeout)
        code = int(process.stdout.readline())
        with open(out, encoding="utf-8") as stdout, open(err, encoding="utf-8") as stderr:
            return subprocess.CompletedProcess(["-c", script, *args], code, stdout.read(), stderr.read())

    def close(self) -> None:
        if self.process is not None:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.process = None
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


CLEAN_INTERPRETER = CleanInterpreter()  # one per test process, started on first use
atexit.register(CLEAN_INTERPRETER.close)
