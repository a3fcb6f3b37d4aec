"""The pre-upload gate: FAIL for the classic upload killers and a weaker agent, PASS for a rebuild of the baseline."""

import json
import os
import subprocess
import sys

import pytest

from evaluation import gate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "gate_agents")


@pytest.fixture(params=["plain", "sandbox"])
def isolation(request) -> list[str]:
    """Each verdict test runs twice: as is, and with every agent in the sandbox (same verdict expected;
    the two longest sandboxed runs are marked slow)."""
    if request.param == "plain":
        return []
    from sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    return ["--sandbox"]


def run_gate(*arguments: str) -> tuple[int, dict, str]:
    """``evaluate.py --gate ... --json`` in a subprocess: (exit code, the JSON object, stderr)."""
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "evaluate.py"), "--json", "--workers", "2", *arguments],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    report = json.loads(done.stdout) if done.stdout.strip() else {}
    assert done.stdout.count("\n") <= 1, "exactly one JSON object on stdout"
    return done.returncode, report, done.stderr


def fixture(name: str) -> str:
    return os.path.join(FIXTURES, name)


def test_fails_a_candidate_returning_a_numpy_integer(tmp_path, isolation):
    replays = tmp_path / "replays"
    code, report, _ = run_gate("--gate", fixture("numpy_int.py"), "--baseline", "greedy", "--replays", str(replays),
                                *isolation)
    assert code == 1 and report["verdict"] == "FAIL"
    assert any("invalid move" in reason for reason in report["reasons"])
    assert [c["passed"] for c in report["checks"]] == [True, False, None, None, None]
    assert sorted(os.listdir(replays / "smoke")) == [
        "game-000000-numpy_int-vs-random-invalid.html", "game-000001-numpy_int-vs-random-invalid.html"]


def test_fails_a_candidate_that_takes_3_s_per_move_at_its_second_move(isolation):
    code, report, _ = run_gate("--gate", fixture("sleeps_3s.py"), "--baseline", "greedy", *isolation)
    assert code == 1 and report["verdict"] == "FAIL"
    assert any("timeout" in reason and "after the first" in reason for reason in report["reasons"])
    assert report["games"] == 2  # stopped after the smoke pair instead of draining a 60 s bank
    assert report["checks"][1]["seconds"] < 20  # move 1 (3 s, from the bank), move 2 killed at 2 s


def test_a_3_s_load_is_paid_from_the_bank_and_passes_the_smoke_check():
    code, report, _ = run_gate("--gate", fixture("loads_3s.py"), "--baseline", "greedy", "-n", "2")
    assert [check["name"] for check in report["checks"]][:3] == ["load", "smoke", "validation"]
    assert report["checks"][1]["passed"] is True and report["checks"][2]["passed"] is True
    assert report["checks"][1]["max_move_s"] >= 3


def test_fails_a_candidate_that_returns_none(isolation):
    code, report, _ = run_gate("--gate", fixture("returns_none.py"), "--baseline", "greedy", *isolation)
    assert code == 1 and report["checks"][1]["passed"] is False
    assert any("returned None at ply" in reason and "Kaggle plays column 0; return an int" in reason
               for reason in report["reasons"])


def test_the_load_check_runs_in_a_clean_room():
    code, report, _ = run_gate("--gate", fixture("imports_project.py"), "--baseline", "greedy")
    assert code == 1 and report["checks"][0]["passed"] is False
    assert "clean room" in report["reasons"][0] and "import" in report["reasons"][0]
    assert report["games"] == 0


@pytest.mark.parametrize("isolation", ["plain", pytest.param("sandbox", marks=pytest.mark.slow)], indirect=True)
def test_fails_a_candidate_clearly_weaker_than_its_baseline(isolation):
    code, report, _ = run_gate("--gate", fixture("leftmost.py"), "--baseline", "greedy", "-n", "20", *isolation)
    assert code == 1 and report["verdict"] == "FAIL"
    baseline = next(c for c in report["checks"] if c["name"] == "baseline")
    assert baseline["passed"] is False and baseline["score"] < 0.2
    assert any("weaker than the baseline" in reason for reason in report["reasons"])
    assert report["checks"][-1]["passed"] is None  # stopped at the first failed check


@pytest.mark.parametrize("isolation", ["plain", pytest.param("sandbox", marks=pytest.mark.slow)], indirect=True)
def test_passes_a_rebuild_of_the_baseline(tmp_path, isolation):
    from build_submission import build_text

    built = tmp_path / "submission.py"
    built.write_text(build_text("greedy")[0])  # the builder's output; the gate itself plays Kaggle's validation
    code, report, stderr = run_gate("--gate", str(built), "--baseline", "greedy", "-n", "20", *isolation)
    assert code == 0 and report["verdict"] == "PASS", (report.get("reasons"), stderr[-2000:])
    assert report["reasons"] == [] and all(c["passed"] for c in report["checks"])
    validation = next(c for c in report["checks"] if c["name"] == "validation")
    assert validation["statuses"] == ["DONE", "DONE"]


def test_human_output_says_pass_or_fail_with_reasons(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def agent(obs, config):\n    return (\n")
    done = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), "--gate", str(broken), "--baseline",
                           "random"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-2] == "FAIL" and "syntax error" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize("arguments, message", [
    (["--gate", "greedy"], "--baseline"),
    (["--baseline", "greedy"], "--gate"),
    (["--gate", "no_such_agent", "--baseline", "greedy"], "unknown agent"),
    (["--gate", "greedy", "--baseline", "missing/file.py"], "does not exist"),
    (["--gate", "greedy", "--baseline", "random", "--sprt", "5", "0"], "ELO0 < ELO1"),
])
def test_bad_input_exits_2_with_one_line(arguments, message):
    done = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), *arguments, "--json"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_paired_interval_and_builtin_game_counts():
    assert gate.paired_interval([]) == (0.0, 0.0)
    low, high = gate.paired_interval([-1.0, -1.0, -0.5, -1.0])
    assert high < 0
    low, high = gate.paired_interval([0.0, 1.0, -1.0, 0.0])
    assert low < 0 < high
    assert [gate.builtin_games(n) for n in (1, 20, 100, 150, 300)] == [4, 4, 6, 8, 16]
