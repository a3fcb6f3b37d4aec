"""Seats: an agent, and the process it plays in.

``agent_specs`` turns an agent argument into an ``AgentSpec`` of one of the ``agent_kinds`` (and checks a
file loads as Kaggle loads it, ``clean_room`` for the gate's check in a clean interpreter); ``agent_server``
is the agent's own process, answering moves over a socket; ``agent_process`` is the referee's side of that
process (``AgentProcess``); ``kept_agents`` the agent processes a worker keeps between games; ``wire``,
``agent_move`` and ``observation`` what crosses the socket; ``callable_player`` a seat in this process;
``process_limits`` what a child process puts on itself.

May import: the game core, ``building.kaggle_rules`` (Kaggle's loading rules), ``building`` (to build a
folder agent), ``sandbox``. Nothing else of ``evaluation``.
"""
