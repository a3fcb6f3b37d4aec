"""Every old form of a command beside its new form: ``evaluate.py ...`` / ``connectx-evaluate ...`` beside
``connectx match|league|gate|board|submit|ladder|analyze ...``, ``build_submission.py`` / ``connectx-build``
beside ``connectx build``, ``connectx-train`` beside ``connectx train``. Each pair runs in this process (the
commands' ``main(argv)``), each in a folder of its own with the same relative paths, and gives the same exit
code, the same stdout (JSON compared with its timings masked) and the same files."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any, Callable

import pytest

from connectx_toolkit.cli import build_submission, evaluate, train
from connectx_toolkit.cli import main as connectx

QUICK = ["-n", "2", "--workers", "1", "--no-progress"]
# What differs from one run to the next (clocks, memory) or with the analysis cache's state, never with the form.
TIMING = re.compile(r"(_s|_ms|_per_s|_share|seconds|memory_mb|move_times|elapsed|searched|timed_out|from_table|"
                    r"cache_hits)$")


def masked(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: "<masked>" if TIMING.search(key) else masked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [masked(item) for item in value]
    return masked_text(value) if isinstance(value, str) else value


def masked_text(text: str) -> str:
    """Text output with its clock readings masked (``3.2 s``, ``19.2 games/s``, ``0:00:01``)."""
    return re.sub(r"\d+(\.\d+)?(?= ?(s\b|ms\b|games/s|episodes/s|MB))", "<n>", text)


def build_summary(text: str) -> list[str]:
    """The builder's report without its validation table (games against the unseeded random agent)."""
    lines = text.splitlines()
    table = lines.index(next(line for line in lines if line.startswith("validation")))
    return lines[:table] + [masked_text(line) for line in lines[table:] if not line.startswith("  ")]


def files_in(folder) -> dict[str, bytes]:
    found = {}
    for path, _, names in os.walk(folder):
        for name in names:
            full = os.path.join(path, name)
            with open(full, "rb") as handle:
                found[os.path.relpath(full, folder)] = handle.read()
    return found


def jsonl(data: bytes) -> list[Any]:
    return [masked(json.loads(line)) for line in data.decode().splitlines()]


def run_in(folder, monkeypatch, capfd, command: Callable[[list[str]], int], argv: list[str], name: str):
    """(exit code, stdout, stderr) of ``command(argv)`` run in ``folder`` as program ``name`` (sys.argv[0])."""
    folder.mkdir(exist_ok=True)
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "argv", [name])
    capfd.readouterr()
    try:
        code = command(argv)
    except SystemExit as done:
        code = done.code
    out, err = capfd.readouterr()
    return code, out, err


def pair(tmp_path, monkeypatch, capfd, old: tuple[Callable, list[str]], new: list[str], old_name: str = "evaluate.py"):
    """The old form's and the new form's (code, stdout, stderr, files), each in its own folder."""
    results = []
    for label, command, argv, name in (("old", old[0], old[1], old_name), ("new", connectx.main, new, "connectx")):
        folder = tmp_path / label
        code, out, err = run_in(folder, monkeypatch, capfd, command, argv, name)
        results.append((code, out, err, files_in(folder)))
    return results


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    """One analysis cache for the module: the games here are solved once, whichever form comes first (the counts
    that depend on it are masked)."""
    return str(tmp_path_factory.mktemp("analysis") / "positions.sqlite")


def same_json_and_files(old, new, json_files=(".json", ".jsonl")):
    (old_code, old_out, _, old_files), (new_code, new_out, _, new_files) = old, new
    assert old_code == new_code == 0
    assert masked(json.loads(old_out)) == masked(json.loads(new_out))
    assert sorted(old_files) == sorted(new_files)
    for name, data in old_files.items():
        if name.endswith(".jsonl"):
            assert jsonl(data) == jsonl(new_files[name]), name
        elif name.endswith(".json"):
            assert masked(json.loads(data)) == masked(json.loads(new_files[name])), name


def test_match_json(tmp_path, monkeypatch, capfd):
    old, new = pair(tmp_path, monkeypatch, capfd,
                    (evaluate.main, ["greedy", "random", *QUICK, "--json", "--results", "r.jsonl"]),
                    ["match", "greedy", "random", *QUICK, "--json", "--results", "r.jsonl"])
    same_json_and_files(old, new)
    assert json.loads(new[1])["games"] == 2


