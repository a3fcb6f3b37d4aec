"""Reinforcement-learning environments on the game core (any rows x columns x inarow, Kaggle's rules).

- ``opponents``: an opponent spec ("random", "negamax", a module of agents/, a file, a callable) as something the
  environments call, in this process or (``isolated=True``) in a process of its own;
- ``single_env``: ``ConnectXEnv``, a ``gymnasium.Env`` for one learner against an opponent (id ``ConnectX-v0``);
- ``self_play``: a PettingZoo AEC environment for two learners, shaped like ``connect_four_v3``;
- ``game``: one game's bitboards and the numpy buffers observations are copied from (shared by the two envs);
- ``batched``: a numpy vector environment stepping many games at once;
- ``dependencies``: the one-line message when gymnasium or PettingZoo is missing.

Importing this package imports neither gymnasium nor PettingZoo; each module imports what it needs.

May import: the game core, ``evaluation.seats`` (resolving and running an opponent) and ``evaluation.referees``
(Kaggle's statuses, clock and action check).
"""
