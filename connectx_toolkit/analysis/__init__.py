"""Game analysis: every move of a 6x7 game labelled with its exact value, the move that lost the game.

One concept per module:

- :mod:`games`      read games from a results file, a Kaggle episode JSON or a finished run
- :mod:`values`     proven bounds on a position's score and the outcome class they decide
- :mod:`solving`    solve one position within a budget (compiled solver or the agent's exact search)
- :mod:`fast_solver` the compiled solver (numba), used when installed
- :mod:`outcome_table` the committed table of solved ply-7 positions (package data) and minimax over it
- :mod:`table`      outcome classes of early positions from that table, as values
- :mod:`workers`    worker processes that solve positions in parallel, killed at the budget
- :mod:`cache`      solved positions on disk (SQLite), keyed by position
- :mod:`labelling`  label every move, find the first outcome-losing move and its alternatives
- :mod:`summary`    per-agent figures, the JSON object and the table
- :mod:`replay`     the annotated HTML replay (Kaggle's player beside the labelled move list)
- :mod:`plot`       the PNG of outcome-losing moves by ply
- :mod:`settings`   ``AnalysisSettings``: the budget, the cache, the engines, where the files go
- :mod:`jobs`       analyse a file, a match's games, or label games (what the commands call)
"""
