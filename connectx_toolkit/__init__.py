"""The ConnectX toolkit: build a Kaggle submission from any agent, evaluate agents under Kaggle's rules, gate an
upload, analyse games, follow the ladder.

    from connectx_toolkit.evaluation.api import play_match, run_gate, board
    from connectx_toolkit.building import build

Everything the toolkit is lives under this one name, so a user's own ``agents/``, ``board.py`` or
``evaluation/`` beside a notebook never stands in for its modules, and an install puts nothing else into
site-packages. The built-in agents are ``connectx_toolkit.agents``: in a checkout that folder is a link to
the repository's ``agents/`` (where a user looks for them), in a wheel a copy of it; they import each other
relatively, so a submission embeds them as the plain ``agents`` package (docs/setup.md says why).
"""
