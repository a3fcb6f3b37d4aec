"""bench/solver_oracle.py: the clock it gives the agent, its table, its exits."""

from __future__ import annotations

import pytest

pytest.importorskip("bitbully")

from bench import solver_oracle  # noqa: E402
from connectx_toolkit.agents.solver_engine import time_manager as tm  # noqa: E402
from tests.helpers import REPO


def test_the_auto_bank_is_a_game_of_hard_moves_since_ply_4():
    assert solver_oracle.game_bank(4, 2.0) == solver_oracle.game_bank(5, 2.0) == 60.0
    banks = [solver_oracle.game_bank(ply, 2.0) for ply in range(4, 42, 2)]
    assert all(later < earlier for earlier, later in zip(banks, banks[1:]))  # every hard move draws on it
    assert min(banks) >= tm.BANK_RESERVE  # never below the reserve
    # the bank at ply 6 is what ply 4's hard move left: its budget beyond the act timeout
    assert solver_oracle.game_bank(6, 2.0) == pytest.approx(60.0 - (tm.hard_budget(2.0, 60.0, 4, 42) - 2.0))


def test_prints_the_bank_given_and_the_largest_move_time(capsys):
    assert solver_oracle.main(["--set", "random", "--plies", "30-31", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "actTimeout 2.0 s, bank auto" in out
    row = next(line for line in out.splitlines() if line.startswith("| 30-41 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "2" and cells[2].startswith("2 ")
    low, high = (float(x) for x in cells[6].split("-"))
    assert low == pytest.approx(solver_oracle.game_bank(31, 2.0), abs=0.05)
    assert "largest single move time:" in out


def test_a_fixed_budget_is_the_old_clock(capsys):
    assert solver_oracle.main(["--set", "random", "--plies", "30", "--limit", "1", "--budget", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "a fixed 0.5 s per move" in out and "| - |" in out


def test_bad_arguments_exit_2(capsys):
    assert solver_oracle.main(["--plies", "x-y"]) == 2
    assert solver_oracle.main(["--bank", "-3"]) == 2
    assert solver_oracle.main(["--bank", "lots"]) == 2
    assert solver_oracle.main(["--act-timeout", "0"]) == 2


def held_out(tmp_path, plies=(30, 31)):
    """A small labelled file in the sets' format, as tools/make_oracle_set.py writes it."""
    from tools.oracle import load_oracle_set

    path = tmp_path / "held_out.jsonl"
    lines = ["# a header line"]
    for entry in load_oracle_set("strong", *plies)[::10]:
        lines.append('{"moves": "%s", "scores": %s}' % (entry.moves, list(entry.scores)))
    path.write_text("\n".join(lines).replace("None", "null") + "\n")
    return path


def test_a_held_out_file_in_bands(tmp_path, capsys):
    path = held_out(tmp_path)
    assert solver_oracle.main(["--file", str(path), "--bands"]) == 0
    out = capsys.readouterr().out
    assert str(path) in out
    row = next(line for line in out.splitlines() if line.startswith("| 24-41 |"))
    assert row.split("|")[2].strip() == "6"


def test_a_built_submission_is_asked_as_kaggle_asks(tmp_path, capsys):
    import os

    built = os.path.join(REPO, "submissions", "submission.py")
    path = held_out(tmp_path)
    assert solver_oracle.main(["--file", str(path), "--submission", built, "--plies", "30"]) == 0
    out = capsys.readouterr().out
    assert "as Kaggle loads it" in out and "| 30-41 | 3 | 3 (100.0 %)" in out
    assert solver_oracle.main(["--submission", built, "--budget", "0.5"]) == 2
    assert solver_oracle.main(["--submission", str(tmp_path / "none.py")]) == 2


def test_the_simulated_table_needs_a_build_that_reads_one(tmp_path, capsys):
    no_table = tmp_path / "old.py"
    no_table.write_text("def agent(obs, config):\n    return 3\n")
    assert solver_oracle.main(["--plies", "8", "--limit", "1", "--submission", str(no_table), "--simulate-table"]) == 2
    assert "has no outcome table" in capsys.readouterr().err


def test_the_simulated_table_answers_ply_8_and_is_put_back(capsys):
    from connectx_toolkit.agents.solver_engine import outcome_table
    from connectx_toolkit.agents.solver_engine.outcome_table import OutcomeTable
    from tools.oracle import load_oracle_set

    before = list(outcome_table._cache)
    entries = load_oracle_set("random", 8, 9)[:4]
    table = OutcomeTable(solver_oracle.simulated_table(entries))
    assert table.metadata["simulated"] and len(table) > 0
    for entry in entries:
        if entry.ply == 8 and not entry.position().immediate_wins():
            assert table.outcome(entry.position()) == (entry.best_score > 0) - (entry.best_score < 0)
    assert outcome_table._cache == before


def test_verify_cost_counts_nodes(capsys):
    from bench import verify_cost

    assert verify_cost.main(["--plies", "24-25", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "k nodes per CPU second" in out
    assert [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| 2")] == ["24", "25"]
    assert verify_cost.main(["--max-nodes", "0"]) == 2
