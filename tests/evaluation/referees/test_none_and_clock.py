"""None answers (Kaggle plays column 0) are recorded, counted and failed; --act-timeout sets ``timeout`` too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from connectx_toolkit.cli import build_submission as builder
from connectx_toolkit.cli import evaluate as evaluate_cli
from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.scheduling.runner import play_game
from tests.helpers import REPO

ROOT = REPO
NONE_AGENT = os.path.join(ROOT, "tests", "fixtures", "gate_agents", "returns_none.py")


def test_a_none_is_recorded_as_the_column_0_kaggle_plays():
    for referee in ("native", "kaggle"):
        record = play_game(resolve_agent(NONE_AGENT), resolve_agent("greedy"), seed=2, referee=referee)
        assert record.none_plies[0] == [4]
        assert record.moves[4] == 0 and record.steps[5][0]["action"] == 0
        assert len(record.moves) == len(record.steps) - 1  # every move recorded, the None one included


def evaluate(capfd, *arguments: str) -> str:
    """What ``evaluate.py ARGUMENTS`` prints on stdout (exit 0): the command's ``main`` in this process, which has
    imported Kaggle's environment once for every test (a subprocess paid ~0.7 CPU s); stdout read at the fd, as
    its forked workers write there too."""
    capfd.readouterr()
    code = evaluate_cli.main(list(arguments))
    out, err = capfd.readouterr()
    assert code == 0, err[-2000:]
    return out


def test_evaluate_json_counts_none_moves(tmp_path, capfd):
    summary = json.loads(evaluate(capfd, NONE_AGENT, "greedy", "-n", "2", "--workers", "1", "--json", "--no-progress",
                                  "--results", str(tmp_path / "r.jsonl")))
    assert [agent["none_moves"] for agent in summary["agents"]] == [2, 0]
    assert summary["referee"] == "native" and summary["games_per_s"] > 0
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()[1:]]
    assert all(sum(len(plies) for plies in line["none_plies"]) == 1 for line in lines)


def test_the_builders_validation_fails_an_agent_that_returned_none(tmp_path, capfd):
    capfd.readouterr()
    assert builder.main([NONE_AGENT, "-o", str(tmp_path / "out.py")]) == 1  # its validation: a clean interpreter
    out, err = capfd.readouterr()
    assert "returned None at ply 4: Kaggle plays column 0; return an int" in out + err


def test_act_timeout_sets_the_obsolete_timeout_too(tmp_path):
    reader = tmp_path / "reads_timeout.py"
    reader.write_text(textwrap.dedent("""
        def agent(obs, config):
            if config.timeout != config.actTimeout or config.actTimeout != 5:
                raise ValueError(f"timeout {config.timeout} actTimeout {config.actTimeout}")
            return [c for c in range(config.columns) if obs.board[c] == 0][0]
    """))
    for referee in ("native", "kaggle"):
        record = play_game(resolve_agent(str(reader)), resolve_agent("random"), act_timeout=5, referee=referee)
        assert "ERROR" not in record.statuses, record.error


def test_a_bad_referee_is_one_line_and_exit_2():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "evaluate.py"), "greedy", "random", "--referee", "fast"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert "--referee" in done.stderr


def test_evaluate_reports_the_most_bank_a_game_spent(tmp_path, capfd):
    spender = os.path.join(ROOT, "tests", "fixtures", "gate_agents", "spends_most_of_the_bank_once.py")
    summary = json.loads(evaluate(capfd, spender, "greedy", "-n", "2", "--workers", "2", "--json", "--no-progress",
                                  "--act-timeout", "0.1", "--overage", "1", "--results", str(tmp_path / "r.jsonl")))
    spent = [agent["max_bank_used_s"] for agent in summary["agents"]]
    # 60 % of the 1 s bank on its second move, and less than all of it (not a TIMEOUT) however loaded the machine;
    # greedy's moves take milliseconds, and a loaded machine's overhead draws far less than 0.3 s
    assert 0.55 < spent[0] < 1.0 and spent[1] < 0.3
    table = evaluate(capfd, "--resume", str(tmp_path / "r.jsonl"), "--no-progress")
    header = next(line for line in table.splitlines() if line.startswith("agent"))
    assert "max bank s" in header
    row = next(line for line in table.splitlines() if line.startswith("spends_most"))
    assert f"{spent[0]:.1f}" in row.split()


def test_a_record_carries_its_clock_and_the_agents_peak_memory():
    record = play_game(resolve_agent("greedy"), resolve_agent("random"), act_timeout=0.5, overage=3)
    assert (record.act_timeout, record.overage) == (0.5, 3)
    assert all(peak is not None and 1 < peak < 2048 for peak in record.peak_memory_mb)
    again = type(record).from_json(json.loads(json.dumps(record.to_json())))
    assert again.bank_used_of(0) == record.bank_used_of(0) and again.peak_memory_mb == record.peak_memory_mb
