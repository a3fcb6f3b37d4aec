"""The board: a local web page to play an agent, see every column's exact value, and step through games.

``connectx board [AGENT] [--game FILE[:N]]`` (the command line's ``connectx_toolkit.cli.board``); from a notebook,
``connectx_toolkit.open_board(agent)``. One concept per module:

- :mod:`game`        moves, turns and the end of a game on any board (the agent plays in its own process,
                     ``evaluation.seats.agent_process``, as the evaluator runs it)
- :mod:`values`      exact column values and game labels from the analysis, in the background
- :mod:`session`     the state behind the page and what its buttons do
- :mod:`app`         the Flask application: token and Host checks, the page, the JSON API
- :mod:`server`      ``BoardOptions`` (checked when made), binds 127.0.0.1, serves
- :mod:`hosted`      is the kernel on Kaggle or Colab (whose 127.0.0.1 the browser cannot reach)?
- :mod:`solved_game` every position of a game with every column's value, solved ahead
- :mod:`inline`      the board drawn in a notebook cell, stepped by its own script with no server
- ``static/``        the pages (HTML, CSS, JavaScript; no build step)
"""
