"""Referees: the rules of one game between two seats, and what a game is and was.

``played`` is the interface (``Player``, what a seat is asked; ``Played``, what the referee hands back);
``native`` is Kaggle's ConnectX referee written out for speed, ``kaggle`` the same game on Kaggle's own
``Environment``; ``rules`` the drop and win rules (the native referee's, and the board's game's);
``kaggle_steps`` a native game's step records in Kaggle's shape; ``bank`` the overage bank's arithmetic;
``record`` what one game is asked to be (``GameTask``) and what it was (``GameRecord``).

May import: the game core and ``evaluation.seats``.
"""
