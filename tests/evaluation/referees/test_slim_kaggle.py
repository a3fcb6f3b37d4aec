"""kaggle-environments without the other games' stacks: every path of Kaggle's code the toolkit uses works with
only what requirements.txt pins for it (numpy, jsonschema, requests) and open_spiel (requirements-kaggle.txt).

The checks run in a child interpreter in which importing any other package that kaggle-environments declares
(jax, transformers, litellm, scipy, Flask, pygame, ...) raises ImportError, so they hold in the slim `.venv`
that run.sh makes and in any larger environment alike.
"""

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap

import pytest
from tests.helpers import REPO

ROOT = REPO
REFEREE_NEEDS = {"numpy", "jsonschema", "requests", "open-spiel"}  # distributions, normalised names
PRODUCT_PACKAGES = [f"connectx_toolkit.{name}" for name in
                    ["agents", "analysis", "board", "building", "evaluation", "on_kaggle", "sandbox", "training"]]  # every module imported
# Blocked while Kaggle's paths run, then allowed for the product modules: the board's web framework and the training
# environments' gymnasium and PettingZoo are the toolkit's own requirements (requirements.txt), though
# kaggle-environments declares them too.
TOOLKIT_OWN = {"flask", "click", "werkzeug", "jinja2", "itsdangerous", "blinker", "markupsafe", "gymnasium", "pettingzoo"}
OPTIONAL = {"connectx_toolkit.evaluation.scheduling.ray_backend"}  # needs the optional Ray extra (requirements-ray.txt)


