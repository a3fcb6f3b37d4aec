"""The pre-upload gate: FAIL for the classic upload killers and a weaker agent, PASS for a rebuild of the baseline."""

import json
import os
import subprocess
import sys

import pytest

from connectx_toolkit.agents.core import Config
from connectx_toolkit.cli import evaluate as evaluate_cli
from connectx_toolkit.evaluation import gate
from connectx_toolkit.evaluation.referees.record import GameRecord
from tests.helpers import gate_first_checks, REPO

ROOT = REPO
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "gate_agents")
# The most a loaded machine adds to a sleeping agent's measured move (waking its process, the pipe): a few ms idle,
# ~20 ms seen with the machine busy; the real-clock figures below allow several times that
MOVE_OVERHEAD = 0.1


@pytest.fixture(params=["plain", "sandbox"])
def isolation(request) -> list[str]:
    """Each verdict test runs twice: as is, and with every agent in the sandbox (same verdict expected).
    Three sandboxed runs are marked slow: the two longest, and None's (the numpy integer's already carries a
    wrong answer across the sandbox's wire)."""
    if request.param == "plain":
        return []
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    return ["--sandbox"]


def run_gate(capfd, *arguments: str) -> tuple[int, dict, str]:
    """``evaluate.py --gate ... --json`` (the command's ``main``, in this process: it has imported Kaggle's
    environment once for every test; the workers it forks write to this process's own stdout and stderr, which
    ``capfd`` reads): (exit code, the JSON object, stderr). The command line's own process is test_submit.py's
    and the subprocess tests below."""
    capfd.readouterr()
    code = evaluate_cli.main(["--json", "--workers", "2", *arguments])
    out, err = capfd.readouterr()
    report = json.loads(out) if out.strip() else {}
    assert out.count("\n") <= 1, "exactly one JSON object on stdout"
    return code, report, err


def fixture(name: str) -> str:
    return os.path.join(FIXTURES, name)


def test_fails_a_candidate_returning_a_numpy_integer(tmp_path, isolation, capfd):
    replays = tmp_path / "replays"
    code, report, _ = run_gate(capfd, "--gate", fixture("numpy_int.py"), "--baseline", "greedy", "--replays", str(replays),
                                *isolation)
    assert code == 1 and report["verdict"] == "FAIL"
    assert any("invalid move" in reason for reason in report["reasons"])
    assert [c["passed"] for c in report["checks"]] == [True, False, None, None, None]
    assert sorted(os.listdir(replays / "smoke")) == [
        "game-000000-numpy_int-vs-random-invalid.html", "game-000001-numpy_int-vs-random-invalid.html"]


def test_fails_a_steady_spender_that_a_full_board_would_time_out(isolation, capfd):
    # 2.5 act timeouts a move (5 s at Kaggle's clock): 1.5 of bank a move, 31.5 over a full board's 21 moves
    code, report, _ = run_gate(capfd, "--gate", fixture("steady_2_5x_act.py"), "--baseline", "greedy",
                               "--act-timeout", "0.1", "--overage", "3", *isolation)
    assert code == 1 and report["verdict"] == "FAIL"
    smoke, validation = report["checks"][1:3]
    assert smoke["passed"] is True  # its games against random are short: they cannot show it
    # The sleep draws 0.15 s a move; the machine's overhead only adds to it (up to MOVE_OVERHEAD here), and the
    # rule's edge is checked on recorded times (test_the_full_game_rule_on_recorded_move_times)
    assert validation["passed"] is False and 3 < validation["full_game_bank_s"] < 21 * (0.15 + MOVE_OVERHEAD)
    (reason,) = report["reasons"]
    assert "a full 6x7 game needs" in reason and "of the 3 s bank" in reason and "Kaggle times it out" in reason, reason
    assert report["games"] == 3
    assert not any("fills the board" in warning for warning in report["warnings"])  # the FAIL says it


