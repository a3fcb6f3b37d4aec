"""Bring your own agent: agents kept outside the repository, picked by :FUNCTION, or written in a notebook.

Every agent here is written into a temporary directory outside the repository, built by the builder, loaded
by Kaggle's own loader in a clean interpreter (``python -I``, an empty working directory, nothing of the
project importable) and checked to play exactly the moves the same agent plays unbuilt, on positions of
several board sizes. Every bad input is one line, exit 2, and leaves OUT's bytes as they were.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.agents.core import Config
from connectx_toolkit.building import BuildError, BuildReport, build, build_text
from tests.helpers import run_clean_script
from tools.sample_positions import undecided_position

ROOT = builder.ROOT
PREVIOUS = b"# the previous, good submission\n"

# A deterministic agent that still moves differently from position to position.
SCORING = '''
def score(board, column, mark, columns, weights):
    own = sum(1 for row in range(len(board) // columns) if board[row * columns + column] == mark)
    other = sum(1 for row in range(len(board) // columns) if board[row * columns + column] not in (0, mark))
    return weights[column % len(weights)] % 4 + 3 * own - 2 * other
'''


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def positions() -> list[dict]:
    rng = random.Random(99)
    cases = []
    for config in (Config(6, 7, 4), Config(5, 4, 3), Config(7, 9, 5)):
        for plies in [0, 1, 2, 3, 5, 8, 11, 14] * 2:
            if plies >= config.cells - 1:
                continue
            position = undecided_position(rng, config, plies)
            mark = 1 + position.moves % 2
            cases.append({"board": position.to_board(mark), "mark": mark, "config": config.as_dict()})
    return cases


PLAY = """
import json, sys
from kaggle_environments.utils import Struct
def play(agent, cases):
    count = getattr(getattr(agent, "__code__", None), "co_argcount", 2)
    moves = []
    for case in cases:
        obs, config = Struct(board=case["board"], mark=case["mark"]), Struct(**case["config"])
        move = agent(*(obs, config)[:count])
        assert type(move) is int, type(move)
        moves.append(move)
    return moves
