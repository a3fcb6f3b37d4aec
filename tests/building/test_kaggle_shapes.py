"""The builder takes every agent Kaggle plays: the shapes it used to refuse or break, written as their authors
write them, built from outside the repository, then played by Kaggle's own loader and referee in a clean
interpreter (``python -I``, an empty folder, the project not importable; a bundle unpacked at
/kaggle_simulations/agent inside a sandbox, as Kaggle unpacks it).

- a library probing the temp folder at import (torch and dill do, through ``tempfile.gettempdir()``);
- optional imports (``try: from fast_book import BOOK`` / ``except ImportError: BOOK = {}``);
- Kaggle paths read with a fallback, and bundles that try weight paths they can live without;
- entries of any callable kind: function, ``functools.partial``, an object with ``__call__``, a class;
- a neural agent's bundle (a stand-in for torch that probes the temp folder and loads a weights file);
- messages that are true: file names as written, a forfeit is a loss, the agent's own file:line.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from kaggle_environments.utils import Struct

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.building import BUNDLE_ROOT, BuildError, InputError, build, build_text, format_agent_error, unpack_bundle
from connectx_toolkit.building.validation import CHECK_SCRIPT, format_report
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.sandbox import Sandbox, SandboxUnavailable, require
from tests.helpers import played_without_forfeit, run_clean_script, taking_turns

ROOT = builder.ROOT
ORDER = (3, 2, 4, 1, 5, 0, 6)

# Positions (6x7, the board's top row first) for the moves of a built agent against its unbuilt self.
CASES = [
    {"board": [0] * 42, "mark": 1},
    {"board": [0] * 38 + [1, 2, 1, 0], "mark": 2},
    {"board": [0, 0, 0, 1, 0, 0, 0] + [0, 0, 0, 2, 0, 0, 0] * 1 + [0, 0, 0, 1, 0, 0, 0] * 4, "mark": 2},
    {"board": [0, 0, 2, 1, 0, 0, 0] + [0] * 35, "mark": 1},
]

CLEAN_ROOM = """
import importlib.util, json, runpy, sys
runpy.run_path({check!r})["forget_editable_installs"]()  # as the validator does
assert importlib.util.find_spec("agents") is None and importlib.util.find_spec("building") is None
sys.path.extend({extra!r})  # where an allowed package is installed
"""
# What a single file plays through run_clean_script, which sets up the same clean room as CLEAN_ROOM (extra is a
# bundle's only)
CLEAN_PLAY = """
import json, sys
from kaggle_environments import make
from kaggle_environments.agent import get_last_callable
from kaggle_environments.utils import Struct
path, cases = sys.argv[1], json.load(open(sys.argv[2]))
entry = get_last_callable(open(path).read(), path=path)
config = Struct(rows=6, columns=7, inarow=4, actTimeout=2, timeout=2)
count = getattr(getattr(entry, "__code__", None), "co_argcount", 2)  # Kaggle's own rule
moves = [entry(*(Struct(board=case["board"], mark=case["mark"], step=0), config)[:count]) for case in cases]
games = []
for players in ((path, "random"), ("random", path)):
    env = make("connectx", debug=False)
    env.run(list(players))
    games.append([state.status for state in env.steps[-1]])
