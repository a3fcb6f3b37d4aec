"""The search engine behind the ``solver`` agent, one concept per module.

- :mod:`threats`      cells that would complete a line (fast for four in a row, generic otherwise)
- :mod:`move_order`   order candidate moves by the threats they create
- :mod:`transposition` bounds of positions already searched
- :mod:`negamax`      the exact solver: scores on Pascal Pons' scale (win sooner, lose later)
- :mod:`heuristic`    a position evaluation for depth-limited search
- :mod:`depth_search` iterative deepening alpha-beta with that evaluation
- :mod:`time_manager` how long a move may think
"""
