"""The toolkit under one name, so that a user's own ``agents/``, ``board.py``, ``evaluation.py``,
``analysis/`` or ``tools/`` beside a notebook never stands in for the toolkit's modules.

The repository keeps its layout (``agents/``, ``evaluation/``, ``build_submission.py``, ...); this package's
search path is the repository's root, so ``connectx_toolkit.evaluation.api`` is ``evaluation/api.py``. The
product code imports itself only through this name (``tests/test_layering.py`` checks it); the agents in
``agents/`` import each other relatively, so they also load as the plain ``agents`` package a submission
embeds.

    from connectx_toolkit.evaluation.api import play_match, run_gate, board
    from connectx_toolkit.building import build
"""

import os

__path__ = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