print(json.dumps({"moves": moves, "types": [type(m).__name__ for m in moves], "games": games}))
"""


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return folder


def sandbox_or_skip() -> None:
    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))


def kaggle_plays(tmp_path: Path, built: Path, extra: tuple[str, ...] = ()) -> dict:
    """Kaggle's loader and referee on the built file (or bundle, unpacked at /kaggle_simulations/agent in a
    sandbox) in a clean interpreter: the entry's moves on ``CASES`` and two games against random, which the
    submission must finish without a forfeit."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(CASES))
    script = CLEAN_ROOM.format(check=CHECK_SCRIPT, extra=list(extra)) + CLEAN_PLAY
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    if str(built).endswith(".tar.gz"):
        sandbox_or_skip()
        folder = tmp_path / "unpacked"
        folder.mkdir(mode=0o755)
        unpack_bundle(str(built), str(folder))
        box = Sandbox(files=(str(cases),), mounts=((str(folder), BUNDLE_ROOT), *((e, e) for e in extra)))
        run = box.run([sys.executable, "-I", "-c", script, f"{BUNDLE_ROOT}/main.py", str(cases)], capture_output=True,
                      text=True, timeout=180, cwd="/tmp")
    else:
        assert not extra, "a single file's packages are installed where the toolkit runs"
        run = run_clean_script(CLEAN_PLAY, str(built), str(cases), cwd=str(empty), timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["types"] == ["int"] * len(CASES), result
    assert result["games"] == [["DONE", "DONE"], ["DONE", "DONE"]], result
    return result


def unbuilt_moves(entry) -> list[int]:
    config = Struct(rows=6, columns=7, inarow=4, actTimeout=2, timeout=2)
    count = getattr(getattr(entry, "__code__", None), "co_argcount", 2)
    return [entry(*(Struct(board=case["board"], mark=case["mark"], step=0), config)[:count]) for case in CASES]


def first_open(board: list[int], order=ORDER) -> int:
    return next(c for c in order if board[c] == 0)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    assert not str(tmp_path).startswith(ROOT)
    return tmp_path


# ---------------------------------------------------------------------------------------------------
# 1. Probes are not reads


PROBING = '''
import os
import tempfile

# What torch and dill do at import: tempfile.gettempdir() creates and deletes a file in each candidate folder.
SCRATCH = tempfile.gettempdir()
os.stat(SCRATCH)
os.access(SCRATCH, os.R_OK)
os.listdir(SCRATCH)
os.close(os.open(SCRATCH, os.O_RDONLY))  # a folder opened, not a file read
HANDLE, CACHE = tempfile.mkstemp(suffix=".cache")
os.write(HANDLE, b"3")
os.close(HANDLE)
with open(CACHE) as cache:  # reading back what the agent wrote itself
    FAVOURITE = int(cache.read())
os.remove(CACHE)


def agent(obs, config):
    order = (FAVOURITE, 2, 4, 1, 5, 0, 6)
    return next(c for c in order if obs.board[c] == 0)
'''


def test_a_temp_folder_probe_and_the_agents_own_scratch_file_are_not_reads(outside):
    bot = write(outside / "bots", {"probing.py": PROBING}) / "probing.py"
    report = build(str(bot), outside / "submission.py")
    assert report.validation["reads"] == [] and report.validation["tries"] == [] and report.notes == []
    assert kaggle_plays(outside, outside / "submission.py")["moves"] == [first_open(c["board"]) for c in CASES]


def test_a_read_that_succeeds_here_and_fails_on_kaggle_is_refused_at_the_agents_line(outside, capsys):
    book = outside / "private" / "book.json"
    write(outside, {"private/book.json": "{}"})
    bot = write(outside / "bot", {
        "main.py": """
            import helper


            def agent(obs, config):
                return helper.move(obs.board)
        """,
        "helper.py": f"""
            import json

            ORDER = (3, 2, 4, 1, 5, 0, 6)
            with open({str(book)!r}) as handle:
                BOOK = json.load(handle)


            def move(board):
                return BOOK.get(str(board), next(c for c in ORDER if board[c] == 0))
        """,
    })
    out = outside / "submission.py"
    assert builder.main([str(bot), "-o", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"build_submission.py: error: {bot}/helper.py:4: the agent reads {str(book)!r} at run time, "
                   "which the build did not include: read data files with agents.core.resources.load_resource('NAME') "
                   "from a data/ folder, or build a bundle (-o submission.tar.gz)")
    assert not out.exists()


# ---------------------------------------------------------------------------------------------------
# 2. Optional imports


OPTIONAL = '''
try:
    from fast_book import BOOK
except ImportError:
    BOOK = {}
try:
    import numba_not_installed_here as numba
except ModuleNotFoundError:
    numba = None
try:
    from accelerated import best_column  # a module of its own that needs a package not installed
except Exception:
    best_column = None


def agent(obs, config):
    move = BOOK.get(tuple(obs.board))
    if move is None and best_column is not None:
        move = best_column(obs.board)
    if move is None:
        move = next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)
    return move
'''


def test_optional_imports_are_built_without_and_noted(outside):
    folder = write(outside / "book_bot", {
        "book_agent.py": OPTIONAL,
        "accelerated.py": "import cupy_not_installed_here\n\n\ndef best_column(board):\n    return 0\n",
    })
    report = build(str(folder / "book_agent.py"), outside / "submission.py")
    at = f"{folder}/book_agent.py"
    # neither name is a package of Kaggle's image: no install command (a stranger may publish either name)
    assert report.notes == [
        f"{at}:2: `from fast_book import BOOK` is optional (inside try/except ImportError): no module fast_book "
        "here; built without it, the agent runs its fallback",
        f"{at}:6: `import numba_not_installed_here as numba` is optional (inside try/except ImportError): no module "
        "numba_not_installed_here here; built without it, the agent runs its fallback",
        f"{at}:10: `from accelerated import best_column` is optional (inside try/except ImportError): accelerated "
        f"cannot be built ({folder}/accelerated.py:1: `import cupy_not_installed_here` (no module "
        "cupy_not_installed_here here)); built without it, the agent runs its fallback",
    ]
    assert report.modules == ["book_agent"] and report.external == []
    assert all(f"  note      {note}" in report.summary() for note in report.notes)
    assert kaggle_plays(outside, outside / "submission.py")["moves"] == [first_open(c["board"]) for c in CASES]


def test_evaluate_and_the_gate_load_an_agent_with_optional_imports(outside):
    from connectx_toolkit.evaluation.api import play_match
    from connectx_toolkit.evaluation.gate import GateSettings, prepare

    bot = write(outside, {"book_agent.py": OPTIONAL}) / "book_agent.py"
    spec = resolve_agent(str(bot))
    assert spec.kind == "file"  # as Kaggle loads it: the fallback runs
    assert played_without_forfeit(play_match(str(bot), "random", games=2, workers=1), 2)
    context, load = prepare(GateSettings(candidate=str(bot), baseline="random"))
    assert load.passed and context is not None, load.reasons


def test_every_import_the_agent_cannot_run_without_is_named_in_one_message(outside, capsys):
    folder = write(outside / "heavy", {
        "main.py": "import fast_book\nimport helper\nfrom numba import njit\n\n\ndef agent(obs, config):\n"
                   "    return 3\n",
        "helper.py": "import scipy_fancy.optimize\n",
    })
    out = outside / "submission.py"
    assert builder.main([str(folder), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    numba = "no module numba here" if __import__("importlib").util.find_spec("numba") is None else \
        "numba is not allowed without --allow-import numba"
    assert err == (f"build_submission.py: error: 3 imports the agent cannot run without: {folder}/main.py:1: "
                   f"`import fast_book` (no module fast_book here); {folder}/main.py:3: `from numba import njit` "
                   f"({numba}); {folder}/helper.py:1: `import scipy_fancy.optimize` (no module scipy_fancy here) "
                   "(an import inside try/except ImportError is optional and left out)"
                   + (f"; not installed here: {sys.executable} -m pip install numba, then --allow-import numba"
                      if "no module" in numba else "") + "\n")  # numba only: a package of Kaggle's image


# ---------------------------------------------------------------------------------------------------
# 3. Kaggle paths read with a fallback


def test_a_single_file_that_tries_the_bundle_folder_and_falls_back_builds_with_a_note(outside):
    bot = write(outside, {"weights_fallback.py": """
        try:
            with open("/kaggle_simulations/agent/weights.pth", "rb") as handle:
                WEIGHTS = handle.read()
        except OSError:
            WEIGHTS = b""


        def agent(obs, config):
            return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)
    """}) / "weights_fallback.py"
    report = build(str(bot), outside / "submission.py")
    assert report.notes == [f"{bot}:2: tries /kaggle_simulations/agent/weights.pth, falls back when absent: ship it "
                            "in a bundle to use it (-o submission.tar.gz)"]
    kaggle_plays(outside, outside / "submission.py")
    # evaluate.py builds it (it names the bundle folder) and plays it, where it refused it as a single file
    from connectx_toolkit.evaluation.api import play_match

    assert resolve_agent(str(bot)).kind == "built"
    assert played_without_forfeit(play_match(str(bot), "random", games=2, workers=1), 2)


WEIGHT_PATHS = '''
WEIGHTS = None
for path in ("weights.pth", "/kaggle/input/connectx/weights.pth", "/kaggle_simulations/agent/weights.pth"):
    try:
        with open(path, "rb") as handle:
            WEIGHTS = handle.read()
        break
    except OSError:
        continue
FAVOURITE = WEIGHTS[0] if WEIGHTS else 3


def agent(obs, config):
    order = (FAVOURITE, 3, 2, 4, 1, 5, 0, 6)
    return next(c for c in order if obs.board[c] == 0)
'''


def test_a_bundle_that_tries_weight_paths_it_can_live_without_builds_and_uses_its_own(outside, bubblewrap):
    folder = write(outside / "weights_bot", {"main.py": WEIGHT_PATHS, "weights.pth": bytes([5])})
    out = outside / "submission.tar.gz"
    report = build(str(folder), out)
    assert report.notes == [
        f"{folder}/main.py:4: tries 'weights.pth', falls back when absent: it opens 'weights.pth' relative to the "
        "working directory; a bundle's files are reached on Kaggle at /kaggle_simulations/agent/weights.pth",
        f"{folder}/main.py:4: tries /kaggle/input/connectx/weights.pth, falls back when absent (Kaggle runs the "
        "submission without it)",
    ]
    played = kaggle_plays(outside, out)
    assert played["moves"] == [first_open(c["board"], (5, *ORDER)) for c in CASES]  # the weights were read


@pytest.mark.parametrize("out_name", ["submission.py", "submission.tar.gz"])
def test_a_relative_read_without_fallback_is_refused_naming_the_working_directory(outside, capsys, out_name):
    if out_name.endswith(".tar.gz"):
        sandbox_or_skip()
    folder = write(outside / "relative", {"main.py": """
        with open("weights.pth", "rb") as handle:
            WEIGHTS = handle.read()


        def agent(obs, config):
            return 3
    """, "weights.pth": b"w"})
    out = outside / out_name
    assert builder.main([str(folder), "-o", str(out)]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"build_submission.py: error: {folder}/main.py:1: the agent reads 'weights.pth' at run time, which the build "
        "did not include: it opens 'weights.pth' relative to the working directory; a bundle's files are reached on "
        "Kaggle at /kaggle_simulations/agent/weights.pth")
    assert not out.exists()


# ---------------------------------------------------------------------------------------------------
# 4. Entries of any callable kind, in the single file and in bundles alike


ENTRIES = {
    "function": ('''
        def agent(obs, config):
            return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)
    ''', "agent", "the file's function agent", "a function agent"),
    "partial": ('''
        import functools


        def play(obs, config, order):
            return next(c for c in order if obs.board[c] == 0)


        agent = functools.partial(play, order=(3, 2, 4, 1, 5, 0, 6))
    ''', "agent", "the file's functools.partial agent", "a functools.partial of a function play"),
    "object": ('''
        class Agent:
            def __init__(self, order):
                self.order = order

            def __call__(self, obs, config):
                return next(c for c in self.order if obs.board[c] == 0)


        my_agent = Agent((3, 2, 4, 1, 5, 0, 6))
    ''', "my_agent", "Kaggle's last callable, an instance of Agent", "an object, an instance of Agent"),
    "class": ('''
        class agent:
            """Kaggle calls the class; the call returns the move."""

            def __new__(cls, obs, config):
                return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)
    ''', "agent", "the file's class agent", "a class agent"),
}


def unbuilt(source: str):
    from kaggle_environments.agent import get_last_callable

    return get_last_callable(textwrap.dedent(source))


SHAPES = ["single file", "bundle of a file", "bundle with its own main.py"]


def in_shapes(names, start: int = 0) -> list:
    """(name, shape) for every name in every shape. A bundle costs ~2 s of CPU (two sandboxed interpreters), so
    the default run builds each name as a single file and in one of the two bundle shapes, the shapes taking
    turns; the other bundle shape runs under ``-m slow``."""
    return taking_turns(names, SHAPES[1:], always=SHAPES[:1], start=start)


@pytest.mark.parametrize(("kind", "shape"), in_shapes(ENTRIES))
def test_an_entry_of_any_kind_builds_and_plays_as_kaggle_calls_it(outside, kind, shape):
    report = entry_built_and_played(outside, ENTRIES[kind], shape)
    if shape == "bundle with its own main.py":  # Kaggle calls the agent's own last callable: main.py as written
        assert report.files["main.py"] == len(textwrap.dedent(ENTRIES[kind][0]).lstrip("\n").encode())


def entry_built_and_played(outside: Path, entry: tuple[str, str, str, str], shape: str, bound: str | None = None):
    """Build an agent whose entry is ``entry`` (source, the entry's name, why, how validation names it) in
    ``shape``; its built moves are Kaggle's loader's on the unbuilt source. The build's report. ``bound``: the
    name the executed module binds the entry to, when it is not the one the source reads."""
    source, function, reason, called = entry
    function = bound or function
    name = "main.py" if shape == "bundle with its own main.py" else "kaggle_agent.py"
    folder = write(outside / "bot", {name: source})
    out = outside / ("submission.py" if shape == "single file" else "submission.tar.gz")
    if out.name.endswith(".tar.gz"):
        sandbox_or_skip()
    report = build(str(folder / name) if name != "main.py" else str(folder), out)
    assert (report.function, report.reason) == (function, reason)
    assert report.validation["entry"].startswith(called), report.validation["entry"]  # named as it is found
    played = kaggle_plays(outside, out)
    assert played["moves"] == unbuilt_moves(unbuilt(source)) == [first_open(c["board"]) for c in CASES]
    return report


WRONG_SIGNATURE = '''
def agent(obs, config, depth):
    return 3
'''


@pytest.mark.parametrize("out_name", ["submission.py", "submission.tar.gz"])
def test_an_entry_that_cannot_be_called_is_blamed_at_its_own_line_never_the_wrappers(outside, out_name):
    if out_name.endswith(".tar.gz"):
        sandbox_or_skip()
    bot = write(outside, {"deep_bot.py": WRONG_SIGNATURE}) / "deep_bot.py"
    with pytest.raises(BuildError) as caught:
        build(str(bot), outside / out_name)
    assert caught.value.exit_code == 1
    assert str(caught.value) == ("validation failed: game against itself: ERROR as player 1 at ply 1: deep_bot.py:1 in "
                                 "agent: TypeError: agent() missing 1 required positional argument: 'depth'")


def test_the_evaluators_error_line_never_names_the_wrapper(outside):
    """What evaluate.py reports for a built agent's error (format_agent_error on the exception object)."""
    bot = write(outside, {"deep_bot.py": WRONG_SIGNATURE + "\n\ndef _helper():\n    pass\n"}) / "deep_bot.py"
    text = build_text(str(bot))[0]
    namespace: dict = {}
    exec(compile(text, str(outside / "agent0.py"), "exec"), namespace)  # as Kaggle's loader runs the built file
    with pytest.raises(TypeError) as caught:
        namespace["agent"](Struct(board=[0] * 42, mark=1), Struct(columns=7))
    assert format_agent_error(caught.value) == ("deep_bot.py:1 in agent: TypeError: agent() missing 1 required "
                                                "positional argument: 'depth'")


# ---------------------------------------------------------------------------------------------------
# 5. A neural agent's bundle


FAKENET = '''
"""A stand-in for torch: it probes the temp folder at import, as torch does, and loads a weights file."""
import tempfile

_CACHE_DIR = tempfile.gettempdir()


def load(path):
    with open(path, "rb") as handle:
        return list(handle.read())
'''

NEURAL = '''
import fakenet

MODEL = fakenet.load("/kaggle_simulations/agent/weights.pth")


def agent(obs, config):
    scores = MODEL[:config.columns]
    order = sorted(range(config.columns), key=lambda c: -scores[c])
    return next(c for c in order if obs.board[c] == 0)
'''


def test_a_neural_agents_bundle_builds_with_allow_import_and_plays_with_its_weights(outside, monkeypatch):
    sandbox_or_skip()
    site = write(outside / "installed" / "site-packages", {"fakenet/__init__.py": FAKENET})
    monkeypatch.syspath_prepend(str(site))  # installed where this interpreter finds it (not an import root)
    folder = write(outside / "neural", {"main.py": NEURAL, "weights.pth": bytes([1, 2, 9, 5, 3, 2, 1])})
    out = outside / "submission.tar.gz"
    report = build(str(folder), out, allow_imports=["fakenet"])
    assert report.external == ["fakenet"] and set(report.files) == {"main.py", "weights.pth"}
    assert report.validation["reads"] == [] and report.notes == []
    played = kaggle_plays(outside, out, extra=(str(site),))
    assert played["moves"] == [first_open(c["board"], (2, 3, 4, 1, 5, 0, 6)) for c in CASES]


@pytest.mark.skipif(__import__("importlib").util.find_spec("torch") is not None, reason="torch is installed here")
def test_a_torch_agent_where_torch_is_not_installed_is_one_line(outside, capsys):
    folder = write(outside / "torch_bot", {"main.py": NEURAL.replace("fakenet", "torch"), "weights.pth": b"\x01"})
    out = outside / "submission.tar.gz"
    assert builder.main([str(folder), "-o", str(out), "--allow-import", "torch"]) == 2
    assert capsys.readouterr().err == (f"build_submission.py: error: --allow-import torch: torch is not installed in "
                                       f"the toolkit's environment; install it with: {sys.executable} -m pip install "
                                       "torch\n")
    assert builder.main([str(folder), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{folder}/main.py:1: `import torch` in module main: no module torch" in err
    assert not out.exists()


# ---------------------------------------------------------------------------------------------------
# 6. Messages that are true


HYPHENATED = '''
import json


def agent(obs, config):
    if sum(1 for cell in obs.board if cell) >= 4:
        return json.loads("")
    return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)
'''


@pytest.mark.parametrize("out_name", ["submission.py", "submission.tar.gz"])
def test_a_file_name_is_told_as_its_author_wrote_it(outside, out_name):
    if out_name.endswith(".tar.gz"):
        sandbox_or_skip()
    bot = write(outside, {"connectx-minimax-approach.py": HYPHENATED}) / "connectx-minimax-approach.py"
    with pytest.raises(BuildError) as caught:
        build(str(bot), outside / out_name)
    assert "connectx-minimax-approach.py:6 in agent: JSONDecodeError" in str(caught.value)
    assert "connectx_minimax_approach" not in str(caught.value) + format_report(caught.value.report)
    working = write(outside, {"my-bot.py": ENTRIES["function"][0]}) / "my-bot.py"
    report = build(str(working), outside / out_name)
    assert report.modules == ["my-bot.py"]
    if out_name.endswith(".tar.gz"):
        assert set(report.files) == {"main.py", "my-bot.py"}
    kaggle_plays(outside, outside / out_name)


def test_a_forfeit_reads_as_a_loss_in_the_validation_table():
    import runpy

    outcome = runpy.run_path(CHECK_SCRIPT)["outcome"]
    done, timeout = Struct(status="DONE", reward=0), Struct(status="TIMEOUT", reward=None)
    assert outcome([done, timeout], (0, 1)) == "loss (timeout)"  # the validation episode: the second copy timed out
    assert outcome([timeout, done], (0,)) == "loss (timeout)"
    assert outcome([Struct(status="DONE", reward=1), Struct(status="DONE", reward=-1)], (0, 1)) == "1 won"
    assert outcome([Struct(status="DONE", reward=0), Struct(status="DONE", reward=0)], (1,)) == "draw"
    table = format_report({"ok": False, "reason": "game against itself: TIMEOUT as player 2 at ply 8", "games": [
        {"opponent": "itself", "seat": "1+2", "result": "loss (timeout)", "moves": 8, "max_move_s": 40.0}]})
    assert "  itself    1+2   loss (timeout)      8      40.000" in table


@pytest.mark.slow
def test_a_validation_game_lost_by_timeout_reads_loss_timeout(outside):
    """The validation episode with the second copy running out of its 60 s bank (~80 s)."""
    bot = write(outside, {"slow.py": """
        import time


        def agent(obs, config):
            if obs.mark == 2 and obs.step >= 5:
                time.sleep(40)
            return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)
    """}) / "slow.py"
    with pytest.raises(BuildError) as caught:
        build(str(bot), outside / "submission.py")
    assert caught.value.report["games"][0]["result"] == "loss (timeout)"
    assert "TIMEOUT as player 2" in str(caught.value)


def test_every_refusal_names_the_agents_file_and_line(outside):
    """The refusals above, side by side: each starts with the agent's own file:line."""
    cases = {
        "reads_book.py": ("import os\nBOOK = open(os.path.expanduser('~/.bashrc_missing_for_sure')).read()\n\n\n"
                          "def agent(obs, config):\n    return 3\n", ":2: the agent reads"),
        "needs_fast_book.py": ("from fast_book import BOOK\n\n\ndef agent(obs, config):\n    return 3\n",
                               ":1: `from fast_book import BOOK`"),
    }
    for name, (source, expected) in cases.items():
        bot = write(outside, {name: source}) / name
        with pytest.raises(InputError) as caught:
            build(str(bot), outside / "submission.py")
        assert str(caught.value).startswith(f"{bot}{expected}"), str(caught.value)


# ---------------------------------------------------------------------------------------------------
# Entries the source alone cannot name: Kaggle's last callable of the executed module

RUN_TIME_ENTRIES = {
    # a public numba MCTS ends so: the entry bound inside a top-level if (was "defines no top-level mcts_agent")
    "bound inside an if": ('''
        mp_or_sp = "sp"


        def legal(obs, config):
            return [c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0]


        def sp_mcts_agent(obs, config):
            return legal(obs, config)[0]


        def mp_mcts_agent(obs, config):
            return legal(obs, config)[-1]


        if mp_or_sp == "sp":
            mcts_agent = sp_mcts_agent
        elif mp_or_sp == "mp":
            mcts_agent = mp_mcts_agent
    ''', "mcts_agent", "Kaggle's last callable of the executed module", "a function sp_mcts_agent"),
    # agent = SimpleAgent(game), an instance without __call__ (was "'SimpleAgent' object is not callable")
    "a non-callable agent": ('''
        class SimpleAgent:
            def __init__(self, game):
                self.game = game

            def act(self, obs, config):
                return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)


        def my_agent(obs, config):
            return agent.act(obs, config)


        game = "connectx"
        agent = SimpleAgent(game)
    ''', "my_agent", "agent if callable once the file has run, else Kaggle's last callable of the executed module",
        "a function my_agent"),
    "a computed name": ('''
        def _first_open(obs, config):
            return next(c for c in (3, 2, 4, 1, 5, 0, 6) if obs.board[c] == 0)


        for _name in ("opening_agent",):
            globals()[_name] = _first_open
    ''', "_first_open", "Kaggle's last callable of the executed module", "a function _first_open"),
}
# The build prints the name Kaggle's get_last_callable finds the entry bound to once the file has run (the
# source's guess above is what evaluate notes, without running it).
BOUND_AS = {"a computed name": "opening_agent"}


@pytest.mark.parametrize(("case", "shape"), in_shapes(RUN_TIME_ENTRIES, start=len(ENTRIES)))
def test_an_entry_the_source_cannot_name_is_kaggles_last_callable_of_the_executed_module(outside, case, shape):
    entry_built_and_played(outside, RUN_TIME_ENTRIES[case], shape, BOUND_AS.get(case))


@pytest.mark.parametrize("case", list(RUN_TIME_ENTRIES))
def test_evaluate_plays_an_entry_the_source_cannot_name_as_kaggle_finds_it(outside, case, capsys):
    from connectx_toolkit.cli import evaluate

    source, function, _, _ = RUN_TIME_ENTRIES[case]
    path = write(outside / "bot", {"kaggle_agent.py": source}) / "kaggle_agent.py"
    spec = resolve_agent(str(path))
    assert spec.kind == "file" and f"({function} as the source reads)" in spec.note
    code = evaluate.main([str(path), "random", "-n", "2", "--workers", "1", "--no-progress", "--json",
                          "--results", str(outside / "r.jsonl")])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["agents"][0]["errors"] == 0 and summary["agents"][0]["invalid"] == 0


def test_the_gate_passes_an_entry_bound_inside_a_top_level_if(outside, capsys, monkeypatch):
    from connectx_toolkit.cli import evaluate

    path = write(outside / "bot", {"mcts_agent.py": RUN_TIME_ENTRIES["bound inside an if"][0]}) / "mcts_agent.py"
    monkeypatch.chdir(ROOT)
    # in this process: the gate's verdict, not the command's process, is what is checked (a new interpreter and
    # its imports cost ~0.7 CPU s more)
    code = evaluate.main(["--gate", str(path), "--baseline", "random", "-n", "4", "--workers", "2", "--json"])
    done = capsys.readouterr()
    report = json.loads(done.out)
    assert code == 0 and report["verdict"] == "PASS", (report.get("reasons"), done.err[-2000:])
    assert "Kaggle calls the last callable of mcts_agent.py once it has run" in report["checks"][0]["note"]


def test_one_missing_package_is_counted_once_with_the_pip_line(outside, capsys):
    write(outside, {"one.py": """
        import nosuch_torch
        import nosuch_torch.nn as nn
        from nosuch_torch import optim


        def agent(obs, config):
            return 0
    """, "two.py": """
        import nosuch_torch
        import nosuch_torch.nn
        import nosuch_numba


        def agent(obs, config):
            return 0
    """})
    with pytest.raises(InputError) as one:
        build_text(str(outside / "one.py"))
    assert str(one.value).startswith(f"{outside / 'one.py'}:1: `import nosuch_torch` in module one: no module")
    assert "pip install" not in str(one.value)  # not a package of Kaggle's image: never an install command
    assert str(one.value).endswith(f"the agent's own module is missing beside it (looked for nosuch_torch.py in "
                                   f"{outside}); put it there, or give its folder with --path")
    with pytest.raises(InputError) as two:
        build_text(str(outside / "two.py"))
    assert str(two.value).startswith("2 imports the agent cannot run without: ")
    assert "pip install" not in str(two.value)


def test_an_optional_import_found_nowhere_gets_the_pip_line_only_for_a_package_of_kaggles_image(outside):
    if __import__("importlib").util.find_spec("catboost") is not None:
        pytest.skip("catboost is installed here")
    write(outside, {"opt.py": """
        try:
            import nosuch_psutil
        except ImportError:
            nosuch_psutil = None
        try:
            import catboost
        except ImportError:
            catboost = None


        def agent(obs, config):
            return [c for c in range(config.columns) if obs.board[c] == 0][0]
    """})
    report = build(str(outside / "opt.py"), outside / "submission.py")
    (own,) = [note for note in report.notes if "nosuch_psutil" in note]
    assert own.endswith("built without it, the agent runs its fallback")
    (image,) = [note for note in report.notes if "catboost" in note]
    assert image.endswith(f"; to use it: {sys.executable} -m pip install catboost, then --allow-import catboost")
