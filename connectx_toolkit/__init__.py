"""The ConnectX toolkit: build a Kaggle submission from any agent, evaluate agents under Kaggle's rules, gate an
upload, analyse games, open the board.

    >>> import connectx_toolkit
    >>> connectx_toolkit.__version__
    '0.2.0'

One function per job, each the Python face of one ``connectx`` subcommand:

- :func:`build`       any agent into one file (or bundle) Kaggle accepts, validated (``connectx build``);
- :func:`play_match`  a match between two agents on Kaggle's clock (``connectx match``);
- :func:`run_gate`    the pre-upload gate: safe to submit, and not weaker than a baseline (``connectx gate``);
- :func:`league`      a round robin with ratings (``connectx league``);
- :func:`analyze`     every move of saved games labelled with its exact value (``connectx analyze``);
- :func:`accuracy`    how close to perfect play agents are, on positions with exact values (``connectx accuracy``);
- :func:`open_board`  the board: play an agent, see every column's value, step through a game (``connectx board``).

Their results are dicts a notebook shows as tables (the ``--json`` objects). How games end is typed:
:class:`Outcome` (a seat's result), :class:`Status` (Kaggle's status of a seat), :class:`Proven` (what the
analysis proves for the player to move), :class:`Verdict` (the gate's); each is a string enum, equal to the
string the JSON holds.

Everything the toolkit is lives under this one name, so a user's own ``agents/``, ``board.py`` or
``evaluation/`` beside a notebook never stands in for its modules, and an install puts nothing else into
site-packages. The built-in agents are ``connectx_toolkit.agents``: in a checkout that folder is a link to
the repository's ``agents/`` (where a user looks for them), in a wheel a copy of it; they import each other
relatively, so a submission embeds them as the plain ``agents`` package (docs/setup.md says why).
Importing the package is cheap (every agent process the evaluator starts imports it): each function imports
what does its job when it is called.
"""

__version__ = "0.2.0"  # the one home of the version: pyproject.toml reads it

from connectx_toolkit.api import accuracy, analyze, build, league, open_board, play_match, run_gate
from connectx_toolkit.outcomes import Outcome, Proven, Status, Verdict

__all__ = ["Outcome", "Proven", "Status", "Verdict", "__version__", "accuracy", "analyze", "build", "league",
           "open_board", "play_match", "run_gate"]