def test_a_steady_3_s_a_move_agent_passes_as_kaggle_accepts_it():
    # 1.5 act timeouts a move (3 s at Kaggle's clock, here 1/10 of it): every move draws 0.1 s of the bank,
    # legally, 2.1 s of 6 s over a full board: it passes with up to 0.18 s of overhead a move
    settings = gate.GateSettings(candidate=fixture("steady_1_5x_act.py"), baseline="greedy", act_timeout=0.2,
                                 overage=6.0, workers=2)
    context, load = gate.prepare(settings)
    smoke, validation = gate.Check("smoke"), gate.Check("validation")
    gate.check_smoke(context, smoke)
    gate.check_validation(context, validation)
    assert smoke.passed is True and validation.passed is True, smoke.reasons + validation.reasons
    assert smoke.data["max_move_s"] > 0.29 and smoke.data["max_bank_used_s"] > 0.15
    assert 2.0 < validation.data["full_game_bank_s"] < 21 * (0.1 + MOVE_OVERHEAD)


def test_an_agent_thinking_long_only_in_the_opening_passes_as_kaggle_plays_it():
    """Issue 54: 2.75 act timeouts a move while fewer than 10 stones are on the board, then instant (5.5 s at
    Kaggle's clock: Kaggle's env.run plays it DONE in both seats and against itself, 42-46 s of the bank left). Its
    games against random end in its opening; the old rule multiplied their median by 21 (here 0.175 s x 21 = 3.7 s
    of a 3 s bank) and failed it. Its self-play episode, a long game, shows each seat spends 5 x 0.175 s."""
    settings = gate.GateSettings(candidate=fixture("thinks_long_in_the_opening.py"), baseline="greedy",
                                 act_timeout=0.1, overage=3.0, workers=2)
    context, load = gate.prepare(settings)
    smoke, validation = gate.Check("smoke"), gate.Check("validation")
    gate.check_smoke(context, smoke)
    gate.check_validation(context, validation)
    assert smoke.passed is True and validation.passed is True, smoke.reasons + validation.reasons
    assert validation.data["moves"] >= 12  # a game past its opening: the plies where it is cheap were measured
    # 5 moves of 0.175 s a seat, and the machine's overhead on them (fast moves draw nothing)
    assert 0.87 < validation.data["full_game_bank_s"] < 5 * (0.175 + MOVE_OVERHEAD)


def recorded(game: int, seat: int, times: list[float], act: float, bank: float, moves: int) -> GameRecord:
    """A recorded game of the candidate (agent 0) in ``seat`` whose moves took ``times``; the other seat instant."""
    others = [0.01] * moves
    return GameRecord(game, ["candidate", "other"], [], [3] * moves, ["DONE", "DONE"], ["win", "loss"],
                      [times, others] if seat == 0 else [others, times], {"rows": 6, "columns": 7, "inarow": 4}, 0,
                      swapped=seat == 1, act_timeout=act, overage=bank)


def gate_on_recorded_times(smoke: list[float], selfplay: list[float], act: float, bank: float) -> tuple:
    """The smoke and validation checks judging recorded games (the matches stood in for): two games against random
    in which each of the candidate's moves took ``smoke``'s times (one game in each seat), and a self-play episode
    in which both seats' moves took ``selfplay``'s."""
    games = [[recorded(0, 0, smoke, act, bank, 2 * len(smoke)), recorded(1, 1, smoke, act, bank, 2 * len(smoke))],
             [GameRecord(0, ["candidate", "candidate"], [], [3] * (2 * len(selfplay)), ["DONE", "DONE"], ["win", "loss"],
                         [selfplay, selfplay], {"rows": 6, "columns": 7, "inarow": 4}, 0, act_timeout=act,
                         overage=bank)]]
    settings = gate.GateSettings(candidate="x.py", baseline="greedy", act_timeout=act, overage=bank)
    context = gate.GateContext(settings, "candidate", "greedy", Config(6, 7, 4))
    context.match = lambda *args, **kwargs: games.pop(0)  # type: ignore[method-assign]
    checks = gate.Check("smoke"), gate.Check("validation")
    gate.check_smoke(context, checks[0])
    gate.check_validation(context, checks[1])
    return checks


