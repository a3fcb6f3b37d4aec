"""bench/solve_speed_vs_bitbully.py: ``connectx solve --all`` beside bitbully, ms a position by ply."""

from __future__ import annotations

import pytest

pytest.importorskip("bitbully")

from bench import solve_speed_vs_bitbully as bench  # noqa: E402


def rows(out: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in out.splitlines()
            if line.startswith("| ") and line[2].isdigit()]


def test_a_short_run_prints_both_engines_per_ply_and_agrees_with_bitbully(capsys):
    assert bench.main(["--plies", "21", "30", "--positions", "3"]) == 0
    found = rows(capsys.readouterr().out)
    assert [row[:2] for row in found] == [["21", "3"], ["30", "3"]]
    for row in found:
        assert all(float(cell) >= 0 for cell in row[2:5]) and row[6] in ("yes", "NO") and row[7] == "0"


def test_bad_arguments_exit_2(capsys):
    assert bench.main(["--positions", "0"]) == 2
    assert bench.main(["--plies", "41"]) == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.bench
def test_the_whole_table(capsys):
    """Plies 10 to 36, 60 positions a ply (minutes: ply 10 alone is about a minute of each engine)."""
    assert bench.main([]) == 0
    with capsys.disabled():
        print(capsys.readouterr().out)
