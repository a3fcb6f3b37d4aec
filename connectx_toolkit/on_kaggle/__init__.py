"""After the upload: submit through the gate, then fetch and analyse the submission's ladder games on Kaggle.

Everything here talks to Kaggle through its official client's library (``kagglesdk``, and ``kaggle`` for
the upload), with the official client's own credentials. One concept per module:

- :mod:`errors`      the one exception this package raises for the user (one line, exit 2)
- :mod:`credentials` where the official client finds credentials, in its order
- :mod:`connection`  a ``kagglesdk`` client: pacing, retries with back-off on 429 and 5xx, failures in one line
- :mod:`episodes`    a submission's episodes as Kaggle lists them
- :mod:`files`       the cache folder: one file per episode, written whole
- :mod:`download`    list the episodes, download each replay and our agent's log, resume a cut run
- :mod:`agent_logs`  an agent's log: its last lines and the agent's own ``file:line`` in a traceback
- :mod:`ladder`      fetch and analyse; the ladder summary: W/D/L by seat and by opponent, losing moves, forfeits
- :mod:`submit`      the gate, then the upload on PASS

The command line (``connectx submit``, ``connectx ladder``) lives in ``connectx_toolkit.cli``.
"""