@pytest.mark.parametrize("seconds, bank, passed", [
    (3.0, 60.0, True),  # 1 s of bank a move: 21 s of 60 over a full board
    (5.0, 63.0, True),  # 3 s a move: a full board needs exactly the bank, which Kaggle allows
    (5.001, 63.0, False),  # a little more than the bank
    (5.0, 60.0, False),  # steady_2_5x_act.py at Kaggle's clock: 63 s of 60
    (2.0, 0.0, True),  # exactly the act timeout: nothing drawn
])
def test_the_full_game_rule_on_recorded_move_times(seconds, bank, passed):
    """The rule the sleepers above play on the real clock, at its edge: every move of a game that fills the board
    priced at what the candidate's moves cost at its ply, against the bank (strictly more fails). The self-play
    episode ends at ply 24 here: its last plies price the rest."""
    smoke, validation = gate_on_recorded_times([seconds] * 4, [seconds] * 12, 2.0, bank)
    assert smoke.passed is True
    assert validation.passed is passed, validation.reasons
    assert validation.data["full_game_bank_s"] == pytest.approx(21 * (seconds - 2.0))
    if not passed:
        (reason,) = validation.reasons
        assert "a full 6x7 game needs" in reason and f"of the {bank:g} s bank" in reason, reason
        assert "the 9 past the last ply reached at 3.0 s each" in reason or bank != 60.0, reason


def test_an_opening_thinker_on_recorded_move_times_passes_and_a_late_spender_fails():
    # issue 54's agent at Kaggle's clock: 5.5 s a move while fewer than 10 stones are on the board, then instant;
    # its games against random end within its opening (the old rule: 3.5 s x 21 = 74 s of 60, FAIL)
    smoke, validation = gate_on_recorded_times([5.5] * 4, [5.5] * 5 + [0.05] * 15, 2.0, 60.0)
    assert smoke.passed is True and validation.passed is True, validation.reasons
    assert validation.data["full_game_bank_s"] == pytest.approx(17.5)
    # the mirror image, cheap in the opening and 6 s a move once 10 stones are down (its self-play ending at ply
    # 26), is a real Kaggle timeout: 16 moves of 4 s
    smoke, validation = gate_on_recorded_times([0.05] * 4, [0.05] * 5 + [6.0] * 8, 2.0, 60.0)
    assert smoke.passed is True and validation.passed is False
    assert validation.data["full_game_bank_s"] == pytest.approx(16 * 4.0)


def test_a_few_long_moves_are_not_a_steady_spender():
    # one 40 s move of the 60 s bank per game (as the solver's time manager may spend it), the rest fast
    smoke, validation = gate_on_recorded_times([42.0] + [0.1] * 4, [42.0] + [0.1] * 20, 2.0, 60.0)
    assert smoke.passed is True and validation.passed is True, validation.reasons
    assert validation.data["full_game_bank_s"] == pytest.approx(40.0)


def test_a_game_spending_most_of_the_bank_is_a_warning_not_a_failure():
    settings = gate.GateSettings(candidate=fixture("spends_most_of_the_bank_once.py"), baseline=fixture("centre_most.py"),
                                 act_timeout=0.1, overage=1.0, games=2, workers=2)
    lines: list[str] = []
    report = gate.run(settings, log=lines.append)
    assert report["verdict"] == "PASS", report["reasons"]
    assert 0.55 < report["risk_figures"]["max_bank_used_s"] < 1.0  # 60 % of the bank, and the move's overhead
    assert any("of the 1 s bank" in warning for warning in report["warnings"]), report["warnings"]
    assert any("of what the clock allowed it" in warning for warning in report["warnings"]), report["warnings"]
    warn = [line for line in lines if line.lstrip().startswith("WARN")]
    assert [line.split("WARN", 1)[1].strip() for line in warn] == report["warnings"]
    checks = [line.split()[0] for line in lines[1:]]
    assert checks[:6] == ["load", "smoke", "validation", "baseline", "builtins", "risk"]  # warnings under the checks
    assert json.loads(json.dumps(report))["warnings"] == report["warnings"]


