"""Agents as people write them: import roots, namespace packages, Kaggle's entry point, library errors.

Every agent is written into a temporary folder outside the repository. The builder and ``evaluate.py``'s
agent resolution must agree on each one: the same imports found (the agent's folder, ``--path``, then
``PYTHONPATH``), the same entry point (``agent`` if defined, else Kaggle's last callable).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.building import BuildError, build, build_text
from connectx_toolkit.building.entry_point import entry_point, last_callable
from connectx_toolkit.building.kaggle_rules import format_agent_error
from connectx_toolkit.evaluation.seats.agent_specs import AgentSpecError, resolve_agent

ROOT = builder.ROOT


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose agent imports a namespace package (no __init__.py) from the folder above it."""
    assert not str(tmp_path).startswith(ROOT)
    return write(tmp_path / "repo", {
        "strategy/columns.py": """
            CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)

            def first_open(board, columns):
                for column in CENTRE_FIRST:
                    if column < columns and board[column] == 0:
                        return column
                return next(c for c in range(columns) if board[c] == 0)
        """,
        "bots/bot.py": """
            from strategy.columns import first_open

            def agent(obs, config):
                return first_open(obs.board, config.columns)
        """,
    })


def test_a_namespace_package_above_the_agent_says_add_path_and_never_allow_import(repo, monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with pytest.raises(BuildError) as caught:
        build_text(str(repo / "bots" / "bot.py"))
    message = str(caught.value)
    assert f"no module strategy under the import roots ({repo / 'bots'}" in message
    assert message.endswith(f"it is in {repo}: add --path {repo}")
    assert "--allow-import" not in message


def test_path_and_pythonpath_are_import_roots_for_the_builder_and_the_evaluator(repo, monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    text, modules, _ = build_text(str(repo / "bots" / "bot.py"), paths=[str(repo)])
    assert [m.name for m in modules] == ["strategy", "strategy.columns", "bot"]
    assert "CENTRE_FIRST" in text
    spec = resolve_agent(str(repo / "bots" / "bot.py"), paths=(str(repo),))
    assert spec.kind == "built"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(repo), ROOT]))
    assert [m.name for m in build_text(str(repo / "bots" / "bot.py"))[1]] == ["strategy", "strategy.columns", "bot"]
    assert resolve_agent(str(repo / "bots" / "bot.py")).kind == "built"
    from connectx_toolkit.evaluation.api import play_match

    monkeypatch.delenv("PYTHONPATH")
    summary = play_match(str(repo / "bots" / "bot.py"), "random", games=2, workers=1, paths=(str(repo),))
    assert summary["games"] == 2


