"""evaluate.py end to end: JSON shape, exit codes, and how misbehaving agents are counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from connectx_toolkit.cli import evaluate
from tests.helpers import played_without_forfeit, REPO
ROOT = REPO
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "eval_agents")
AGENT_KEYS = {
    "name", "wins", "draws", "losses", "win_rate", "draw_rate", "loss_rate", "invalid", "errors", "timeouts",
    "mean_move_s", "max_move_s",
}


def fixture(name: str) -> str:
    return os.path.join(FIXTURES, f"{name}.py")


def run_json(capsys, tmp_path, *argv: str) -> dict:
    code = evaluate.main([*argv, "--json", "--workers", "2", "--results", str(tmp_path / "r.jsonl")])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("\n") == 1, out
    return json.loads(out)


def test_cli_json_greedy_beats_random(tmp_path):
    """The acceptance command, as a real subprocess: exactly one JSON object on stdout."""
    result = subprocess.run(
        [sys.executable, "evaluate.py", "greedy", "random", "-n", "20", "--json", "--results", str(tmp_path / "r.jsonl")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 20
    assert summary["config"] == {"rows": 6, "columns": 7, "inarow": 4}
    greedy, rand = summary["agents"]
    assert AGENT_KEYS <= set(greedy) and AGENT_KEYS <= set(rand)
    assert (greedy["name"], rand["name"]) == ("greedy", "random")
    assert greedy["win_rate"] >= 0.9
    assert greedy["wins"] + greedy["draws"] + greedy["losses"] == 20
    assert greedy["wins"] == rand["losses"] and greedy["losses"] == rand["wins"]
    assert 0 <= greedy["mean_move_s"] <= greedy["max_move_s"] < 2
    with open(tmp_path / "r.jsonl") as handle:
        assert len(handle.read().splitlines()) == 21  # header + one line per game


@pytest.mark.parametrize(
    "name, column",
    [("returns_99", "invalid"), ("numpy_int", "invalid"), ("raises", "errors"), ("returns_float", "invalid")],
)
def test_misbehaving_agent_forfeits_every_game(capsys, tmp_path, name, column):
    summary = run_json(capsys, tmp_path, fixture(name), "random", "-n", "4")
    bad, rand = summary["agents"]
    assert summary["games"] == 4
    assert bad[column] == 4
    assert bad["losses"] == 4 and bad["loss_rate"] == 1.0 and bad["wins"] == 0
    assert rand["wins"] == 4 and rand["invalid"] == rand["errors"] == rand["timeouts"] == 0


def test_agent_prints_never_reach_stdout(capsys, tmp_path):
    summary = run_json(capsys, tmp_path, fixture("chatty"), fixture("leftmost"), "-n", "2")
    assert summary["games"] == 2


def test_small_board_and_draws(capsys, tmp_path):
    summary = run_json(capsys, tmp_path, "greedy", "random", "-n", "4", "--rows", "2", "--columns", "2", "--inarow", "3")
    assert summary["config"] == {"rows": 2, "columns": 2, "inarow": 3}
    assert summary["agents"][0]["draws"] == 4  # three in a row cannot fit on 2x2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["nosuch", "random"], "unknown agent"),
        ([fixture("syntax_error"), "random"], "syntax error"),
        ([fixture("no_callable"), "random"], "no callable"),
        ([os.path.join(FIXTURES, "missing.py"), "random"], "does not exist"),
        (["greedy", "random", "--rows", "0"], "--rows"),
        (["greedy", "random", "--inarow", "2.5"], "--inarow"),
        (["greedy", "random", "-n", "0"], "--games"),
        (["greedy"], "two agents"),
        (["greedy", "random", "--openings", "no/such/file"], "openings"),
        (["greedy", "random", "--sprt", "5", "0"], "ELO0 < ELO1"),
        (["greedy", "random", "--sprt", "0", "5", "--alpha", "1.5"], "--alpha"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, argv, message):
    results = tmp_path / "r.jsonl"
    assert evaluate.main([*argv, "--results", str(results)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert not results.exists()  # nothing half-written


def test_resume_refuses_another_pairing_and_finishes_a_finished_run(capsys, tmp_path):
    results = str(tmp_path / "r.jsonl")
    assert evaluate.main(["greedy", "random", "-n", "2", "--results", results]) == 0
    capsys.readouterr()
    assert evaluate.main(["random", "greedy", "--resume", results]) == 2
    assert "is a run of" in capsys.readouterr().err
    assert evaluate.main(["--resume", results, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    with open(results) as handle:
        assert len(handle.read().splitlines()) == 3  # nothing played twice


def test_options_may_stand_between_the_two_agents(capsys, tmp_path):
    summary = run_json(capsys, tmp_path, "greedy", "-n", "2", "--seed", "3", "random")
    assert [agent["name"] for agent in summary["agents"]] == ["greedy", "random"] and summary["games"] == 2


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_no_pin_cores_lets_agents_use_every_cpu(capsys, tmp_path):
    """By default an agent's process starts on its worker's one CPU; ``--no-pin-cores`` leaves it all of them."""
    cores = tmp_path / "cores.py"
    cores.write_text("import os\n\ndef agent(obs, config):\n    return min(len(os.sched_getaffinity(0)), 6) - 1\n")
    cpus = min(len(os.sched_getaffinity(0)), 6)
    for extra, expected in (((), 0), (("--no-pin-cores",), cpus - 1)):
        results = tmp_path / f"r{len(extra)}.jsonl"
        assert evaluate.main([str(cores), "random", "-n", "2", "--openings", "0", "--results", str(results),
                              *extra]) == 0
        capsys.readouterr()
        games = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
        games = [game for game in games if "moves" in game]
        assert len(games) == 2
        # the agent's first column: seat 0 plays ply 0, seat 1 ply 1 (no opening)
        assert [game["moves"][1 if game["swapped"] else 0] for game in games] == [expected, expected], extra


@pytest.mark.parametrize("referee", ["native", "kaggle"])
def test_an_agent_that_sets_itself_up_at_step_0_or_1_plays_from_openings(capsys, tmp_path, referee):
    """Kaggle starts every game from the empty board; the suite's 4-ply openings call each seat at its opening
    plies (steps 0-3), so an agent setting up its globals at step 0 or 1 has them (before: NameError, 4 of 4)."""
    summary = run_json(capsys, tmp_path, fixture("sets_up_at_step_0_or_1"), "random", "-n", "4", "--referee", referee)
    stateful, _ = summary["agents"]
    assert stateful["errors"] == stateful["invalid"] == stateful["timeouts"] == 0, stateful["error_messages"]
    assert stateful["moves"] >= 4 * 2  # its forced opening plies are calls, timed as Kaggle times them
    with open(tmp_path / "r.jsonl") as handle:
        records = [json.loads(line) for line in handle.read().splitlines()[1:]]
    for record in records:
        assert record["moves"][:4] == record["opening"] and len(record["opening"]) == 4
        assert [len(answers) for answers in record["forced_answers"]] == [2, 2]


def test_a_forfeit_while_the_opening_is_forced_is_said_in_one_line(capsys, tmp_path):
    code = evaluate.main([fixture("fails_in_its_second_call"), "random", "-n", "2", "--workers", "2",
                          "--results", str(tmp_path / "r.jsonl")])
    out = capsys.readouterr().out
    assert code == 0
    lines = [line for line in out.splitlines() if "while the opening was forced" in line]
    assert lines == ["fails_in_its_second_call.py: 2 of its forfeits came while the opening was forced, after a forced "
                     "ply had played another column than its answer (no Kaggle game does: Kaggle's games start from "
                     "the empty board and play every answer; --openings 0 plays from it)"], out
    assert "RuntimeError: second call (2 games)" in out


def test_a_forfeit_at_the_first_call_of_a_game_is_not_blamed_on_the_opening(capsys, tmp_path):
    """Called first at an opening ply, before any forced ply overrode an answer of its own: a call Kaggle makes too
    (loading, setting up), so the report names the agent's error and no opening."""
    code = evaluate.main([fixture("raises"), "random", "-n", "2", "--workers", "2", "--results", str(tmp_path / "r.jsonl")])
    out = capsys.readouterr().out
    assert code == 0
    assert "RuntimeError: this agent always fails (2 games)" in out, out
    assert "opening" not in out, out


