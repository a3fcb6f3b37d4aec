"""Measuring strength exactly: accuracy against perfect play, how often an agent keeps the outcome class (win,
draw, loss) that perfect play keeps, on labelled positions (``measuring.benchmark``), asked as games ask them
(``measuring.play``). Its face is ``connectx accuracy`` and :func:`connectx_toolkit.accuracy` (the package is not
called ``accuracy``: a submodule of that name would replace the function at the package's top the moment it is
imported, as ``open_board`` is not called ``board``)."""
