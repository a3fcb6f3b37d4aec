"""ConnectX agents: one module per agent, each exposing ``agent(obs, config)``.

Shared game code lives in :mod:`agents.core`; every agent uses it.
"""