def test_risk_figures_and_their_thresholds():
    from connectx_toolkit.evaluation.referees.record import GameRecord

    def record(times, peak=None):
        return GameRecord(0, ["a", "b"], [], [3], ["DONE", "DONE"], ["win", "loss"], [times, []],
                          {"rows": 6, "columns": 7, "inarow": 4}, 0, act_timeout=2.0, overage=60.0,
                          peak_memory_mb=[peak, None])

    settings = gate.GateSettings(candidate="x.py", baseline="greedy")
    context = gate.GateContext(settings, None, None, Config(6, 7, 4), load_s=0.3, size_bytes=1_400_000)
    context.check = "smoke"
    context.observe([record([0.1, 9.0, 0.5], peak=80.0), record([0.1, 0.2])])
    figures, warnings = gate.risk(context)
    assert figures["max_bank_used_s"] == 7.0 and figures["max_move_s"] == 9.0 and figures["peak_memory_mb"] == 80.0
    assert warnings == []  # 7 s of 60, 9 s of the 62 s allowed, a full board 3.5 s, 0.3 s load, 1.4 MB
    assert figures["full_game_bank_s"] == 3.5  # ply 2 drew 7 s in one game, nothing in the other: the median
    context = gate.GateContext(settings, None, None, Config(6, 7, 4), load_s=1.5, size_bytes=6_000_000)
    context.check = "baseline"
    context.observe([record([0.1, 2.0 + 31.0, 2.0 + 20.0], peak=1500.0)])
    figures, warnings = gate.risk(context)
    assert figures["max_bank_used_s"] == 51.0
    text = "\n".join(warnings)
    assert len(warnings) == 6, text
    # plies 2 and 4 drew 31 and 20 s, the first nothing; the 18 plies past them at the median of the three, 20 s
    assert figures["full_game_bank_s"] == 411.0 and "would need 411.0 s of the 60 s bank" in text
    assert "51.0 s of the 60 s bank (85%" in text and "baseline game 0" in text
    assert "22.0 s, 71% of what the clock allowed it" in text  # 29 s of bank left + 2 s: 22/31 (the tightest)
    assert "loading takes 1.50 s" in text and "6.0 MB" in text and "1,500 MB" in text


def test_a_load_longer_than_the_act_timeout_is_paid_from_the_bank_and_passes_the_smoke_and_validation_checks():
    # the two checks alone (the strength checks would pay the load in each of their 20 games); a 0.6 s load at
    # 0.25 s a move is Kaggle's 4.8 s load at 2 s a move, scaled: the first move draws on the bank
    context, load = gate.prepare(gate.GateSettings(candidate=fixture("loads_0_6s.py"), baseline="greedy",
                                                   act_timeout=0.25, workers=2))
    assert load.passed is True
    smoke, validation = gate.Check("smoke"), gate.Check("validation")
    gate.check_smoke(context, smoke)
    gate.check_validation(context, validation)
    assert smoke.passed is True and validation.passed is True, smoke.reasons + validation.reasons
    assert smoke.data["max_move_s"] >= 0.6 and 0.3 < smoke.data["max_bank_used_s"] < 0.75  # ~0.35 s of bank


@pytest.mark.parametrize("isolation", ["plain", pytest.param("sandbox", marks=pytest.mark.slow)], indirect=True)
def test_fails_a_candidate_that_returns_none(isolation, capfd):
    code, report, _ = run_gate(capfd, "--gate", fixture("returns_none.py"), "--baseline", "greedy", *isolation)
    assert code == 1 and report["checks"][1]["passed"] is False
    assert any("returned None at ply" in reason and "Kaggle plays column 0; return an int" in reason
               for reason in report["reasons"])


