"""The n-tuple agent: the n-tuple player (``ntuple_engine``: Connect 4 values learned by TD(λ) self-play alone, read
from 70 8-tuple look-up tables and the threat tables; the tactical filter, then a time-limited alpha-beta over the
learned values) with the shipped weights, ``data/ntuple_6x7.npz``, trained by ``connectx train --learner ntuple``
(the command and its learning curve: docs/training.md). numpy only.
"""

from __future__ import annotations

from functools import lru_cache

from .core.resources import load_resource
from .ntuple_engine.network import *  # noqa: F403  (the player's names: code that knows the agent by this name
from .ntuple_engine.search import *  # noqa: F403   reads them here)
from .ntuple_engine.network import Network, read_network
from .ntuple_engine.search import play


@lru_cache(maxsize=1)
def shipped_network() -> Network:
    return read_network(load_resource("ntuple_6x7.npz"))


def agent(obs, config):
    return play(obs, config, shipped_network())
