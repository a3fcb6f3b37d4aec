"""Kaggle bundles: ``-o NAME.tar.gz`` writes main.py, the agent's modules and its folder's data files, validated
unpacked at /kaggle_simulations/agent (bubblewrap binds it there); ``evaluate.py`` runs a ``.tar.gz`` or a
folder that reads /kaggle_simulations/agent the same way."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.building import build
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent
from tests.helpers import played_without_forfeit

ROOT = builder.ROOT

MAIN = '''
import pickle
import sys

sys.path.append("/kaggle_simulations/agent")
from tactics.order import ORDER  # noqa: E402  (the sibling package, found through the line above)

with open("/kaggle_simulations/agent/book.pkl", "rb") as handle:
    BOOK = pickle.load(handle)


def opening(obs):
    return BOOK.get(obs.step)


def my_agent(obs, config):
    from tactics.order import first_open  # an import during a move: the path must stay

    book = opening(obs)
    if book is not None and obs.board[book] == 0:
        return book
    return first_open(obs.board, ORDER)
'''


@pytest.fixture
def bundle_agent(tmp_path: Path) -> Path:
    """A Kaggle-style agent folder: main.py reading a pickle and a sibling package at /kaggle_simulations/agent."""
    assert not str(tmp_path).startswith(ROOT)
    folder = tmp_path / "kaggle_bot"
    for name, text in {
        "main.py": MAIN,
        "tactics/__init__.py": "",
        "tactics/order.py": """
            ORDER = (3, 2, 4, 1, 5, 0, 6)

            def first_open(board, order):
                return next(c for c in order if board[c] == 0)
        """,
        ".git/config": "[core]\n",
        "__pycache__/main.cpython-311.pyc": "cache",
        ".ipynb_checkpoints/main-checkpoint.py": "old",
        "notes/readme.txt": "kept: a data file of the folder\n",
    }.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (folder / "book.pkl").write_bytes(pickle.dumps({0: 3, 2: 3}))
    return folder


def test_a_bundle_holds_main_modules_and_data_and_passes_kaggles_checks(bundle_agent, tmp_path, capsys, bubblewrap):
    out = tmp_path / "out" / "submission.tar.gz"
    assert builder.main([str(bundle_agent), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    with tarfile.open(out) as archive:
        names = archive.getnames()
        assert names[0] == "main.py"
        assert archive.extractfile("main.py").read().decode() == textwrap.dedent(MAIN)  # the agent's own, as is
        book = pickle.loads(archive.extractfile("book.pkl").read())
    assert sorted(names) == ["book.pkl", "main.py", "notes/readme.txt", "tactics/__init__.py", "tactics/order.py"]
    assert book == {0: 3, 2: 3}
    assert "  entry     my_agent (Kaggle's last callable)" in printed
    assert "  files     main.py (" in printed and "            book.pkl (" in printed
    assert "passed" in printed
    # Deterministic: the same folder gives the same bytes.
    first = out.read_bytes()
    assert builder.main([str(bundle_agent), "-o", str(out)]) == 0
    assert out.read_bytes() == first


def test_a_single_file_build_of_a_bundle_agent_says_build_a_bundle(bundle_agent, tmp_path, capsys):
    # At the line whose read it cannot run without (line 8), not the first mention of the folder (line 5,
    # sys.path.append, harmless in a single file).
    out = tmp_path / "submission.py"
    assert builder.main([str(bundle_agent), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (f"build_submission.py: error: {bundle_agent}/main.py:8: the agent reads /kaggle_simulations/"
                       "agent/book.pkl, where Kaggle unpacks a .tar.gz submission: build a bundle instead "
                       "(-o submission.tar.gz), which carries book.pkl from the agent's folder")
    assert not out.exists()


def test_a_file_agent_gets_a_main_that_imports_it(tmp_path, bubblewrap):
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "helper.py").write_text("def centre(config):\n    return config.columns // 2\n")
    (bot / "player.py").write_text("import helper\n\n\ndef act(obs, config):\n"
                                   "    c = helper.centre(config)\n"
                                   "    return c if obs.board[c] == 0 else obs.board.index(0)\n")
    (bot / "weights.bin").write_bytes(os.urandom(6_000_000))  # incompressible: over the 5 MB warning
    report = build(str(bot / "player.py"), tmp_path / "player.tar.gz")
    assert report.files.keys() == {"main.py", "helper.py", "player.py", "weights.bin"}
    assert report.size > 5_000_000
    assert "warning   over 5,000,000 bytes" in report.summary()
    with tarfile.open(tmp_path / "player.tar.gz") as archive:
        main = archive.extractfile("main.py").read().decode()
    assert "from player import act as _entry" in main


def test_evaluate_runs_a_tar_gz_and_a_bundle_folder_at_kaggles_path(bundle_agent, tmp_path, bubblewrap):
    from connectx_toolkit.evaluation.api import play_match

    out = tmp_path / "submission.tar.gz"
    build(str(bundle_agent), out)
    archive = resolve_agent(str(out))
    assert (archive.kind, archive.target) == ("bundle", "/kaggle_simulations/agent/main.py")
    summary = play_match(archive, "random", games=2, workers=1)
    assert played_without_forfeit(summary, 2), summary
    folder = resolve_agent(str(bundle_agent))
    assert folder.kind == "bundle"
    assert played_without_forfeit(play_match(folder, "random", games=2, workers=1), 2)


def test_a_bundle_without_main_is_one_line_exit_2(tmp_path, bubblewrap):
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as archive:
        archive.add(__file__, arcname="agent.py")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), str(bad), "random", "-n", "2",
                          "--no-progress", "--results", str(tmp_path / "r.jsonl")],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "has no main.py at its top" in run.stderr, run.stderr
    assert not (tmp_path / "r.jsonl").exists()
    # The gate takes a candidate that cannot load as a failed check: do not upload it (exit 1), saying why.
    gate = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), "--gate", str(bad), "--baseline",
                           "random", "--no-progress"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert gate.returncode == 1 and "has no main.py at its top" in gate.stdout + gate.stderr
    with pytest.raises(AgentSpecError, match="has no main.py at its top"):
        resolve_agent(str(bad))


def test_a_bundle_without_bubblewrap_is_one_line_saying_how_to_install(bundle_agent, tmp_path):
    out = tmp_path / "submission.tar.gz"
    env = dict(os.environ, PATH=str(tmp_path / "no-bin"), PYTHONPATH=ROOT)
    run = subprocess.run([sys.executable, os.path.join(ROOT, "build_submission.py"), str(bundle_agent), "-o", str(out)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "needs bubblewrap" in run.stderr and "apt-get install bubblewrap" in run.stderr
    assert not out.exists()


def test_a_bundle_of_a_project_agent_finds_its_own_agents_package_first(tmp_path, bubblewrap):
    # kaggle_environments puts a folder holding an agents.py on sys.path: the bundle's agents/ must win.
    report = build("greedy", tmp_path / "greedy.tar.gz")
    assert report.validation["ok"] and "agents/greedy.py" in report.files


def test_the_ray_backend_refuses_a_bundle_in_one_line():
    from connectx_toolkit.evaluation.seats.agent_specs import AgentSpec
    from connectx_toolkit.evaluation.scheduling.match import BackendUnavailable, require_backend_can_load
    from connectx_toolkit.evaluation.referees.record import GameTask

    bundle = AgentSpec("bot.tar.gz", "bundle", "/kaggle_simulations/agent/main.py", folder="/tmp/x")
    task = GameTask(0, bundle, AgentSpec("random", "builtin", "random"), False, (), (("rows", 6),), 2.0, 60.0, 0)
    require_backend_can_load("process", [task])
    with pytest.raises(BackendUnavailable, match=r"cannot run Kaggle bundles \(bot.tar.gz\)"):
        require_backend_can_load("ray", [task])


def test_a_package_bundle_takes_the_packages_data_not_its_neighbours(tmp_path, bubblewrap):
    package = tmp_path / "repo" / "my_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("def agent(obs, config):\n    return obs.board.index(0) % config.columns\n")
    (package / "table.bin").write_bytes(b"\x01\x02")
    (tmp_path / "repo" / "unrelated.csv").write_text("a,b\n")
    report = build(str(package), tmp_path / "pkg.tar.gz")
    assert set(report.files) == {"main.py", "my_pkg/__init__.py", "table.bin"}


def test_a_main_that_uses_file_only_off_kaggle_bundles(tmp_path, bubblewrap):
    bot = tmp_path / "guarded"
    bot.mkdir()
    (bot / "weights.txt").write_text("3\n")
    (bot / "main.py").write_text(textwrap.dedent('''
        import os

        HOME = "/kaggle_simulations/agent/"
        if os.path.isdir(HOME):
            PATH = os.path.join(HOME, "weights.txt")
        else:  # run locally: never reached on Kaggle, where main.py has no __file__
            PATH = os.path.join(os.path.dirname(__file__), "weights.txt")
        with open(PATH) as handle:
            FAVOURITE = int(handle.read())


        def my_agent(obs, config):
            return FAVOURITE if obs.board[FAVOURITE] == 0 else obs.board.index(0) % config.columns
    '''))
    report = build(str(bot), tmp_path / "guarded.tar.gz")
    assert report.validation["ok"] and set(report.files) == {"main.py", "weights.txt"}


def test_two_bundles_play_each_other_each_at_its_own_kaggle_path(tmp_path, bubblewrap):
    """Each seat's agent process has a sandbox of its own, so each bundle sees its own folder at
    /kaggle_simulations/agent (in one shared file system they would collide)."""
    from connectx_toolkit.evaluation.scheduling.runner import play_game

    specs = []
    for name, column in (("left", 0), ("right", 6)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "column.txt").write_text(f"{column}\n")
        (folder / "main.py").write_text(textwrap.dedent('''
            def agent(obs, config):
                with open("/kaggle_simulations/agent/column.txt") as handle:
                    column = int(handle.read())
                return column if obs.board[column] == 0 else next(c for c in range(7) if obs.board[c] == 0)
        '''))
        specs.append(resolve_agent(str(folder)))
    assert [spec.kind for spec in specs] == ["bundle", "bundle"]
    record = play_game(*specs, seed=1)
    assert record.moves[:6] == [0, 6, 0, 6, 0, 6] and record.outcomes == ["win", "loss"]
