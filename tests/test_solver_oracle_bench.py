"""bench/solver_oracle.py: the clock it gives the agent, its table, its exits."""

from __future__ import annotations

import pytest

pytest.importorskip("bitbully")

from bench import solver_oracle  # noqa: E402
from agents.solver_engine import time_manager as tm  # noqa: E402


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
