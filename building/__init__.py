"""The submission builder behind ``build_submission.py``: any agent into one file Kaggle accepts.

Public API (stable; scripts and notebooks build on it):

- ``building.build(target, out="submission.py", *, function=None, allow_imports=(), verbose=False)
  -> BuildReport`` — build, validate in a clean interpreter with Kaggle's loader and referee, write
  atomically. ``target``: a module in ``agents/``, a dotted module, a ``.py`` file or folder anywhere,
  ``TARGET:FUNCTION``, or a function object from a notebook / ``__main__``. Raises ``BuildError``.
- ``building.build_text(target, ...) -> (text, modules, data)`` — the file without validating it.
- ``building.ANY_EXTERNAL`` — in ``allow_imports``: every import is allowed. For a build that is never
  uploaded (``evaluate.py`` builds a folder or ``FILE:FUNCTION`` agent with ``build_text(target,
  allow_imports=(ANY_EXTERNAL,))``).
- ``building.split_function(target) -> (base, function | None)`` — ``TARGET:FUNCTION`` taken apart as the
  builder reads it; raises ``InputError`` (a ``BuildError``) for a function part that is not a name.
- ``building.BuildError`` — the one exception type; ``str(error)`` is one line, ``error.exit_code`` is
  2 for bad input and 1 for a failed validation (``ValidationError``, with ``.report``).

One concept per module: ``targets`` (what AGENT means), ``modules`` (discovering the modules it needs),
``closure`` (gathering a function object's closure), ``data`` (embedding data files), ``template`` (the
loader and the rendered text), ``validation`` (running ``kaggle_check.py`` in the clean interpreter),
``build`` (the whole build).
"""

from building.build import DEFAULT_OUT, BuildReport, build, build_text
from building.errors import BuildError, InputError, ValidationError
from building.modules import ANY_EXTERNAL, ROOT, Project
from building.targets import split_function

__all__ = ["ANY_EXTERNAL", "DEFAULT_OUT", "ROOT", "BuildError", "BuildReport", "InputError", "Project",
           "ValidationError", "build", "build_text", "split_function"]