def normalised(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def kaggle_only_distributions() -> set[str]:
    """kaggle-environments' declared dependencies that ConnectX does not need."""
    declared = importlib.metadata.requires("kaggle-environments") or []
    names = {normalised(d.split(";")[0].split("[")[0].split("=")[0].split("<")[0].split(">")[0].split("!")[0])
             for d in declared}
    return {n.strip() for n in names} - REFEREE_NEEDS


def blocked_modules() -> list[str]:
    """Top-level modules of the installed distributions that the slim environment leaves out."""
    unwanted = kaggle_only_distributions()
    found = {module for module, dists in importlib.metadata.packages_distributions().items()
             if any(normalised(d) in unwanted for d in dists)}
    # Named too when not installed here, so the check does not depend on what this environment holds.
    return sorted(found | {"jax", "jaxlib", "transformers", "litellm", "scipy", "flask", "pygame", "gymnasium",
                           "gymnax", "pettingzoo", "pokerkit", "pydantic", "shimmy", "omegaconf", "google",
                           "yaml", "pyjson5", "termcolor", "tenacity", "click", "upath", "tqdm", "pandas",
                           "torch"})


BLOCKER = """
import sys
BLOCKED = set({blocked!r})

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{{name}} is not part of the slim environment", name=name)
        return None

sys.meta_path.insert(0, Blocker())
"""

PROBE = """
import json
import kaggle_environments
from kaggle_environments import evaluate, make
from kaggle_environments.agent import Agent, build_agent, get_last_callable
from kaggle_environments.envs.connectx.connectx import agents, is_win
from kaggle_environments.errors import DeadlineExceeded
from kaggle_environments.utils import Struct

report = {"version": kaggle_environments.__version__, "builtins": sorted(agents)}
env = make("connectx")
env.run(["random", "negamax"])
report["run"] = [s.status for s in env.state]
report["rewards"] = sorted(s.reward for s in env.state)
report["html"] = env.render(mode="html")
report["json_keys"] = sorted(env.toJSON())
report["steps"] = len(env.toJSON()["steps"])

env = make("connectx")
env.reset()
env.step([3, None])
env.step([None, 3])
report["stepped_board"] = env.state[0].observation.board

report["last_callable"] = get_last_callable("def helper(x):\\n    return x\\n\\ndef agent(obs, config):\\n    return 5\\n")(
    Struct(board=[0] * 42, mark=1), Struct(columns=7))
import os, tempfile
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "bot.py")
    with open(path, "w") as handle:
        handle.write("def agent(obs, config):\\n    return [c for c in range(6, -1, -1) if obs.board[c] == 0][0]\\n")
    built, _ = build_agent(path, {}, "connectx")
    env = make("connectx")
    env.run([built, "random"])
    report["built_agent_moves"] = [step[0]["action"] for step in env.toJSON()["steps"][1:4:2]]
report["evaluate"] = evaluate("connectx", ["random", "random"], {}, [], 2)
bottom_three = [0] * 35 + [1, 1, 1, 0, 0, 0, 0]
report["is_win"] = [bool(is_win(bottom_three, column, 1, Struct(rows=6, columns=7, inarow=4), False))
                    for column in range(7)]
import importlib, pkgutil
BLOCKED -= TOOLKIT_OWN
for package in PRODUCT_PACKAGES:
    module = importlib.import_module(package)
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        if info.name not in OPTIONAL:
            importlib.import_module(info.name)
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def slim_run() -> dict:
    code = BLOCKER.format(blocked=blocked_modules()) + PROBE.replace("PRODUCT_PACKAGES", repr(PRODUCT_PACKAGES)).replace("OPTIONAL", repr(OPTIONAL)).replace("TOOLKIT_OWN", repr(TOOLKIT_OWN))
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    *printed, last = done.stdout.strip().splitlines()
    assert printed == [], printed  # e.g. "Loading environment open_spiel_env failed" when open_spiel is missing
    assert "failed" not in done.stderr, done.stderr[-3000:]
    return json.loads(last)


def test_the_blocker_leaves_out_the_other_games_stacks():
    unwanted = kaggle_only_distributions()
    assert {"jax", "transformers", "litellm", "scipy", "flask", "pygame"} <= unwanted
    assert not unwanted & REFEREE_NEEDS
    code = BLOCKER.format(blocked=blocked_modules()) + "import scipy\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr


def test_kaggle_environments_is_the_reference_version(slim_run):
    assert slim_run["version"] == "1.33.2"
    assert {"random", "negamax"} <= set(slim_run["builtins"])


def test_the_builtins_play_a_whole_game(slim_run):
    assert slim_run["run"] == ["DONE", "DONE"]
    assert slim_run["rewards"] in ([-1, 1], [0, 0])
    assert slim_run["steps"] >= 8  # at least 7 moves and the first observation


def test_step_html_json_loader_and_evaluate(slim_run):
    board = slim_run["stepped_board"]
    assert board[35 + 3] == 1 and board[28 + 3] == 2  # row 0 is the top row: both stones in column 3
    html = slim_run["html"]
    assert "<html" in html.lower() and "connectx" in html.lower()
    assert slim_run["json_keys"] == sorted(["id", "name", "title", "description", "version", "module_version",
                                            "configuration", "specification", "steps", "rewards", "statuses",
                                            "schema_version", "info"])
    assert slim_run["last_callable"] == 5
    assert slim_run["built_agent_moves"] == [6, 6]  # a file loaded by build_agent plays its moves
    assert len(slim_run["evaluate"]) == 2 and all(len(r) == 2 for r in slim_run["evaluate"])
    assert slim_run["is_win"] == [False, False, False, True, False, False, False]


def test_requirements_pin_what_the_referee_needs():
    """requirements.txt pins the referee's packages exactly; the --no-deps file holds kaggle-environments."""
    with open(os.path.join(ROOT, "requirements.txt")) as handle:
        pins = dict(line.split("#")[0].strip().split("==") for line in handle
                    if "==" in line.split("#")[0])
    assert REFEREE_NEEDS - {"open-spiel"} <= {normalised(n) for n in pins}
    with open(os.path.join(ROOT, "requirements-kaggle.txt")) as handle:
        kaggle = {line.split("#")[0].strip() for line in handle} - {""}
    assert kaggle == {"kaggle-environments==1.33.2", "open_spiel==2.0.1"}
