"""A ``Player`` that calls a Python callable in this process (no isolation, no deadline).

For tests that compare the referees on the same agents, and for driving a referee from Python. Agents
get ``Struct`` copies of the observation and configuration and are called with as many of the two
arguments as they take, as Kaggle's ``Agent.act`` does. ``clock`` measures the call (a test may give
a scripted clock so that durations, and so the overage bank, are exact).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from connectx_toolkit.evaluation.seats.agent_move import AgentMove
from connectx_toolkit.evaluation.seats.observation import structify


class CallablePlayer:
    """``act`` calls ``agent``; an exception it raises is the move's ``error`` ("Type: message")."""

    def __init__(self, agent: Callable[..., Any], clock: Callable[[], float] = time.perf_counter) -> None:
        self.agent = agent
        self.clock = clock

    def act(self, observation: dict, configuration: dict, deadline_s: float) -> AgentMove:
        args = (structify(observation), structify(configuration))
        count = getattr(getattr(self.agent, "__code__", None), "co_argcount", 2)
        start = self.clock()
        try:
            action = self.agent(*args[:count])
        except Exception as error:
            return AgentMove(None, self.clock() - start, f"{type(error).__name__}: {error}")
        return AgentMove(action, self.clock() - start)
