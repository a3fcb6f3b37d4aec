"""``AnalysisSettings`` checks its own fields when it is made, whichever door made it (the command line, the
Python API, the ladder), and ``analyze_file`` takes it: bad input is one ``UsageError`` line."""

from __future__ import annotations

import pytest

from connectx_toolkit.agents.core import Config
from connectx_toolkit.analysis.games import AnalysisInputError
from connectx_toolkit.analysis.jobs import analyze_file
from connectx_toolkit.analysis.settings import AnalysisSettings, check_board, default_budget
from connectx_toolkit.errors import UsageError


@pytest.mark.parametrize("fields, says", [
    ({"budget": 0}, "--analysis-budget must be > 0 and <= 3600, got 0"),
    ({"budget": 3601.0}, "--analysis-budget must be > 0 and <= 3600, got 3601.0"),
    ({"budget": True}, "--analysis-budget must be > 0 and <= 3600, got True"),
    ({"workers": 0}, "--workers must be an integer >= 1, got 0"),
    ({"workers": 1.5}, "--workers must be an integer >= 1, got 1.5"),
    ({"cache": ""}, "--analysis-cache must be a path, got ''"),
    ({"directory": 3}, "--analysis-dir must be a path, got 3"),
])
def test_a_bad_field_is_one_line(fields, says):
    with pytest.raises(UsageError) as raised:
        AnalysisSettings(**fields)
    assert str(raised.value) == says


def test_the_defaults_are_the_commands_defaults():
    settings = AnalysisSettings()
    assert (settings.budget, settings.cache, settings.directory, settings.workers) == (None, None, None, None)
    assert settings.compiled_solver and settings.outcome_table and settings.progress
    assert default_budget(True) == 30.0 and default_budget(False) == 6.0


def test_only_the_standard_board_is_analysed():
    check_board(Config())
    with pytest.raises(UsageError, match="exact labels exist only for 6x7, four in a row; this run is 5x7, 4 in a row"):
        check_board(Config(5, 7, 4))


def test_analyze_file_refuses_a_missing_file_in_one_line(tmp_path):
    with pytest.raises(AnalysisInputError) as raised:
        analyze_file(str(tmp_path / "missing.jsonl"), AnalysisSettings(cache="none", workers=1, progress=False))
    assert isinstance(raised.value, UsageError) and "\n" not in str(raised.value)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(AnalysisInputError):
        analyze_file(str(empty), AnalysisSettings(cache="none", workers=1, progress=False))
    assert not (tmp_path / "empty-analysis").exists()  # nothing half-written