def test_match_resume_and_options_between_the_agents(tmp_path, monkeypatch, capfd):
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    for label, argv in (("old", ["greedy", "-n", "2", "random", "--workers=1", "--no-progress", "--results", "r.jsonl"]),
                        ("new", ["match", "greedy", "-n", "2", "random", "--workers=1", "--no-progress", "--results",
                                 "r.jsonl"])):
        command = evaluate.main if label == "old" else connectx.main
        assert run_in(tmp_path / label, monkeypatch, capfd, command, argv, "x")[0] == 0
    old, new = pair(tmp_path, monkeypatch, capfd, (evaluate.main, ["--resume", "r.jsonl", "--json"]),
                    ["match", "--resume", "r.jsonl", "--json"])
    same_json_and_files(old, new)


def test_match_analyze_json(tmp_path, monkeypatch, capfd, cache):
    flags = [*QUICK, "--json", "--results", "r.jsonl", "--analyze", "--analysis-cache", cache]
    old, new = pair(tmp_path, monkeypatch, capfd, (evaluate.main, ["greedy", "random", *flags]),
                    ["match", "greedy", "random", *flags])
    same_json_and_files(old, new)
    assert "analysis" in json.loads(new[1])
    assert any(name.startswith("r-analysis" + os.sep) for name in new[3])


def test_analyze_file_json(tmp_path, monkeypatch, capfd, cache):
    """The games of a quick match (the same as test_match_analyze_json's: their positions come from the cache)."""
    played = tmp_path / "played"
    assert run_in(played, monkeypatch, capfd, connectx.main,
                  ["match", "greedy", "random", *QUICK, "--results", "games.jsonl"], "connectx")[0] == 0
    games = str(played / "games.jsonl")
    flags = ["--json", "--no-progress", "--workers", "1", "--analysis-cache", cache, "--analysis-dir", "out"]
    old, new = pair(tmp_path, monkeypatch, capfd, (evaluate.main, ["--analyze-file", games, *flags]),
                    ["analyze", games, *flags])
    same_json_and_files(old, new)
    assert json.loads(new[1])["analysis"]


@pytest.mark.parametrize("old_argv", [
    ["--league", "greedy", "random"],
    ["--league=greedy", "random"],  # --flag=value
    ["-n", "2", "--league", "greedy", "random", "--alpha", "0.1"],  # --alpha: taken and ignored, as it always was
])
def test_league_json(tmp_path, monkeypatch, capfd, old_argv):
    flags = [*QUICK, "--json", "--results", "lg"]
    old, new = pair(tmp_path, monkeypatch, capfd, (evaluate.main, [*old_argv, *flags]),
                    ["league", "greedy", "random", *flags])
    same_json_and_files(old, new)
    assert {"league.json", "games.jsonl"} <= {os.path.basename(name) for name in new[3]}


def test_gate_json(tmp_path, monkeypatch, capfd):
    flags = ["-n", "2", "--workers", "2", "--json"]
    old, new = pair(tmp_path, monkeypatch, capfd,
                    (evaluate.main, ["--gate", "greedy", "--baseline", "random", *flags, "--no-progress"]),
                    ["gate", "greedy", "--baseline", "random", *flags])
    same_json_and_files(old, new)
    assert json.loads(new[1])["verdict"] == "PASS"


def test_build(tmp_path, monkeypatch, capfd):
    old, new = pair(tmp_path, monkeypatch, capfd, (build_submission.main, ["greedy", "-o", "sub.py"]),
                    ["build", "greedy", "-o", "sub.py"], old_name="build_submission.py")
    assert old[0] == new[0] == 0
    assert build_summary(old[1]) == build_summary(new[1])
    assert old[3] == new[3] and list(new[3]) == ["sub.py"]  # byte-identical files


def test_train_untrained(tmp_path, monkeypatch, capfd):
    old, new = pair(tmp_path, monkeypatch, capfd, (train.main, ["--untrained", "--out", "bot"]),
                    ["train", "--untrained", "--out", "bot"], old_name="connectx-train")
    assert old[0] == new[0] == 0
    assert old[1] == new[1] and old[3] == new[3]
    assert sorted(new[3]) == [os.path.join("bot", "data", "td_lambda_weights.json"), os.path.join("bot", "main.py")]