def test_the_evaluator_without_the_root_says_add_path(repo, monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    with pytest.raises(AgentSpecError, match=f"add --path {repo}$"):
        resolve_agent(str(repo / "bots" / "bot.py"))


def test_a_run_resumes_with_the_import_roots_it_was_started_with(repo, tmp_path, capsys, monkeypatch):
    from connectx_toolkit.cli import evaluate
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "run.jsonl"
    bot = str(repo / "bots" / "bot.py")
    assert evaluate.main([bot, "random", "-n", "4", "--path", os.path.relpath(repo), "--results", str(results)]) == 0
    lines = results.read_text().splitlines(keepends=True)
    assert json.loads(lines[0])["paths"] == [str(repo)]
    results.write_text("".join(lines[:2]))  # interrupted after its first game
    capsys.readouterr()
    assert evaluate.main(["--resume", str(results), "--json"]) == 0  # no --path: the header's
    assert json.loads(capsys.readouterr().out)["games"] == 4
    assert len(results.read_text().splitlines()) == 5


def test_the_command_line_builds_with_path_and_refuses_a_missing_root(repo, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    out = tmp_path / "out" / "submission.py"
    assert builder.main([str(repo / "bots" / "bot.py"), "-o", str(out), "--path", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err == f"build_submission.py: error: --path {tmp_path / 'nope'}: no such folder\n"
    assert not out.exists()
    assert builder.main([str(repo / "bots" / "bot.py"), "-o", str(out), "--path", str(repo)]) == 0
    printed = capsys.readouterr().out
    assert "  entry     agent (the file's function agent)" in printed
    assert "  modules   strategy, strategy.columns, bot" in printed
    assert ", numpy " in printed and "passed" in printed


def test_kaggles_last_callable_is_the_entry_for_the_builder_and_the_evaluator(tmp_path):
    bot = write(tmp_path, {"last.py": """
        import math

        def helper(board):
            return max(range(len(board)), key=lambda c: -abs(c - 3))

        def my_agent(obs, config):
            return [c for c in range(config.columns) if obs.board[c] == 0][0]
    """}) / "last.py"
    report = build(str(bot), tmp_path / "submission.py")
    assert (report.function, report.reason) == ("my_agent", "Kaggle's last callable")
    assert "  entry     my_agent (Kaggle's last callable)" in report.summary()
    # Kaggle's loader alone takes my_agent too: the evaluator loads the file as it is.
    assert resolve_agent(str(bot)).kind == "file"


def test_agent_before_a_helper_is_the_builders_entry_but_the_evaluator_plays_what_kaggle_calls(tmp_path):
    bot = write(tmp_path, {"wrapper.py": """
        def agent(obs, config):
            return _first_open(obs.board)

        def _first_open(board):
            return board.index(0) % 7
    """}) / "wrapper.py"
    text = build_text(str(bot))[0]
    assert text.rstrip().endswith("return _AGENT(*(obs, config)[:_AGENT_ARGC])")
    report = build(str(bot), tmp_path / "submission.py")
    assert report.reason == "the file's function agent; Kaggle's loader alone would call _first_open"
    # The file as it is, uploaded, would have Kaggle call _first_open: so does the evaluator, and says so;
    # FILE:agent plays what the builder would upload.
    spec = resolve_agent(str(bot))
    assert spec.kind == "file" and "Kaggle calls _first_open, the last callable of wrapper.py, not agent" in spec.note
    assert resolve_agent(f"{bot}:agent").kind == "built"


@pytest.mark.parametrize(("source", "expected"), [
    ("def a(o, c):\n    return 3\n\nclass Tree:\n    pass\n", "Tree"),
    ("def agent(o, c):\n    return 3\n\nx = 1\n", "agent"),
    ("def act(o, c):\n    return 3\n\nfrom math import floor\n", "floor"),
    ("from math import pi\n\ndef act(o, c):\n    return 3\n\nLIMIT = 3\n", "act"),
    ("def b(o, c):\n    return 1\n\ndef a(o, c):\n    return 3\n\nb = 4\n", "a"),
    ("def a(o, c):\n    return 3\n\ndef b(o, c):\n    return 1\n\na = a\n", "b"),  # a keeps its first place
    ("X = 1\n", None),
])
def test_the_static_last_callable_matches_kaggles_loader(source, expected):
    import ast

    from kaggle_environments.agent import get_last_callable

    assert last_callable(ast.parse(source)) == expected
    if expected is not None:
        assert get_last_callable(source).__name__ == expected
    chosen = entry_point(ast.parse(source))
    assert (chosen.function if chosen else None) == ("agent" if "def agent" in source else expected)


def test_kaggle_environments_needs_no_allow_import_and_the_report_says_so(tmp_path):
    bot = write(tmp_path, {"kaggle_user.py": """
        from kaggle_environments.envs.connectx.connectx import random_agent

        def agent(obs, config):  # any library function will do: negamax against itself costs ~3 CPU s to validate
            return random_agent(obs, config)
    """}) / "kaggle_user.py"
    report = build(str(bot), tmp_path / "submission.py")
    assert report.external == ["kaggle_environments"]
    assert "kaggle_environments runs every agent on Kaggle: allowed without --allow-import" in report.summary()


def test_allow_import_of_a_package_not_installed_is_one_line_with_the_install_command(tmp_path, capsys):
    bot = write(tmp_path, {"torchy.py": "import torch_not_installed_here\n\ndef agent(o, c):\n    return 3\n"})
    out = tmp_path / "submission.py"
    code = builder.main([str(bot / "torchy.py"), "-o", str(out), "--allow-import", "torch_not_installed_here"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert err == (f"build_submission.py: error: --allow-import torch_not_installed_here: torch_not_installed_here "
                   f"is not installed in the toolkit's environment; install it with: {sys.executable} -m pip install "
                   "torch_not_installed_here\n")


def test_an_import_installed_nowhere_is_told_missing_beside_the_agent(tmp_path):
    write(tmp_path, {"ghost.py": "import ghost_package_xyz\n\ndef agent(o, c):\n    return 3\n"})
    with pytest.raises(BuildError) as caught:
        build_text(str(tmp_path / "ghost.py"))
    assert "no module ghost_package_xyz under the import roots" in str(caught.value)
    assert "nor installed here: the agent's own module is missing beside it" in str(caught.value)
    assert "pip install" not in str(caught.value)  # not a package of Kaggle's image


def test_an_error_inside_a_library_names_the_agents_line_first(tmp_path, capsys):
    write(tmp_path, {"lib_error.py": """
        import json


        def agent(obs, config):
            return json.loads("")
    """})
    out = tmp_path / "submission.py"
    assert builder.main([str(tmp_path / "lib_error.py"), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert ("ERROR as player 1 at ply 1: lib_error.py:6 in agent: JSONDecodeError: Expecting value: line 1 "
            "column 1 (char 0) (raised in json/decoder.py:") in err
    assert not out.exists()


def test_format_agent_error_is_one_line_own_frame_first():
    def agent(obs, config):
        return json.loads("")

    try:
        agent(None, None)
    except ValueError as error:
        text = format_agent_error(error)
    line = agent.__code__.co_firstlineno + 1
    assert text.startswith(f"test_import_roots.py:{line} in agent: JSONDecodeError: Expecting value")
    assert "(raised in json/decoder.py:" in text and "\n" not in text
    try:
        raise RuntimeError("plain\nmessage")
    except RuntimeError as error:
        assert format_agent_error(error).endswith("in test_format_agent_error_is_one_line_own_frame_first: "
                                                  "RuntimeError: plain message")


def test_an_agent_bound_to_a_library_function_after_a_module_import_is_the_entry(tmp_path):
    # The shape of a public agent: a module imported by name, then the agent bound to one of its functions (public
    # agents bind negamax_agent; random_agent is the same shape, and its validation games cost ~3 CPU s less).
    source = "from kaggle_environments.envs.connectx import connectx\n\nact = connectx.random_agent\n"
    import ast

    from kaggle_environments.agent import get_last_callable
    from kaggle_environments.envs.connectx import connectx

    assert last_callable(ast.parse(source)) == "act"
    assert get_last_callable(source) is connectx.random_agent  # bound to act, the last callable value
    (tmp_path / "library_bot.py").write_text(source)
    report = build(str(tmp_path / "library_bot.py"), tmp_path / "submission.py")
    assert (report.function, report.reason) == ("act", "Kaggle's last callable")


def test_a_main_block_never_reaches_the_checks_it_never_runs_on_kaggle(tmp_path):
    (tmp_path / "script_agent.py").write_text(textwrap.dedent("""
        def agent(obs, config):
            return [c for c in range(config.columns) if obs.board[c] == 0][0]


        if __name__ == "__main__":
            import tool_only_package_xyz  # a local helper the agent never uses
            print(__file__)
    """))
    text, modules, _ = build_text(str(tmp_path / "script_agent.py"))
    assert [m.name for m in modules] == ["script_agent"]


def test_reading_the_entry_point_never_runs_the_agents_own_packages(tmp_path, monkeypatch):
    import ast

    package = tmp_path / "loud_pkg"
    package.mkdir()
    (package / "__init__.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    (package / "moves.py").write_text("def act(o, c):\n    return 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert last_callable(ast.parse("from loud_pkg import moves\n\ndef a(o, c):\n    return 3\n")) == "a"
    assert last_callable(ast.parse("from loud_pkg.moves import act\n")) == "act"
    assert not (tmp_path / "ran").exists()


def test_an_agent_importing_the_toolkits_own_name_is_told_to_import_agents(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("from connectx_toolkit.agents.core import Position\n\n\n"
                   "def agent(obs, config):\n    return Position.from_kaggle(obs, config).legal_moves()[0]\n")
    with pytest.raises(BuildError) as raised:
        build_text(str(bot))
    assert str(raised.value) == (f"{bot}:1: `from connectx_toolkit.agents.core import Position`: connectx_toolkit is "
                                 "the toolkit's name where it is installed, not in a submission: import its agents "
                                 "and core as the package agents (agents.core, agents.greedy, ...)")
    bot.write_text(bot.read_text().replace("connectx_toolkit.agents.core", "agents.core"))
    assert "agents.core.position" in [module.name for module in build_text(str(bot))[1]]