def test_a_file_is_gated_as_kaggle_calls_it_its_last_callable(tmp_path, capfd):
    path = tmp_path / "agent_then_class.py"
    path.write_text("def agent(obs, config):\n    return 3\n\n\nclass Stats:\n    games = 0\n")
    code, report, _ = run_gate(capfd, "--gate", str(path), "--baseline", "greedy")
    assert code == 1 and report["checks"][1]["passed"] is False
    assert "Kaggle calls Stats, the last callable of agent_then_class.py, not agent" in report["checks"][0]["note"]
    assert any("Stats() takes no arguments" in reason for reason in report["reasons"]), report["reasons"]


def test_the_load_check_runs_in_a_clean_room(capfd):
    code, report, _ = run_gate(capfd, "--gate", fixture("imports_project.py"), "--baseline", "greedy")
    assert code == 1 and report["checks"][0]["passed"] is False
    assert "clean room" in report["reasons"][0] and "import" in report["reasons"][0]
    assert report["games"] == 0


@pytest.mark.parametrize("isolation", ["plain", pytest.param("sandbox", marks=pytest.mark.slow)], indirect=True)
def test_fails_a_candidate_clearly_weaker_than_its_baseline(isolation, capfd):
    code, report, _ = run_gate(capfd, "--gate", fixture("leftmost.py"), "--baseline", "greedy", "-n", "20", *isolation)
    assert code == 1 and report["verdict"] == "FAIL"
    baseline = next(c for c in report["checks"] if c["name"] == "baseline")
    assert baseline["passed"] is False and baseline["score"] < 0.2
    assert any("weaker than the baseline" in reason for reason in report["reasons"])
    assert report["checks"][-1]["passed"] is None  # stopped at the first failed check


@pytest.mark.parametrize("isolation", ["plain", pytest.param("sandbox", marks=pytest.mark.slow)], indirect=True)
def test_passes_a_rebuild_of_the_baseline(tmp_path, isolation, capfd):
    from connectx_toolkit.cli.build_submission import build_text

    built = tmp_path / "submission.py"
    built.write_text(build_text("greedy")[0])  # the builder's output; the gate itself plays Kaggle's validation
    code, report, stderr = run_gate(capfd, "--gate", str(built), "--baseline", "greedy", "-n", "20", *isolation)
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


@pytest.mark.slow
def test_the_projects_own_submission_passes_against_greedy(capfd):
    """The flagship that ``bash run.sh`` builds: its time manager draws on the bank by design (up to ~10 s on
    a hard move), which Kaggle allows; the gate must PASS it (several minutes)."""
    code, report, stderr = run_gate(capfd, "--gate", os.path.join(ROOT, "submissions", "submission.py"), "--baseline", "greedy")
    assert code == 0 and report["verdict"] == "PASS", (report.get("reasons"), stderr[-2000:])
    assert report["risk_figures"]["max_bank_used_s"] > 0  # it does use the bank, legally


