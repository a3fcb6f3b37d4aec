"""The kinds of agent an ``AgentSpec`` holds (``AgentSpec.kind``), named once.

Plain strings, not an Enum: a kind crosses into the agent's own process as text on ``agent_server``'s
command line, and specs are pickled to the workers. Standard library only (nothing at all): ``agent_server``
imports it and must stay quick to start.
"""

FILE = "file"  # a submission file, loaded per game as Kaggle loads it
BUILT = "built"  # a folder, FILE:FUNCTION, a notebook or a callable, built into a temporary file
BUNDLE = "bundle"  # a Kaggle bundle, unpacked where the sandbox shows it at /kaggle_simulations/agent
MODULE = "module"  # a module of agents/ or of the project, a fresh module object per game
BUILTIN = "builtin"  # a Kaggle built-in (random, negamax)
CALLABLE = "callable"  # a live object of this process, by its registry token

LOADED_FROM_FILE = (FILE, BUILT, BUNDLE)  # loaded from a file on disk by Kaggle's loader (the target is its path)