@pytest.mark.parametrize("old_argv, new_argv, says", [
    (["--board", "a", "b"], ["board", "a", "b"], "plays one agent, got a b"),
    (["--board", "--port", "70000"], ["board", "--port", "70000"], "argument --port: '70000' is not a port number"),
    (["--board", "greedy", "--game", "missing.jsonl"], ["board", "greedy", "--game", "missing.jsonl"],
     "--game: cannot read 'missing.jsonl'"),
    (["--submit", "missing.py", "-m", "v"], ["submit", "missing.py", "-m", "v"], "--submit missing.py: no such file"),
    (["--submit", "missing.py"], ["submit", "missing.py"], "--submit needs -m MESSAGE"),
    (["--ladder", "abc"], ["ladder", "abc"], "'abc' is not a submission id (a number, e.g. 41234567)"),
    (["--ladder", "5", "--max", "0"], ["ladder", "5", "--max", "0"], "argument --max: '0' must be >= 1"),
    (["--ladder", "5", "--no-progress"], ["ladder", "5", "--no-progress"], "no Kaggle credentials found"),
    (["--analyze-file", "missing.jsonl"], ["analyze", "missing.jsonl"], "cannot read 'missing.jsonl'"),
    (["--gate", "greedy"], ["gate", "greedy"], "needs --baseline BASELINE"),
    (["--gate", "greedy", "--baseline", "random", "--sprt", "5", "0"],
     ["gate", "greedy", "--baseline", "random", "--sprt", "5", "0"], "--sprt needs ELO0 < ELO1, got 5 0"),
    (["--league", "greedy", "random", "--sprt", "0", "10"], ["league", "greedy", "random", "--sprt", "0", "10"],
     "unrecognized arguments: --sprt"),
    (["greedy", "random", "--rows", "0"], ["match", "greedy", "random", "--rows", "0"],
     "--rows must be an integer >= 1, got 0"),
])
def test_bad_input_is_one_line_and_exit_2_in_both_forms(tmp_path, monkeypatch, capfd, old_argv, new_argv, says):
    for key in [key for key in os.environ if key.startswith("KAGGLE_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no credentials anywhere
    old, new = pair(tmp_path, monkeypatch, capfd, (evaluate.main, old_argv), new_argv)
    for (code, out, err, files), name in ((old, "evaluate.py"), (new, f"connectx {new_argv[0]}")):
        lines = [line for line in err.splitlines() if ": note: " not in line]
        assert (code, out, files) == (2, "", {})
        assert len(lines) == 1 and lines[0].startswith(f"{name}: error: ") and says in lines[0], lines


@pytest.mark.parametrize("old_argv, new_argv", [
    (["greedy", "random", "-n", "100", "--sprt", "0", "10"], ["match", "greedy", "random", "-n", "100", "--sprt", "0",
                                                              "10"]),
    (["--resume", "r.jsonl"], ["match", "--resume", "r.jsonl"]),
    (["--league", "A", "B", "C", "-n", "20"], ["league", "A", "B", "C", "-n", "20"]),
    (["--gate", "C", "--baseline", "B", "-n", "4"], ["gate", "C", "--baseline", "B", "-n", "4"]),
    (["-n", "4", "--gate=C", "--baseline=B"], ["gate", "C", "-n", "4", "--baseline=B"]),
    (["--submit", "F", "-m", "M", "--force"], ["submit", "F", "-m", "M", "--force"]),
    (["-m", "M", "--submit=F"], ["submit", "F", "-m", "M"]),
    (["--ladder", "41234567", "--max", "20", "--dir", "D"], ["ladder", "41234567", "--max", "20", "--dir", "D"]),
    (["--board", "A", "--port", "8000", "--no-browser"], ["board", "A", "--port", "8000", "--no-browser"]),
    (["--board"], ["board"]),
    (["--analyze-file", "F", "--json"], ["analyze", "F", "--json"]),
    # the old priority: --submit, --ladder, --board, --analyze-file, --league, --gate, else a match
    (["--gate", "C", "--league", "A", "B"], ["league", "--gate", "C", "A", "B"]),  # refused by league: --gate
    (["--ladder", "5", "--submit", "F"], ["submit", "F", "--ladder", "5"]),  # refused by submit: --ladder
    # flags the old command took and ignored for a job are dropped; those it refused stay, to be refused
    (["--ladder", "5", "--rows", "7", "-n", "9", "--pin-cores", "--seed=3"], ["ladder", "5"]),
    (["--gate", "C", "--baseline", "B", "--no-progress", "--results", "x"], ["gate", "C", "--baseline", "B",
                                                                              "--no-progress"]),  # read since issue 54
    (["--league", "A", "B", "--alpha", "0.1", "--sprt", "0", "10"], ["league", "A", "B", "--sprt", "0", "10"]),
    (["A", "B", "--max", "3"], ["match", "A", "B", "--max", "3"]),
    # --accuracy, newer than the old command: its agents follow it, nothing is ignored, and after --gate it is the
    # gate's own check
    (["--accuracy", "A", "B", "--json", "-n", "5"], ["accuracy", "A", "B", "--json", "-n", "5"]),
    (["A", "--accuracy", "B", "--rows", "7"], ["accuracy", "A", "B", "--rows", "7"]),
    (["--gate", "C", "--baseline", "B", "--accuracy"], ["gate", "C", "--baseline", "B", "--accuracy"]),
])
def test_each_old_form_is_routed_onto_its_subcommand(old_argv, new_argv):
    command, argv, _ = evaluate.route(old_argv)
    assert [command, *evaluate.without_ignored(command, argv)] == new_argv
