"""``BoardOptions`` checks its own fields when it is made (the command line's ``connectx board`` and the Python
API's ``board()`` alike): a bad one is a ``BoardError``, one line, which is a ``UsageError``."""

from __future__ import annotations

import pytest

from connectx_toolkit.agents.core import Config
from connectx_toolkit.board.server import BoardError, BoardOptions
from connectx_toolkit.errors import UsageError


@pytest.mark.parametrize("fields, says", [
    ({"port": 70000}, "--port must be a port number (0-65535), got 70000"),
    ({"port": -1}, "--port must be a port number (0-65535), got -1"),
    ({"game": ""}, "--game must be FILE[:N], got ''"),
    ({"act_timeout": 0}, "--act-timeout must be > 0, got 0"),
    ({"memory_mb": -1}, "--memory-mb must be an integer >= 0 (0: no cap), got -1"),
    ({"analysis_budget": 0}, "--analysis-budget must be > 0 and <= 3600, got 0"),
    ({"workers": 0}, "--workers must be an integer >= 1, got 0"),
])
def test_a_bad_field_is_one_line(fields, says):
    with pytest.raises(BoardError) as raised:
        BoardOptions(**fields)
    assert isinstance(raised.value, UsageError) and str(raised.value) == says


def test_good_options_are_kept_as_given():
    options = BoardOptions(agent="greedy", config=Config(5, 6, 4), port=8000, workers=2, analysis_budget=3.0)
    assert (options.agent, options.config, options.port, options.workers) == ("greedy", Config(5, 6, 4), 8000, 2)
