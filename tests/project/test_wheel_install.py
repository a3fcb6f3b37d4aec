"""The toolkit installed from its wheel, as a user without the checkout has it (issue 39).

The wheel of this checkout is installed (``--no-deps``, not editable) into a fresh virtual environment that holds
the pinned requirements the way docs/notebooks.md installs them (requirements.txt, then requirements-kaggle.txt
with ``--no-deps``), beside two packages that take the generic names the toolkit must not use: Hugging Face's
``evaluate`` and openai-agents' ``agents`` (both fail on import without their dependencies; if they cannot be
installed, stand-ins that raise on import take their place). Then, from an empty folder and with no PYTHONPATH,
the console scripts, the Python API and the board run, and the checkout is never importable.

Slow (a virtual environment and its installs: 45-55 s of its 75-95 s, from pip's cache), so marked ``wheel``: excluded
from the default run, run by .ci/run as a step of its own (``bash run.sh test -m wheel -n 0``).
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from dataclasses import dataclass, field
from typing import Iterator

import pytest
from tests.helpers import MY_BOT, played_without_forfeit, REPO

pytestmark = pytest.mark.wheel

ROOT = REPO
PACKAGE = "connectx_toolkit"
# Packages whose import names are the generic ones the toolkit left (its evaluate.py, its agents/).
NAME_TAKERS = {"evaluate": "evaluate", "agents": "openai-agents"}
# What the copy of the checkout leaves out: what .gitignore lists, wherever a build or a run left it.
LEFT_OUT_ANYWHERE = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache"}
LEFT_OUT_AT_ROOT = {"build", "results", "ladder"}


@dataclass
class Installed:
    """The fresh environment with the wheel installed in it."""

    prefix: str
    python: str
    site_packages: str
    wheel: str
    added: list[str]  # the top-level names of site-packages the wheel added
    name_takers: dict[str, str]  # import name: what holds it (the package installed, or "stand-in")
    seconds: dict[str, float] = field(default_factory=dict)

    def script(self, name: str) -> str:
        return os.path.join(self.prefix, "bin", name)

    def env(self) -> dict[str, str]:
        """A user's shell with the environment activated: nothing of the checkout's or the suite's Python set-up."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "VIRTUAL_ENV"}
        env["PATH"] = os.path.join(self.prefix, "bin") + os.pathsep + env.get("PATH", "")
        env["VIRTUAL_ENV"] = self.prefix
        return env

    def run(self, command: list[str], cwd, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run(command, cwd=cwd, env=self.env(), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)


def pip(python: str, *args: str) -> None:
    """This interpreter's pip installing into the environment of ``python`` (pip's --python: the environment
    needs no pip of its own, which spares the venv's ensurepip)."""
    command = [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--disable-pip-version-check",
               "--no-warn-conflicts", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{' '.join(args)}: {done.stderr[-3000:]}"


def copy_of_checkout(target: str) -> str:
    """The checkout's files in a folder of their own: setuptools builds inside the source folder (build/,
    *.egg-info), which must not land in the checkout, and a stale build/lib there would slip into the wheel."""
    def left_out(folder: str, names: list[str]) -> set[str]:
        at_root = os.path.abspath(folder) == ROOT
        return {name for name in names if name in LEFT_OUT_ANYWHERE or name.endswith((".egg-info", ".pyc"))
                or (at_root and name in LEFT_OUT_AT_ROOT)}

    shutil.copytree(ROOT, target, symlinks=True, ignore=left_out)  # connectx_toolkit/agents stays a link
    return target


def site_listing(site_packages: str) -> set[str]:
    return {name for name in os.listdir(site_packages) if name != "__pycache__"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Iterator[Installed]:
    work = tmp_path_factory.mktemp("wheel")
    seconds = {}

    started = time.perf_counter()
    source = copy_of_checkout(str(work / "source"))
    wheels = work / "wheels"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check",
                           "--quiet", "-w", str(wheels), source], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = wheels.glob("*.whl")
    seconds["wheel built"] = time.perf_counter() - started

    started = time.perf_counter()
    prefix = str(work / "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", prefix], check=True, timeout=120)
    python = os.path.join(prefix, "bin", "python")
    pip(python, "-r", os.path.join(ROOT, "requirements.txt"))
    pip(python, "--no-deps", "-r", os.path.join(ROOT, "requirements-kaggle.txt"))
    seconds["venv with the pinned requirements"] = time.perf_counter() - started
    site_packages = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip()

    started = time.perf_counter()
    name_takers = {}
    for name, distribution in NAME_TAKERS.items():
        try:
            pip(python, "--no-deps", distribution)
            name_takers[name] = distribution
        except AssertionError:  # no registry here: a stand-in takes the name, and fails any import of it
            os.makedirs(os.path.join(site_packages, name), exist_ok=True)
            with open(os.path.join(site_packages, name, "__init__.py"), "w") as handle:
                handle.write(f"raise ImportError('a stand-in for {distribution}: the toolkit imported {name}')\n")
            name_takers[name] = "stand-in"
    seconds["evaluate and agents"] = time.perf_counter() - started

    before = site_listing(site_packages)
    started = time.perf_counter()
    pip(python, "--no-deps", str(wheel))
    seconds["wheel installed"] = time.perf_counter() - started
    added = sorted(site_listing(site_packages) - before)
    print("\n".join([f"{what}: {s:.1f} s" for what, s in seconds.items()]
                    + [f"the wheel added to site-packages: {added}", f"name takers: {name_takers}"]))
    yield Installed(prefix, python, site_packages, str(wheel), added, name_takers, seconds)
    shutil.rmtree(work, ignore_errors=True)  # the environment is ~700 MB; pytest keeps its last three temp folders


@pytest.fixture
def user_folder(tmp_path):
    """An empty folder of a user's, outside the checkout, holding only ./my_bot.py."""
    folder = tmp_path / "my project"
    folder.mkdir()
    (folder / "my_bot.py").write_text(MY_BOT)
    return folder


def toolkit_files() -> set[str]:
    """Every file the checkout's package holds (through the agents link), as a wheel names it."""
    files = set()
    for folder, folders, names in os.walk(os.path.join(ROOT, PACKAGE), followlinks=True):
        folders[:] = [name for name in folders if name != "__pycache__"]
        files.update(os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/") for name in names
                     if not name.endswith(".pyc"))
    return files


def test_the_wheel_holds_the_package_alone(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    dist_info = [top for top in tops if top.endswith(".dist-info")]
    assert tops == {PACKAGE, *dist_info} and len(dist_info) == 1, tops  # no agents/, tools/, tests/, evaluate.py
    packaged = {name for name in names if name.startswith(PACKAGE + "/")}
    assert packaged == toolkit_files()  # every module and data file of the package, the agents' copied in
    for data in ("agents/data/connect4_outcomes.bin", "agents/data/td_lambda_6x7.json",
                 "analysis/data/outcomes_ply7.txt", "evaluation/scheduling/openings_6x7.txt",
                 "measuring/data/benchmark.json.gz", "measuring/data/pons/Test_L1_R3", "board/static/index.html",
                 "py.typed"):
        assert f"{PACKAGE}/{data}" in packaged
    # Installed: the package and its dist-info, nothing else in site-packages; the link became a folder.
    assert installed.added == sorted([PACKAGE, *dist_info]), installed.added
    agents = os.path.join(installed.site_packages, PACKAGE, "agents")
    assert os.path.isdir(agents) and not os.path.islink(agents)
    for script in ("connectx", "connectx-build", "connectx-evaluate", "connectx-train"):
        assert os.access(installed.script(script), os.X_OK)
    print(f"site-packages gained: {installed.added}; {len(packaged)} files of {PACKAGE}")


WHERE = """
import importlib.util, json, os, sys
import connectx_toolkit, connectx_toolkit.agents
def origin(name):
    try:
        spec = importlib.util.find_spec(name)
    except ImportError as error:
        return "error: " + str(error)
    return spec and (spec.origin or list(spec.submodule_search_locations or ()))
print(json.dumps({"toolkit": connectx_toolkit.__file__, "agents": connectx_toolkit.agents.__file__,
                  "path": sys.path, "cwd": os.getcwd(),
                  "found": {name: origin(name) for name in ("agents", "evaluate", "build_submission", "tools",
                                                           "bench", "tests")}}))
"""


def test_the_environment_imports_the_installed_toolkit_not_the_checkout(installed, user_folder):
    done = installed.run([installed.python, "-c", WHERE], user_folder)
    assert done.returncode == 0, done.stderr
    where = json.loads(done.stdout)
    site = os.path.realpath(installed.site_packages)
    assert where["toolkit"] == os.path.join(site, PACKAGE, "__init__.py")
    assert where["agents"] == os.path.join(site, PACKAGE, "agents", "__init__.py")
    assert not any(os.path.realpath(entry or ".").startswith(ROOT) for entry in where["path"] if entry), where["path"]
    # evaluate and agents are the other packages' (their own folders in site-packages), and nothing of the
    # checkout's top level (build_submission.py, tools/, ...) is found.
    for name in NAME_TAKERS:
        assert where["found"][name] == os.path.join(site, name, "__init__.py"), where["found"]
    assert not any(where["found"][name] for name in ("build_submission", "tools", "bench", "tests")), where["found"]


def test_connectx_build_builds_and_validates_the_users_bot(installed, user_folder):
    done = installed.run([installed.script("connectx-build"), "./my_bot.py"], user_folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "validation (python" in done.stdout and "kaggle_environments 1.33.2" in done.stdout
    assert re.search(r"^  passed$", done.stdout, re.M), done.stdout
    built = user_folder / "submissions" / "submission.py"
    assert built.is_file() and "def agent" in built.read_text()
    print("connectx-build ./my_bot.py:", done.stdout.splitlines()[-3])


def test_connectx_build_of_a_builtin_agent_equals_the_checkouts_build(installed, user_folder):
    """The wheel's copy of agents/ builds the very file the checkout builds: the same modules, data and names
    (the builder embeds them as the package agents either way)."""
    from connectx_toolkit.building import build_text  # the checkout's builder (pytest.ini puts it first)

    done = installed.run([installed.script("connectx-build"), "solver", "-o", "sub.py"], user_folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^  passed$", done.stdout, re.M), done.stdout
    assert (user_folder / "sub.py").read_text() == build_text("solver")[0]
    print("connectx-build solver -o sub.py:", next(line for line in done.stdout.splitlines() if "size" in line))


def test_connectx_evaluate_plays_the_users_bot(installed, user_folder):
    done = installed.run([installed.script("connectx-evaluate"), "./my_bot.py", "greedy", "-n", "4", "--json"],
                         user_folder)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 4 and [agent["name"] for agent in summary["agents"]] == ["./my_bot.py", "greedy"]
    assert all(agent["errors"] == agent["invalid"] == agent["timeouts"] == 0 for agent in summary["agents"])
    results = user_folder / summary["results"]
    assert results.is_file() and summary["results"].startswith("results" + os.sep)
    print("connectx-evaluate ./my_bot.py greedy -n 4 --json:",
          {agent["name"]: (agent["wins"], agent["draws"], agent["losses"]) for agent in summary["agents"]})


def test_connectx_evaluate_gate_passes(installed, user_folder):
    done = installed.run([installed.script("connectx-evaluate"), "--gate", "./my_bot.py", "--baseline", "random",
                          "-n", "4"], user_folder)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("PASS"), done.stdout
    assert any(re.match(r"  load +ok +file \./my_bot\.py \(loaded by Kaggle's loader in a clean room\)", line)
               for line in lines), done.stdout
    print("connectx-evaluate --gate ./my_bot.py --baseline random -n 4:", lines[-1])


def test_connectx_accuracy_reads_the_installed_benchmark(installed, user_folder):
    """The benchmark is package data: the installed command asks its positions from any folder."""
    done = installed.run([installed.script("connectx"), "accuracy", "./my_bot.py", "-n", "3", "--json",
                          "--no-progress"], user_folder)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["benchmark"]["games"] == 3 and report["agents"][0]["positions"] > 0
    assert os.sep + "site-packages" + os.sep in report["benchmark"]["source"]
    assert (user_folder / report["files"]["answers"]).is_file()
    print("connectx accuracy ./my_bot.py -n 3:", report["agents"][0]["sets"]["all"]["accuracy"])


def test_sandboxed_evaluation_mounts_the_installed_toolkit(installed, user_folder):
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    done = installed.run([installed.script("connectx-evaluate"), "./my_bot.py", "random", "-n", "2", "--sandbox",
                          "--json", "--no-progress"], user_folder)
    assert done.returncode == 0, done.stderr
    assert played_without_forfeit(json.loads(done.stdout), 2)


API = """
import json, sys
imported = []
sys.addaudithook(lambda event, args: imported.append(args[0]) if event == "import" else None)
from connectx_toolkit.evaluation.api import play_match
from connectx_toolkit.building import build
result = play_match("./my_bot.py", "random", games=2, workers=1, progress=False)
report = build("./my_bot.py", "api_submission.py")
agent = result["agents"][0]
print(json.dumps({"games": result["games"], "forfeits": agent["invalid"] + agent["errors"] + agent["timeouts"],
                  "built": report.path,
                  "passed": report.validation["ok"],
                  "generic": sorted({name for name in imported if name.partition(".")[0] in ("agents", "evaluate")})}))
"""


def test_connectx_train_writes_an_agent_folder_that_builds(installed, user_folder):
    """The training path from the wheel: self-play in the installed envs, the folder built with its weights."""
    done = installed.run([installed.script("connectx-train"), "--episodes", "50", "--out", "my_td_bot", "--quiet"],
                         user_folder)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "trained 50 self-play episodes" in done.stdout
    done = installed.run([installed.script("connectx-build"), "my_td_bot", "-o", "td.py"], user_folder)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "td_lambda_weights.json" in done.stdout and (user_folder / "td.py").is_file()
    print(done.stdout.splitlines()[0])


def test_the_python_api(installed, user_folder):
    done = installed.run([installed.python, "-c", API], user_folder)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    assert answer == {"games": 2, "forfeits": 0, "built": "api_submission.py", "passed": True, "generic": []}
    assert "def agent" in (user_folder / "api_submission.py").read_text()


def read_lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        lines.put(line)


def test_the_board_serves_its_page(installed, user_folder):
    board = subprocess.Popen([installed.script("connectx-evaluate"), "--board", "./my_bot.py", "--no-browser"],
                             cwd=user_folder, env=installed.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=read_lines, args=(board.stdout, lines), daemon=True).start()
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            try:
                match = re.match(r"board: (http://127\.0\.0\.1:\d+/\?token=\S+)", lines.get(timeout=1))
            except queue.Empty:
                assert board.poll() is None, board.stderr.read()
                continue
            url = match and match.group(1)
        assert url, "the board printed no address"
        page = urllib.request.urlopen(url, timeout=30).read().decode()
        assert "<title>ConnectX board</title>" in page
        script = urllib.request.urlopen(url.replace("/?", "/static/board.js?"), timeout=30).read().decode()
        assert "api/state" in script  # a file of board/static, served from site-packages
        state = json.loads(urllib.request.urlopen(url.replace("/?", "/api/state?"), timeout=30).read())
        assert state["agent"] == "./my_bot.py" and state["moves"] == [], state
        # the empty board's values, from the analysis's ply-7 table (analysis/data, package data), solved in the
        # background ("pending" until then)
        deadline = time.monotonic() + 60
        while "pending" in json.dumps(state["values"]) and time.monotonic() < deadline:
            time.sleep(0.2)
            state = json.loads(urllib.request.urlopen(url.replace("/?", "/api/state?"), timeout=30).read())
        assert [column["value"] for column in state["values"]["columns"]] == ["loss", "loss", "draw", "win", "draw",
                                                                             "loss", "loss"], state["values"]
        print(f"connectx-evaluate --board ./my_bot.py --no-browser: {url.partition('?')[0]} served "
              f"{len(page)} bytes of page, board.js, /api/state with the empty board's values")
    finally:
        board.terminate()
        board.wait(timeout=30)
