"""build_submission.py: inlining, namespaces, data, the last callable, validation and the CLI.

Fixture agents live in tests/fixtures/buildproject (package ``fxagents`` and its data directory); the
builder is pointed at them the way the CLI's hidden ``--search-path/--package/--data-dir`` options do.
Built files are checked where they will run: in a clean interpreter (``python -I``, an empty working
directory, the project not importable), loaded with Kaggle's own loader.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kaggle_environments.agent import get_last_callable
from kaggle_environments.utils import Struct

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.agents import greedy
from connectx_toolkit.agents.core import Config, Position
from tests.helpers import REPO, run_clean_script

FIXTURES = os.path.join(REPO, "tests", "fixtures", "buildproject")
FIXTURE_DATA = os.path.join(FIXTURES, "data")
FIXTURE_PROJECT = builder.Project(search_path=(FIXTURES, builder.ROOT), package="fxagents", data_dir=FIXTURE_DATA)
FIXTURE_ARGS = ["--search-path", FIXTURES, "--package", "fxagents", "--data-dir", FIXTURE_DATA]
EMPTY_6X7 = Struct(board=[0] * 42, mark=1)
STANDARD = Struct(rows=6, columns=7, inarow=4)


def fixture_text(agent: str) -> str:
    return builder.build_text(agent, FIXTURE_PROJECT)[0]


def run_clean(tmp_path, text: str, script: str, *args: str) -> dict:
    """Run ``script`` in ``python -I`` in an empty directory with the built file at sys.argv[1].

    The script gets ``load()`` (Kaggle's loader on the file) and must print one JSON object.
    """
    upload = tmp_path / "upload"
    upload.mkdir()
    path = upload / "submission.py"
    path.write_text(text, encoding="utf-8")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    # run_clean_script forgets the project as the validator does and checks that neither it nor fxagents (the
    # fixtures) is importable
    prelude = textwrap.dedent(
        """
        import json, sys
        from kaggle_environments.agent import get_last_callable
        from kaggle_environments.utils import Struct

        def load():
            with open(sys.argv[1], encoding="utf-8") as handle:
                return get_last_callable(handle.read(), path=sys.argv[1])
        """
    )
    run = run_clean_script(prelude + textwrap.dedent(script), str(path), *args, cwd=str(cwd), timeout=60)
    assert run.returncode == 0, run.stderr
    assert os.listdir(cwd) == [], "the built file wrote to its working directory"
    return json.loads(run.stdout.strip().splitlines()[-1])


def random_positions(rng: random.Random, config: Config, count: int) -> list[Position]:
    """Positions reached by random play that are not over (someone to move, nobody has won)."""
    positions = []
    while len(positions) < count:
        position = Position(config)
        for _ in range(rng.randrange(config.cells)):
            moves = position.legal_moves()
            if not moves or position.last_player_won():
                break
            position.play(rng.choice(moves))
        if position.legal_moves() and not position.last_player_won():
            positions.append(position)
    return positions


# ---------------------------------------------------------------------------------------------------
# The built greedy agent is the module, move for move


def test_built_greedy_plays_the_modules_moves_in_a_clean_interpreter(tmp_path):
    text, modules, _ = builder.build_text("greedy")
    assert [m.name for m in modules][-1] == "agents.greedy"
    rng = random.Random(2024)
    cases = []
    for config in (Config(6, 7, 4), Config(5, 4, 3), Config(7, 9, 5), Config(3, 3, 1), Config(2, 8, 4)):
        for position in random_positions(rng, config, 12):
            mark = 1 + position.moves % 2
            cases.append({"board": position.to_board(mark), "mark": mark, "config": config.as_dict()})
    expected = []
    for seed, case in enumerate(cases):
        random.seed(seed)  # greedy breaks ties with the module-level random generator
        expected.append(greedy.agent(Struct(board=case["board"], mark=case["mark"]), Struct(**case["config"])))
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    script = """
        import random
        agent = load()
        cases = json.load(open(sys.argv[2]))
        moves = []
        for seed, case in enumerate(cases):
            random.seed(seed)
            move = agent(Struct(board=case["board"], mark=case["mark"]), Struct(**case["config"]))
            assert type(move) is int, type(move)
            moves.append(move)
        print(json.dumps({"name": agent.__name__, "moves": moves}))
    """
    result = run_clean(tmp_path, text, script, str(tmp_path / "cases.json"))
    assert result["name"] == "agent"
    assert result["moves"] == expected
    assert len(set(expected)) > 3, "sample positions too uniform to compare anything"


# ---------------------------------------------------------------------------------------------------
# Modules keep their own namespaces; every import form is inlined


def test_modules_defining_the_same_names_keep_their_own_namespaces(tmp_path):
    text = fixture_text("collision")
    script = """
        agent = load()
        print(json.dumps({"move": agent(Struct(board=[0] * 42, mark=1), Struct(rows=6, columns=7, inarow=4))}))
    """
    # The fixture agent raises unless each module's functions see their own helper/WEIGHT.
    assert run_clean(tmp_path, text, script) == {"move": 3}


def test_every_import_form_is_inlined_once_in_dependency_order():
    text, modules, _ = builder.build_text("importforms", FIXTURE_PROJECT)
    names = [m.name for m in modules]
    assert sorted(names) == sorted([
        "fxagents", "fxagents.forms", "fxagents.forms.core", "fxagents.forms.aliased", "fxagents.forms.lazy",
        "fxagents.forms.deep", "fxagents.forms.deep.leaf", "fxagents.legal", "fxagents.importforms",
    ])
    assert "fxagents.forms.unused" not in names  # never imported: its forbidden import is irrelevant
    position = {name: i for i, name in enumerate(names)}
    assert position["fxagents"] < position["fxagents.forms"] < position["fxagents.forms.deep"]
    assert position["fxagents.forms.core"] < position["fxagents.forms"]  # forms/__init__ imports core
    assert position["fxagents.forms.deep"] < position["fxagents.forms.deep.leaf"]
    assert names[-1] == "fxagents.importforms"
    for name in names:
        assert text.count(f"_SOURCES[{name!r}] = ") == 1
    # The fixture agent raises unless every form bound the right object.
    assert get_last_callable(text)(EMPTY_6X7, STANDARD) == 3


def test_fixture_agents_behave_the_same_when_imported_normally(monkeypatch):
    monkeypatch.syspath_prepend(FIXTURES)
    import importlib

    for name, move in (("collision", 3), ("importforms", 3), ("lastcallable", 2), ("cycle", 4)):
        module = importlib.import_module(f"fxagents.{name}")
        assert module.agent(EMPTY_6X7, STANDARD) == move
    for name in [n for n in sys.modules if n == "fxagents" or n.startswith("fxagents.")]:
        monkeypatch.delitem(sys.modules, name)


def test_an_import_cycle_between_project_modules_works_as_in_python():
    text, modules, _ = builder.build_text("cycle", FIXTURE_PROJECT)
    names = [m.name for m in modules]
    assert names.count("fxagents.cycle_a") == names.count("fxagents.cycle_b") == 1
    assert get_last_callable(text)(EMPTY_6X7, STANDARD) == 4


def test_built_files_do_not_register_modules_or_disturb_each_other():
    import connectx_toolkit.agents.core.config as real_config

    before = set(sys.modules)
    first = get_last_callable(fixture_text("collision"))
    second = get_last_callable(fixture_text("importforms"))
    third = get_last_callable(builder.build_text("greedy")[0])
    assert set(sys.modules) == before
    assert sys.modules["connectx_toolkit.agents.core.config"] is real_config
    assert (first(EMPTY_6X7, STANDARD), second(EMPTY_6X7, STANDARD), third(EMPTY_6X7, STANDARD)) == (3, 3, 3)


def test_inlined_module_globals_look_like_an_imported_module():
    env: dict = {}
    exec(compile(builder.build_text("greedy")[0], "submission.py", "exec"), env)
    loaded = env["_LOADED"]
    assert loaded["agents.core"].__package__ == "agents.core" and loaded["agents.core"].__path__ == []
    assert loaded["agents.core.config"].__package__ == "agents.core"
    assert loaded["agents.greedy"].__name__ == "agents.greedy"
    assert not hasattr(loaded["agents.greedy"], "__file__")
    assert loaded["agents"].core is loaded["agents.core"]
    assert loaded["agents.greedy"].Position is loaded["agents.core.position"].Position


# ---------------------------------------------------------------------------------------------------
# Forbidden imports and bad input


@pytest.mark.parametrize(
    ("agent", "where", "statement"),
    [
        ("forbidden", "fxagents/forbidden.py:5", "import requests"),
    ],
)
def test_a_forbidden_import_is_an_input_error_naming_import_and_module(tmp_path, capsys, agent, where, statement):
    out = tmp_path / "out.py"
    assert builder.main([agent, "-o", str(out), *FIXTURE_ARGS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert where in err and f"`{statement}`" in err
    assert not out.exists()


def test_a_forbidden_import_inside_a_function_never_called_is_a_note(tmp_path, capsys):
    """It runs only when the function is called, never when Kaggle loads the file: the build passes and says so."""
    out = tmp_path / "out.py"
    assert builder.main(["forbidden_deep", "-o", str(out), *FIXTURE_ARGS]) == 0
    printed = capsys.readouterr().out
    assert ("note      an import inside functions left out (one runs only when its function is called, not when "
            "the file loads): ") in printed
    assert "fxagents/uses_scipy.py:2: `import scipy.optimize` in solve() (" in printed
    assert out.exists()


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("no_such_agent", "unknown agent 'no_such_agent'"),
        ("../greedy", "unknown agent '../greedy'"),
        ("nofunction", "nofunction.py defines no callable (Kaggle calls the file's last callable)"),
        ("resource_variable", "resource_variable.py:4: load_resource() needs a string literal"),
        ("resource_missing", "resource_missing.py:3: cannot read data file"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, agent, message):
    out = tmp_path / "out.py"
    assert builder.main([agent, "-o", str(out), *FIXTURE_ARGS]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not out.exists()


def test_unknown_agent_from_the_command_line_lists_the_agents(tmp_path):
    out = tmp_path / "out.py"
    run = subprocess.run(
        [sys.executable, builder.__file__, "nonexistent", "-o", str(out)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "greedy" in run.stderr and "Traceback" not in run.stderr
    assert not out.exists()


# ---------------------------------------------------------------------------------------------------
# The last callable, data, the file's text


def test_the_agent_is_the_last_callable_even_with_callables_after_it_in_the_module():
    text, modules, _ = builder.build_text("lastcallable", FIXTURE_PROJECT)
    plain = get_last_callable(modules[-1].source.replace("from fxagents.legal import", "import math as"))
    assert plain.__name__ == "floor"  # what Kaggle would call if the module were uploaded as it is
    entry = get_last_callable(text)
    assert entry.__name__ == "agent" and entry.__code__.co_argcount == 2
    assert entry(EMPTY_6X7, STANDARD) == 2
    env: dict = {}
    exec(text, env)
    assert [k for k, v in env.items() if callable(v)][-1] == "agent"
    assert list(env).index("agent") == len(env) - 1  # a fresh key, defined last


def test_an_embedded_resource_round_trips_and_the_file_never_touches_the_disk(tmp_path):
    text, _, resources = builder.build_text("resourceful", FIXTURE_PROJECT)
    with open(os.path.join(FIXTURE_DATA, "fixture_table.bin"), "rb") as handle:
        original = handle.read()
    assert resources == {"fixture_table.bin": original}
    script = """
        import hashlib, io
        text = open(sys.argv[1], encoding="utf-8").read()
        real_open, io_open = open, io.open
        def no_files(*args, **kwargs):
            raise AssertionError(f"the submission opened a file: {args}")
        import builtins
        builtins.open = io.open = no_files  # the embedded data must suffice
        env = {}
        exec(compile(text, sys.argv[1], "exec"), env)
        agent = [v for v in env.values() if callable(v)][-1]
        move = agent(Struct(board=[0] * 42, mark=1), Struct(rows=6, columns=7, inarow=4))
        table = env["_LOADED"]["fxagents.resourceful"].TABLE
        builtins.open, io.open = real_open, io_open
        print(json.dumps({"move": move, "sha256": hashlib.sha256(table).hexdigest()}))
    """
    result = run_clean(tmp_path, text, script)
    assert result == {"move": original[0], "sha256": hashlib.sha256(original).hexdigest()}


def test_the_build_is_deterministic_and_readable():
    first, modules, _ = builder.build_text("greedy")
    second, _, _ = builder.build_text("greedy")
    assert first == second
    assert first.isascii()
    assert "generated by build_submission.py, do not edit" in first.lower()
    assert "agents.core.position" in first.splitlines()[2]
    greedy_source = next(m.source for m in modules if m.name == "agents.greedy")
    assert greedy_source.splitlines()[0] in first  # sources stay readable, line for line
    assert builder.sources_digest(modules, {}) in first


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_source_text_survives_quoting(text):
    assert eval(builder.triple_quoted(text)) == text


# ---------------------------------------------------------------------------------------------------
# Validation and the command line


def test_a_valid_build_exits_0_and_prints_what_to_upload(tmp_path, capsys):
    out = tmp_path / "sub" / "submission.py"
    assert builder.main(["greedy", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    data = out.read_bytes()
    assert data.decode() == builder.build_text("greedy")[0]
    assert hashlib.sha256(data).hexdigest() in printed and f"{len(data):,} bytes" in printed
    for opponent in ("itself", "random", "negamax"):
        assert f"\n  {opponent}" in printed
    assert "passed" in printed and "load" in printed
    assert f"kaggle competitions submit -c connectx -f {out} -m" in printed
    assert os.listdir(out.parent) == ["submission.py"]  # no temporary files left behind


@pytest.mark.parametrize(
    ("agent", "reason"),
    [
        ("returns99", "game against itself: INVALID as player 1 at ply 1 (returned 99)"),
        ("raises", "game against itself: ERROR as player 1 at ply 1: raises.py:2 in agent: RuntimeError: fixture agent fails on purpose"),
        ("loadfails", "Kaggle's loader failed: loadfails.py:3 in <module>: RuntimeError: fixture module fails at "
                      "import on purpose\n"),
    ],
)
def test_a_failing_agent_exits_1_and_leaves_out_untouched(tmp_path, capsys, agent, reason):
    out = tmp_path / "submission.py"
    out.write_text("# the previous, good submission\n")
    assert builder.main([agent, "-o", str(out), *FIXTURE_ARGS]) == 1
    err = capsys.readouterr().err
    assert reason in err
    assert out.read_text() == "# the previous, good submission\n"
    assert os.listdir(tmp_path) == ["submission.py"]


def test_a_failing_agent_leaves_no_file_at_a_new_out(tmp_path, capsys):
    out = tmp_path / "new" / "submission.py"
    assert builder.main(["returns99", "-o", str(out), *FIXTURE_ARGS]) == 1
    assert "returned 99" in capsys.readouterr().err
    assert not out.exists()


def test_an_agent_that_never_returns_cannot_hang_the_build(tmp_path, capsys):
    out = tmp_path / "submission.py"
    assert builder.main(["hangs", "-o", str(out), "--timeout", "6", *FIXTURE_ARGS]) == 1
    assert "did not finish within 6 s" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.bench
def test_bench_load_time_with_a_multi_megabyte_resource(tmp_path):
    """Prints size and load time of a submission embedding 5 MB of incompressible data (the worst case)."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "fixture_table.bin").write_bytes(bytes([4]) + random.Random(1).randbytes(5 * 1024 * 1024))
    project = builder.Project(search_path=(FIXTURES, builder.ROOT), package="fxagents", data_dir=str(data_dir))
    text = builder.build_text("resourceful", project)[0]
    report = builder.validate(text)
    assert report["ok"], report.get("reason")
    print(f"\n5 MiB resource: submission {len(text):,} bytes, Kaggle's loader {report['load_s']:.3f} s")
