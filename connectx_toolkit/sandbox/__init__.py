"""Run code you did not write with no more rights than a game needs: a bubblewrap sandbox.

``Sandbox(...).popen(argv)`` and ``.run(argv)`` (as ``subprocess``'s) run a command inside a ``bwrap`` sandbox with

- no network at all (a new, empty network namespace: not even the host's 127.0.0.1);
- a root file system that shows only what the run needs, read-only: the system's ``/usr`` (the
  interpreter's shared libraries), the Python environment (prefixes and ``sys.path``), the project,
  and the files named in ``files`` (an agent's own file) — no home directory, no ``/etc``, no ``/root``;
- a private, empty, size-limited ``/tmp`` (also ``$HOME`` inside), gone when the sandbox ends;
- its own process, IPC and host-name namespaces, a new session (no terminal injection), death with
  its parent, and a cap on processes (``RLIMIT_NPROC``, see ``sandbox.confine`` for how this is made to
  hold for root too).

``require()`` checks up front that a sandbox can be built here and raises ``SandboxUnavailable`` with
one line saying why and what to install. ``outside_warning(paths)`` is the one-line notice printed when
an agent file from outside the project runs without a sandbox; ``say_outside_note`` prints it once per process.

This package depends on nothing else in the project: the evaluator and the builder both use it.
"""

from connectx_toolkit.sandbox.bubblewrap import (
    DEFAULT_MAX_PROCESSES,
    DEFAULT_TMP_MB,
    PROJECT_ROOT,
    Sandbox,
    SandboxUnavailable,
    outside_warning,
    require,
    say_outside_note,
)

__all__ = [
    "DEFAULT_MAX_PROCESSES",
    "DEFAULT_TMP_MB",
    "PROJECT_ROOT",
    "Sandbox",
    "SandboxUnavailable",
    "outside_warning",
    "require",
    "say_outside_note",
]
