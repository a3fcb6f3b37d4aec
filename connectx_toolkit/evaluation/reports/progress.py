"""Progress of a long run, drawn as the place it is shown can take it.

- In a notebook kernel (the Python API, ``evaluation.api``): ``tqdm.auto``'s bar, a widget where
  ipywidgets is installed, else tqdm's text bar on the cell's stderr.
- On a terminal that can redraw a line: tqdm's live bar on stderr.
- On a terminal that cannot: a notebook's ``!`` command (ipykernel runs it on a pseudo-terminal, but the
  notebook keeps every redraw of a bar as an output of its own: a ``-n 200`` run left 117 of them), a
  ``TERM=dumb`` terminal, a hosted notebook: a few plain lines, one per quarter of the run.
- Anywhere else (a pipe, a file, CI): nothing.

Short runs stay silent: nothing is shown before ``delay`` seconds (by default 3 s on a terminal, 1 s in a
notebook, where a silent cell already leaves the user wondering).
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from typing import Any, TextIO

__all__ = ["PlainProgress", "can_redraw", "end_early", "in_notebook_kernel", "progress_bar", "under_notebook"]

QUARTERS = (0.25, 0.5, 0.75, 1.0)
TERMINAL_DELAY = 3.0  # seconds before anything is shown
NOTEBOOK_DELAY = 1.0


def in_notebook_kernel() -> bool:
    """Does this process run a Jupyter kernel (Jupyter, JupyterLab, VS Code, Colab, Kaggle)?"""
    if "ipykernel" not in sys.modules:
        return False
    shell = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    return shell is not None and hasattr(shell, "kernel")


def under_notebook(environ: Any = None) -> bool:
    """Was this process started from a notebook (a ``!`` command), or does it run on a hosted one?

    A Jupyter kernel's environment, which its ``!`` commands inherit: ``JPY_PARENT_PID`` (set by
    jupyter_client when it starts a kernel) or ipykernel's own ``TERM=xterm-color`` with ``PAGER=cat``;
    Kaggle's and Colab's kernels say where they are.
    """
    environ = os.environ if environ is None else environ
    return ("JPY_PARENT_PID" in environ or (environ.get("TERM") == "xterm-color" and environ.get("PAGER") == "cat")
            or "KAGGLE_KERNEL_RUN_TYPE" in environ or "COLAB_RELEASE_TAG" in environ)


def can_redraw(stream: TextIO, environ: Any = None) -> bool:
    """Can a bar redraw itself in place on ``stream``: a terminal, not a dumb one, not a notebook's?"""
    environ = os.environ if environ is None else environ
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):  # closed, or not a real stream
        return False
    return terminal and environ.get("TERM") != "dumb" and not under_notebook(environ)


class PlainProgress:
    """tqdm's calls (``update``, ``set_postfix_str``, ``set_description``, ``close``), shown as at most one
    plain line per quarter of the run, none before ``delay`` seconds."""

    def __init__(self, total: int, *, initial: int = 0, unit: str = "game", desc: str | None = None,
                 delay: float = 3.0, file: TextIO | None = None) -> None:
        self.total = total
        self.n = initial
        self.unit = unit
        self.desc = desc
        self.delay = delay
        self.file = file
        self.postfix = ""
        self.started = time.monotonic()
        self._shown = 0  # quarters already said
        self._said_at: int | None = None  # the count the last line gave

    def update(self, n: int = 1) -> None:
        self.n += n
        reached = sum(self.n >= quarter * self.total for quarter in QUARTERS) if self.total else 0
        if reached > self._shown and time.monotonic() - self.started >= self.delay:
            self._shown = reached
            self._say()

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc

    def close(self) -> None:
        if self._said_at is not None and self._said_at != self.n:  # said something: say how it ended
            self._shown = len(QUARTERS)
            self._say()

    def _say(self) -> None:
        self._said_at = self.n
        elapsed = time.monotonic() - self.started
        share = f" ({self.n / self.total:.0%})" if self.total else ""
        head = f"{self.desc}: " if self.desc else ""
        tail = f"; {self.postfix}" if self.postfix else ""
        stream = self.file or sys.stderr
        print(f"{head}{self.n}/{self.total} {self.unit}s{share}, {elapsed:.0f} s{tail}", file=stream, flush=True)


def progress_bar(total: int, *, initial: int = 0, unit: str = "game", desc: str | None = None,
                 delay: float | None = None) -> Any:
    """A bar for ``total`` steps (tqdm's interface), drawn as the module docstring says, or None."""
    if in_notebook_kernel():
        return _notebook_bar(total, initial, unit, desc, NOTEBOOK_DELAY if delay is None else delay)
    delay = TERMINAL_DELAY if delay is None else delay
    if can_redraw(sys.stderr):
        from tqdm import tqdm

        tqdm.monitor_interval = 0  # no monitor thread: worker processes are forked while the bar runs
        return tqdm(total=total, initial=initial, file=sys.stderr, delay=delay, unit=unit, desc=desc,
                    dynamic_ncols=True)
    if _is_terminal(sys.stderr):  # a terminal that cannot redraw (a notebook's ``!``, TERM=dumb)
        return PlainProgress(total, initial=initial, unit=unit, desc=desc, delay=delay)
    return None


def end_early(bar: Any) -> None:
    """A run that ended before its most steps by design (a test decided, a check failed): its bar ends full,
    not as an interrupted one (tqdm's widget paints a bar left short red)."""
    if bar is None or not bar.total or bar.n >= bar.total:
        return
    container = getattr(bar, "container", None)  # tqdm.notebook's widget: its progress bar holds its own max
    if container is not None:
        container.children[1].max = bar.n
    bar.total = bar.n


def _notebook_bar(total: int, initial: int, unit: str, desc: str | None, delay: float) -> Any:
    import tqdm.std

    tqdm.std.tqdm.monitor_interval = 0  # the widget bar is a subclass: no thread while workers are forked
    with warnings.catch_warnings():  # tqdm.auto's "notebook mode" and "ipywidgets missing" notices
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm as auto

    # disable=False: the cell's stderr is no terminal, yet a frontend redraws tqdm's text bar (no ipywidgets)
    return auto(total=total, initial=initial, delay=delay, unit=unit, desc=desc, disable=False,
                mininterval=0.5, file=sys.stderr)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
