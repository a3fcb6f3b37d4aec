"""Scheduling: games across processes.

``runner`` plays one game (each seat in its own process, the referee here); ``worker`` is a process that
referees whole games; ``pool`` spreads games over workers with hard deadlines and crash isolation
(``ray_backend`` the same on a Ray cluster); ``match`` schedules a match's game pairs over an opening suite
(``openings``); ``play_settings`` is how games are played (``PlaySettings``), the one object the front doors
pass down to the match, the pool and its workers.

May import: the game core, ``sandbox``, ``evaluation.seats`` and ``evaluation.referees``.
"""
