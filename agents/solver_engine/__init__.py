"""The search engine behind the ``solver`` agent, one concept per module.

- :mod:`move_order`   order candidate moves by the threats they create
- :mod:`transposition` bounds of positions already searched
- :mod:`negamax`      the exact solver: scores on Pascal Pons' scale (win sooner, lose later)
- :mod:`heuristic`    a position evaluation for depth-limited search
- :mod:`depth_search` iterative deepening alpha-beta with that evaluation
- :mod:`time_manager` how long a move may think
- :mod:`opening_book` the books of best moves and of outcome-keeping moves (6x7)
- :mod:`outcome_table` the outcome of every 6x7 position at ply 8, and what it proves one ply later

The cells that would complete a line come from the game core (``agents.core.winning_cells``).
"""