"""


def built_moves(tmp_path: Path, submission: Path, cases: list[dict]) -> list[int]:
    """The built file's moves: Kaggle's loader in ``python -I``, an empty working directory."""
    work = tmp_path / "clean"
    work.mkdir(exist_ok=True)
    (work / "cases.json").write_text(json.dumps(cases))
    cwd = work / "cwd"
    cwd.mkdir(exist_ok=True)
    # run_clean_script forgets the project as the validator does and checks that it is not importable
    script = PLAY + textwrap.dedent("""
        from kaggle_environments.agent import get_last_callable
        agent = get_last_callable(open(sys.argv[1]).read(), path=sys.argv[1])
        print(json.dumps({"name": agent.__name__, "moves": play(agent, json.load(open(sys.argv[2])))}))
    """)
    run = run_clean_script(script, str(submission), str(work / "cases.json"), cwd=str(cwd), timeout=120)
    assert run.returncode == 0, run.stderr
    assert os.listdir(cwd) == []
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["name"] == "agent"
    return result["moves"]


def unbuilt_moves(folder: Path, module: str, function: str, cases: list[dict]) -> list[int]:
    """The agent's moves unbuilt: its folder first on sys.path (as Kaggle's loader does), then the project. In
    this process (a new interpreter importing kaggle_environments cost ~0.5 CPU s): a module of this process named
    like one of the folder's is set aside, and the agent's modules (and the agents package it imported) are
    forgotten afterwards."""
    import importlib

    own = {entry.stem if entry.suffix == ".py" else entry.name for entry in folder.iterdir()}
    path, before = list(sys.path), set(sys.modules)
    aside = {name: sys.modules.pop(name) for name in list(sys.modules) if name.partition(".")[0] in own}
    namespace: dict = {}
    exec(PLAY, namespace)
    try:
        sys.path[:0] = [str(folder), ROOT]
        return namespace["play"](getattr(importlib.import_module(module), function), cases)
    finally:
        sys.path[:] = path
        for name in [name for name in sys.modules if name.partition(".")[0] in own or
                     (name.partition(".")[0] == "agents" and name not in before)]:
            del sys.modules[name]
        sys.modules.update(aside)


def build_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = builder.main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------------------------------------------
# Acceptance: four agents from outside the repository, built and checked move for move


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    assert not str(tmp_path).startswith(ROOT)
    return tmp_path


def test_a_multi_file_agent_folder_builds_and_plays_its_unbuilt_moves(outside, capsys):
    bot = write(outside / "my_bot", {
        "main.py": """
            import json
            import helper
            from lib import tactics
            from agents.core.resources import load_resource

            WEIGHTS = json.loads(load_resource("weights.json"))

            def agent(obs, config):
                return tactics.best(obs, config, WEIGHTS)

            def _helper_defined_last(x):  # Kaggle would call this if the file were uploaded as it is
                return x
        """,
        "helper.py": "def open_columns(board, columns):\n    return [c for c in range(columns) if board[c] == 0]\n",
        "lib/__init__.py": "",
        "lib/tactics.py": """
            import helper
            from .scoring import score

            def best(obs, config, weights):
                columns = helper.open_columns(obs.board, config.columns)
                return max(columns, key=lambda c: (score(obs.board, c, obs.mark, config.columns, weights), -c))
        """,
        "lib/scoring.py": SCORING,
        "data/weights.json": "[0, 2, 5, 9, 5, 2, 0, 1, 3]",
    })
    out = outside / "out" / "submission.py"
    code, printed, err = build_cli(capsys, str(bot), "-o", str(out))
    assert code == 0, err
    size = (bot / "data" / "weights.json").stat().st_size
    assert f"weights.json ({size} bytes)" in printed and "passed" in printed
    assert '-m "my_bot ' in printed
    cases = positions()
    expected = unbuilt_moves(bot, "main", "agent", cases)
    assert len(set(expected)) >= 4, "positions too uniform to compare anything"
    assert built_moves(outside, out, cases) == expected
    # Where the folder is kept does not change a byte.
    copy = outside / "elsewhere" / "my_bot"
    copy.parent.mkdir()
    subprocess.run(["cp", "-r", str(bot), str(copy)], check=True)
    assert build_text(str(copy))[0] == out.read_text(encoding="utf-8")


def test_a_single_file_with_function_builds_that_function(outside, capsys):
    write(outside, {"bots/single.py": SCORING + textwrap.dedent("""
        WEIGHTS = (1, 3, 6, 7, 6, 3, 1)

        def act(obs, config):
            columns = [c for c in range(config.columns) if obs.board[c] == 0]
            return max(columns, key=lambda c: (score(obs.board, c, obs.mark, config.columns, WEIGHTS), c))

        def agent(obs, config):  # the last callable, not the one asked for
            return 0
    """)})
    out = outside / "submission.py"
    code, _, err = build_cli(capsys, str(outside / "bots" / "single.py") + ":act", "-o", str(out))
    assert code == 0, err
    cases = positions()
    expected = unbuilt_moves(outside / "bots", "single", "act", cases)
    assert set(expected) != {0}
    assert built_moves(outside, out, cases) == expected


def test_a_one_argument_agent_builds_and_is_called_with_obs_only(outside, capsys):
    write(outside, {"one_arg.py": """
        def agent(obs):
            board = obs.board
            columns = len(board) // 6 if len(board) % 6 == 0 else 7
            return max(c for c in range(columns) if board[c] == 0) if obs.mark == 1 else \\
                min(c for c in range(columns) if board[c] == 0)
    """})
    out = outside / "submission.py"
    code, _, err = build_cli(capsys, str(outside / "one_arg.py"), "-o", str(out))
    assert code == 0, err
    cases = [c for c in positions() if c["config"]["rows"] == 6]
    expected = unbuilt_moves(outside, "one_arg", "agent", cases)
    assert len(set(expected)) >= 2
    assert built_moves(outside, out, cases) == expected


NOTEBOOK = '''
import json
import math
import sys
import numpy as np
sys.path.insert(0, {root!r})
from connectx_toolkit.cli import build_submission
from agents.core.resources import load_resource

CENTER_WEIGHT = 1.5
ORDER = (3, 2, 4, 1, 5, 0, 6, 7, 8)
TABLE = {{"own": 2, "other": -1, "tags": {{"x", "y"}}, "raw": b"\\x01"}}
BONUS = np.array([0.0, 0.25, 0.5, 0.75, 0.5, 0.25, 0.0, 0.0, 0.0])
UNUSED = object()  # never referred to by the agent: left behind, not an error


class Evaluator:
    weight = CENTER_WEIGHT

    def __init__(self, columns):
        self.columns = columns

    def value(self, board, column, mark):
        column_cells = board[column::self.columns]
        own = sum(1 for cell in column_cells if cell == mark) * TABLE["own"]
        other = sum(1 for cell in column_cells if cell not in (0, mark)) * TABLE["other"]
        return own + other - self.weight * abs(column - self.columns // 2) + BONUS[column] + tiebreak(column)


def tiebreak(column):
    import random as rng  # an import inside a function
    return rng.Random(column).random() * 1e-3 + math.floor(0.5)


def legal(board, columns):
    return [c for c in ORDER if c < columns and board[c] == 0]


def my_agent(obs, config):
    evaluator = Evaluator(config.columns)
    columns = legal(obs.board, config.columns)
    extra = json.loads(load_resource("extra.json"))  # data/extra.json beside the notebook
    scores = np.array([evaluator.value(obs.board, c, obs.mark) + extra[c] for c in columns])
    return int(columns[int(np.argmax(scores))])


report = build_submission.build(my_agent, out=sys.argv[1])
from kaggle_environments.utils import Struct
cases = json.load(open(sys.argv[2]))
moves = [my_agent(Struct(board=c["board"], mark=c["mark"]), Struct(**c["config"])) for c in cases]
print(json.dumps({{"moves": moves, "modules": report.modules, "data": report.data, "ok": report.validation["ok"]}}))
'''


def test_a_notebook_style_agent_builds_with_its_helpers_class_constants_and_imports(outside):
    script = outside / "notebook.py"
    script.write_text(NOTEBOOK.format(root=ROOT))
    write(outside, {"data/extra.json": "[0.0, 0.1, 0.2, 0.3, 0.2, 0.1, 0.0, 0.4, 0.0]"})
    cases = positions()
    (outside / "cases.json").write_text(json.dumps(cases))
    out = outside / "submission.py"
    run = subprocess.run([sys.executable, str(script), str(out), str(outside / "cases.json")], cwd=outside,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("\n") == 1, "build() printed without being asked"
    result = json.loads(run.stdout)
    assert result["ok"] and result["data"] == {"extra.json": 45}
    assert result["modules"][-1] == "__notebook__" and "agents.core.resources" in result["modules"]
    assert len(set(result["moves"])) >= 4
    assert built_moves(outside, out, cases) == result["moves"]
    namespace: dict = {}
    exec(out.read_text(), namespace)
    gathered = namespace["_SOURCES"]["__notebook__"][1]
    assert "UNUSED" not in gathered and "build_submission" not in gathered and "import sys" not in gathered
    assert "class Evaluator" in gathered and "def tiebreak" in gathered and "CENTER_WEIGHT = 1.5" in gathered


def test_a_package_folder_and_a_folder_with_function_build(outside):
    from kaggle_environments.agent import get_last_callable
    from kaggle_environments.utils import Struct

    write(outside, {
        "my_pkg/__init__.py": "from .strategy import agent, act\n",
        "my_pkg/strategy.py": "from . import tables\n\ndef agent(obs, config):\n    return tables.FIRST\n\n"
                              "def act(obs):\n    return tables.SECOND\n",
        "my_pkg/tables.py": "FIRST, SECOND = 2, 5\n",
    })
    obs, config = Struct(board=[0] * 42, mark=1), Struct(rows=6, columns=7, inarow=4)
    text, modules, _ = build_text(str(outside / "my_pkg"))
    assert [m.name for m in modules] == ["my_pkg.tables", "my_pkg.strategy", "my_pkg"]
    assert get_last_callable(text)(obs, config) == 2
    assert get_last_callable(build_text(f"{outside}/my_pkg:act")[0])(obs, config) == 5


# ---------------------------------------------------------------------------------------------------
# The Python API


def test_build_returns_a_report_and_prints_nothing(outside, capsys):
    write(outside, {"plain.py": "def agent(obs, config):\n    return obs.board.index(0) % config.columns\n"})
    report = build(outside / "plain.py", out=outside / "x.py")
    assert capsys.readouterr() == ("", "")
    data = (outside / "x.py").read_bytes()
    assert isinstance(report, BuildReport)
    assert (report.path, report.size, report.modules, report.data) == (str(outside / "x.py"), len(data), ["plain"], {})
    import hashlib

    assert report.sha256 == hashlib.sha256(data).hexdigest()
    assert report.validation["ok"]
    assert [game["opponent"] for game in report.validation["games"]] == ["itself", "random", "negamax"]


def test_a_failed_validation_raises_the_same_exception_type_with_exit_code_1(outside, capsys):
    write(outside, {"bad.py": "def agent(obs, config):\n    return 99\n"})
    out = outside / "submission.py"
    out.write_bytes(PREVIOUS)
    with pytest.raises(BuildError) as caught:
        build(str(outside / "bad.py"), out=out)
    assert caught.value.exit_code == 1 and "\n" not in str(caught.value)
    assert str(caught.value).startswith("validation failed: game against itself: INVALID as player 1 at ply 1")
    assert caught.value.report["ok"] is False
    assert out.read_bytes() == PREVIOUS and capsys.readouterr() == ("", "")


def carried_function_module(folder: Path) -> object:
    """A module with agents referring to globals that can and cannot be carried (imported like a notebook)."""
    write(folder, {"nb_cases.py": """
        import threading
        LOCK = threading.Lock()
        NAN = float("nan")

        def uses_lock(obs, config):
            with LOCK:
                return 3

        def uses_nan(obs, config):
            return 3 if NAN else 2

        def make():
            offset = 1
            def inner(obs, config):
                return 3 + offset
            return inner
    """})
    import importlib.util

    spec = importlib.util.spec_from_file_location("nb_cases", folder / "nb_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("function", "message"), [
    ("uses_lock", "global 'LOCK' used by uses_lock() is a lock object, which cannot be carried"),
    ("uses_nan", "global 'NAN' used by uses_nan() is a float object, which cannot be carried"),
    ("closure", "inner uses local variables of an enclosing function (offset)"),
    ("lambda", "cannot build a lambda"),
])
def test_a_global_that_cannot_be_carried_is_one_error_naming_it(outside, capsys, function, message):
    module = carried_function_module(outside)
    target = {"closure": module.make(), "lambda": lambda obs, config: 3}.get(function) or getattr(module, function)
    out = outside / "submission.py"
    out.write_bytes(PREVIOUS)
    with pytest.raises(BuildError) as caught:
        build(target, out=out)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert caught.value.exit_code == 2
    assert out.read_bytes() == PREVIOUS
    assert capsys.readouterr() == ("", "")


# ---------------------------------------------------------------------------------------------------
# Bad input from the command line: one line, exit 2, OUT untouched


BAD_FILES = {
    "empty_dir/README.md": "no agent here\n",
    "bots/single.py": "LIMIT = 3\nMOVES = (c for c in range(7))\n\ndef act(obs, config):\n    return 3\n",
    "bots/networked.py": "import math\nimport requests\n\ndef agent(obs, config):\n    return 3\n",
    "reads_file/main.py": "def agent(obs, config):\n    with open('data/table.txt') as f:\n"
                          "        return int(f.read())\n",
    "reads_file/data/table.txt": "3\n",
    "beside_itself/main.py": "import os\n\nHERE = os.path.dirname(__file__)\n\ndef agent(obs, config):\n    return 3\n",
    "broken/main.py": "import helper\n\ndef agent(obs, config):\n    return helper.move()\n",
    "broken/helper.py": "def move():\n    return 3\n\ndef oops(:\n    pass\n",
}


@pytest.mark.parametrize(("target", "message"), [
    ("missing.py", "unknown agent '{d}/missing.py': no file or folder {d}/missing.py"),
    ("missing_dir", "unknown agent '{d}/missing_dir': no file or folder {d}/missing_dir"),
    ("empty_dir", "folder {d}/empty_dir holds neither main.py nor __init__.py"),
    ("bots/single.py:nothere", "{d}/bots/single.py defines no top-level nothere"),
    ("bots/single.py:LIMIT", "{d}/bots/single.py:1: LIMIT is not callable"),
    ("bots/single.py:MOVES", "{d}/bots/single.py:2: MOVES is not callable"),  # a generator never is
    ("bots/single.py:9x", "'9x' after ':' is not a function name"),
    ("bots/networked.py", "{d}/bots/networked.py:2: `import requests` in module networked: a submission may "
                          "import only the standard library, numpy, kaggle_environments and its own modules "
                          "(if Kaggle's image has requests: --allow-import requests)"),
    ("reads_file", "the agent reads 'data/table.txt' at run time, which the build did not include"),
    ("broken", "{d}/broken/helper.py:4: syntax error"),
    ("beside_itself", "{d}/beside_itself/main.py:3: `__file__` in module main: a submission has no file of its own"),
])
def test_bad_input_is_one_line_exit_2_and_out_untouched(outside, capsys, target, message):
    write(outside, BAD_FILES)
    out = outside / "submission.py"
    out.write_bytes(PREVIOUS)
    code, printed, err = build_cli(capsys, str(outside / target) if target != "bots/single.py:9x" else
                                   f"{outside}/{target}", "-o", str(out))
    assert (code, printed) == (2, "")
    # Only an agent whose code ran (the unembedded read is seen while it plays) is preceded by the
    # notice that it ran with the user's rights; the error itself is one line.
    notices = [line for line in err.splitlines() if line.startswith("build_submission.py: note: ")]
    assert len(notices) == (target == "reads_file"), err
    error = "".join(line + "\n" for line in err.splitlines() if line not in notices)
    assert error.count("\n") == 1 and "Traceback" not in error, err
    assert message.format(d=outside) in error
    assert out.read_bytes() == PREVIOUS
    assert sorted(os.listdir(outside)) == sorted({"submission.py", *(p.split("/")[0] for p in BAD_FILES)})


def test_allow_import_admits_a_package_and_only_that_one(outside):
    write(outside, BAD_FILES)
    text = build_text(str(outside / "bots" / "networked.py"), allow_imports=["requests"])[0]
    assert "import requests" in text
    with pytest.raises(BuildError, match="--allow-import requests"):
        build_text(str(outside / "bots" / "networked.py"), allow_imports=["matplotlib"])  # installed, not the one used


def test_the_command_line_exits_2_for_bad_input(outside):
    run = subprocess.run([sys.executable, os.path.join(ROOT, "build_submission.py"), str(outside / "nope"), "-o",
                          str(outside / "x.py")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert not (outside / "x.py").exists()


# ---------------------------------------------------------------------------------------------------
# Forms inside the repository


def test_a_path_inside_the_agent_package_builds_the_same_modules_as_its_name():
    by_name, modules_by_name, _ = build_text("greedy")
    by_path, modules_by_path, _ = build_text(os.path.join(ROOT, "agents", "greedy.py"))
    by_dotted, modules_by_dotted, _ = build_text("agents.greedy:agent")
    assert [m.name for m in modules_by_name] == [m.name for m in modules_by_path] == [m.name for m in modules_by_dotted]
    strip = lambda text: text.split("\n", 2)[2]  # noqa: E731 (the header names the target as given)
    assert strip(by_name) == strip(by_path) == strip(by_dotted)


def test_every_module_directly_in_agents_is_an_agent_and_help_lists_them():
    import importlib

    names = builder.agent_names(builder.Project())
    assert "greedy" in names and "solver" in names and "opening_book" not in names
    for name in names:
        assert callable(importlib.import_module(f"agents.{name}").agent), name
    run = subprocess.run([sys.executable, os.path.join(ROOT, "build_submission.py"), "--help"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0 and ", ".join(names) in " ".join(run.stdout.split())


def test_load_resource_reads_the_nearest_data_folder_unbuilt(outside, monkeypatch):
    from connectx_toolkit.agents.core.resources import find_resource

    write(outside, {"bot/data/a.bin": "top", "bot/pkg/__init__.py": "", "bot/pkg/data/a.bin": "inner",
                    "bot/pkg/sub/__init__.py": "", "bot/pkg/sub/mod.py": "", "bot/main.py": ""})
    assert find_resource("a.bin", str(outside / "bot" / "main.py")) == str(outside / "bot" / "data" / "a.bin")
    inner = str(outside / "bot" / "pkg" / "data" / "a.bin")
    assert find_resource("a.bin", str(outside / "bot" / "pkg" / "sub" / "mod.py")) == inner
    assert find_resource("b.bin", str(outside / "bot" / "main.py")) is None
    monkeypatch.chdir(outside / "bot")  # a notebook cell has no file: its working directory's data/
    assert find_resource("a.bin", "<ipython-input-3-abc>") == str(outside / "bot" / "data" / "a.bin")
    assert find_resource("connect4_book.bin", os.path.join(ROOT, "agents", "solver_engine", "opening_book.py")) == \
        os.path.join(ROOT, "agents", "data", "connect4_book.bin")
