"""Small checks that several test files share."""

from __future__ import annotations

from typing import Any


def played_without_forfeit(summary: dict[str, Any], games: int, seat: int = 0) -> bool:
    """The agent listed ``seat``-th in a match's summary finished each of ``games`` games without an invalid move,
    an error or a timeout. (Who wins against ``random`` depends on its draws, which the forced opening plies
    consume too: a test of loading and playing asserts that the agent played, not that it won.)"""
    agent = summary["agents"][seat]
    finished = agent["wins"] + agent["draws"] + agent["losses"]
    return finished == games and agent["invalid"] == agent["errors"] == agent["timeouts"] == 0