def test_forfeits_after_an_opening_that_overrode_the_agents_answers_are_said_in_one_line(capsys, tmp_path):
    """An agent that trusts its own last answer plays cleanly from the empty board, as on Kaggle, and forfeits
    only where a forced opening played another column for it: the report says so and how to play as Kaggle does."""
    trusting = fixture("trusts_its_own_moves")
    assert played_without_forfeit(run_json(capsys, tmp_path, trusting, "random", "-n", "2", "--openings", "0"), 2)
    code = evaluate.main([trusting, "random", "-n", "2", "--workers", "2", "--results", str(tmp_path / "o.jsonl")])
    out = capsys.readouterr().out
    assert code == 0
    assert [line for line in out.splitlines() if "overrode its own answers" in line] == [
        "trusts_its_own_moves.py: 2 of its forfeits came in games whose opening overrode its own answers (an agent "
        "that keeps its own moves in globals may assume its answer was played; Kaggle's games start from the empty "
        "board: --openings 0 plays from it)"], out


@pytest.mark.parametrize("sandbox", [False, True])
def test_an_agent_that_starts_processes_each_move_plays_without_error(capsys, tmp_path, sandbox):
    if sandbox:
        from connectx_toolkit.sandbox import SandboxUnavailable, require

        try:
            require()
        except SandboxUnavailable as error:
            pytest.skip(str(error))
    summary = run_json(capsys, tmp_path, fixture("starts_processes"), "random", "-n", "2",
                       *(["--sandbox"] if sandbox else []))
    agent, _ = summary["agents"]
    assert agent["errors"] == agent["invalid"] == agent["timeouts"] == 0, agent["error_messages"]
    # the pool workers it terminates end as on Kaggle, by the signal's default action: nothing of the evaluator's
    # own handlers (evaluate.py turns SIGTERM into KeyboardInterrupt) runs in them or reaches the agent's log
    games = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    logged = [line for game in games if game.get("kind") == "game" for log in game["logs"] for line in log]
    assert not [line for line in logged if "KeyboardInterrupt" in line], logged
