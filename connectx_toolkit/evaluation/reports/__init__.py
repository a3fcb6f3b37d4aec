"""Reports: what finished games add up to.

``results`` is the JSON Lines results file; ``summary`` a match's counts, rates, times and statistics;
``stats`` the statistics (score, Elo, likelihood of superiority, SPRT); ``ratings`` a league's ratings;
``replays`` HTML replays of games; ``progress`` the progress bar of a long run.

May import: the game core, ``evaluation.seats`` and ``evaluation.referees`` (the records it reads).
"""