def siblings(folder, helper_folder=None):
    """``bot.py`` importing ``helper.py`` from beside it (or from ``helper_folder``, given with --path)."""
    helper_folder = helper_folder or folder
    helper_folder.mkdir(parents=True, exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    (helper_folder / "helper.py").write_text(
        "def column(obs, config):\n    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n")
    (folder / "bot.py").write_text("import helper\n\n\ndef agent(obs, config):\n    return helper.column(obs, config)\n")
    return folder / "bot.py"


def test_a_raw_file_needing_its_siblings_fails_at_load_as_kaggle_loads_it_alone_and_its_build_passes(tmp_path, capfd):
    bot = siblings(tmp_path / "bot")
    capfd.readouterr()
    code = evaluate_cli.main(["--gate", str(bot), "--baseline", "random", "-n", "4", "--workers", "2"])
    lines = capfd.readouterr().out.splitlines()
    assert code == 1 and lines[0].startswith(f"gate: {bot} against baseline random")  # a header, too
    assert lines[1].startswith("  load        FAIL") and "No module named 'helper'" in lines[1]
    (reason,) = [line for line in lines if line.startswith("  - ")]
    assert reason == (f"  - load: {bot} needs modules of its own (bot.py:1 in <module>: ModuleNotFoundError: No module "
                      f"named 'helper'), which Kaggle does not have when it is uploaded alone (clean room: python -I, alone in "
                      f"an empty folder, no project): upload what "
                      f"`connectx build {bot} -o submission.py` writes, which inlines them")
    built = tmp_path / "submission.py"
    from connectx_toolkit.building import build

    build(str(bot), built)
    checks = gate_first_checks(str(built))
    assert [check.passed for check in checks] == [True, True, True], [check.reasons for check in checks]


def test_the_build_command_a_failed_load_gives_keeps_the_path_the_run_used(tmp_path, capfd):
    bot = siblings(tmp_path / "bot", tmp_path / "lib")
    code, report, _ = run_gate(capfd, "--gate", str(bot), "--path", str(tmp_path / "lib"), "--baseline", "random")
    assert code == 1 and report["candidate"] == str(bot)
    command = f"connectx build {bot} --path {tmp_path / 'lib'} -o submission.py"
    assert f"upload what `{command}` writes" in report["reasons"][0]
    built = subprocess.run([sys.executable, "-m", "connectx_toolkit", *command.split()[1:]],
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]  # the command it prints works as printed


def test_an_agent_that_sets_itself_up_at_step_0_or_1_passes_the_smoke_check():
    """Shaped like a public numba MCTS (globals set up when obs.step is 0 or 1): the smoke and validation games start
    from the empty board, as Kaggle's, so it is called at step 0 or 1 and never meets a NameError."""
    checks = gate_first_checks(os.path.join(ROOT, "tests", "fixtures", "eval_agents", "sets_up_at_step_0_or_1.py"))
    assert [check.passed for check in checks] == [True, True, True], [check.reasons for check in checks]


def test_an_agent_failing_from_the_empty_board_fails_the_smoke_check_with_no_word_of_an_opening(capfd):
    """The smoke games start from the empty board, as Kaggle's: the agent's own fault, told as such."""
    failing = os.path.join(ROOT, "tests", "fixtures", "eval_agents", "fails_in_its_second_call.py")
    code, report, _ = run_gate(capfd, "--gate", failing, "--baseline", "random", "-n", "4")
    assert code == 1 and report["checks"][1]["passed"] is False
    assert report["checks"][1]["detail"].startswith("2 games vs random from the empty board"), report["checks"][1]
    assert any(reason.startswith("smoke (vs random): 2 of 2 games lost by error") and "RuntimeError: second call" in reason
               for reason in report["reasons"]), report["reasons"]
    assert not any("opening" in reason for reason in report["reasons"]), report["reasons"]


def test_a_stateful_agent_trusting_its_own_answers_passes_and_its_forced_opening_forfeits_are_a_warning(capfd):
    """Shaped like a public MCTS keeping its tree in globals: Kaggle plays it DONE in both seats and against itself.
    Its load, smoke and validation games start from the empty board with its own answers, as Kaggle's do; where a
    strength check's opening played another column for it, it raises KeyError: a WARN line, never a FAIL, and those
    games are left out of the score."""
    code, report, _ = run_gate(capfd, "--gate", fixture("tree_in_globals.py"), "--baseline", "random", "-n", "4")
    assert code == 0 and report["verdict"] == "PASS", report["reasons"]
    assert [check["passed"] for check in report["checks"]] == [True] * 5
    forced = [warning for warning in report["warnings"] if "forced opening" in warning]
    assert len(forced) == 1 and "KeyError" in forced[0], report["warnings"]
    assert forced[0].startswith("strength checks: ") and "Kaggle's games start from the empty board" in forced[0]
    voided = report["checks"][3]["forced_opening_forfeits"] + sum(
        report["checks"][4][name]["forced_opening_forfeits"] for name in gate.BUILTINS)
    assert voided > 0 and f"{voided} games" in forced[0], (voided, forced)


def test_an_agent_that_starts_processes_each_move_passes_the_smoke_check():
    checks = gate_first_checks(os.path.join(ROOT, "tests", "fixtures", "eval_agents", "starts_processes.py"))
    assert [check.passed for check in checks] == [True, True, True], [check.reasons for check in checks]


def forced_game(candidate: str, opening: list[int], seat: int):
    """A strength check's game of ``candidate`` (agent 0) against leftmost.py, its seat ``seat``, through ``opening``
    (each seat called at its plies, the opening's column played), on the gate's path (its own processes)."""
    from connectx_toolkit.evaluation.scheduling.runner import play_game
    from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent

    seats = [resolve_agent(candidate), resolve_agent(fixture("leftmost.py"))]
    # play_game seats its first spec first; ``swapped`` records that the match's agent 0 sat second
    return play_game(*(seats if seat == 0 else seats[::-1]), opening, swapped=seat == 1, act_timeout=2.0, overage=60.0)


def baseline_check_of(candidate: str, records: list) -> gate.Check:
    """The baseline check judging ``records`` (the match stood in for)."""
    settings = gate.GateSettings(candidate=candidate, baseline="greedy", workers=2)
    context, load = gate.prepare(settings)
    assert context is not None and load.passed
    context.match = lambda *args, **kwargs: records  # type: ignore[method-assign]
    check = gate.Check("baseline")
    gate.check_baseline(context, check)
    return check, context


def test_a_stateless_agents_own_error_met_under_a_forced_opening_fails_at_its_line():
    """Issue 54: a stateless agent raises NameError whenever its own move fills the board. Met in a strength game
    whose forced opening had overridden its answers, the gate used to excuse it ("may assume its answer was played").
    Asked again in a fresh process from its first call after the last overridden answer, it raises the same at the
    same line: the agent's own error, reported at its file:line."""
    from tests.helpers import drawn_game

    candidate = fixture("fills_the_board_with_an_undefined_name.py")
    record = forced_game(candidate, drawn_game()[:41], seat=1)  # its call at ply 41 fills the board
    assert record.outcome_of(0) == "error" and record.forfeited_under_forced_opening(0), record
    check, context = baseline_check_of(candidate, [record])
    assert check.passed is False and check.data["forced_opening_forfeits"] == 0
    (reason,) = check.reasons
    assert "fills_the_board_with_an_undefined_name.py:32 in <lambda>: NameError: name 'get_heuristic3'" in reason, reason
    assert "forfeited the same way at ply 41: its own error, whatever the opening" in reason, reason
    assert gate.forced_opening_warnings(context) == []


def test_a_stateful_agent_breaking_only_because_its_answer_was_overridden_stays_excused():
    # tree_in_globals.py answers 3 at ply 0; the opening plays 0 there: at ply 2 its tree lookup raises KeyError.
    # Asked again from ply 2 in a fresh process (none of the overridden calls), it plays on: the opening's doing
    candidate = fixture("tree_in_globals.py")
    record = forced_game(candidate, [0, 0, 0, 0], seat=0)
    assert record.outcome_of(0) == "error" and "KeyError" in record.error_of(0) and len(record.moves) == 2
    check, context = baseline_check_of(candidate, [record])
    assert check.reasons == [] and check.data["forced_opening_forfeits"] == 1 and check.data["scored_games"] == 0
    (warning,) = gate.forced_opening_warnings(context)
    assert "KeyError" in warning and "asked again in a fresh process" in warning, warning
