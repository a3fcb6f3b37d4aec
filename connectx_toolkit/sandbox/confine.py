"""The first program inside the sandbox: give up what is left of root, cap processes, then exec.

    python -I sandbox/confine.py [--uid N] --nproc M -- COMMAND...

Run by path with ``-I`` and the standard library only, so that nothing of the project runs before the
process is confined.

Why a uid at all: the kernel never applies ``RLIMIT_NPROC`` to uid 0 (``copy_process`` exempts the
global root user), and an unprivileged user namespace made by root still maps to uid 0 outside. So when
the evaluator runs as root, bubblewrap runs as root *without* a user namespace, keeps only
``CAP_SETUID``/``CAP_SETGID``, and this program switches to ``--uid`` — an unused uid picked per
sandbox, with no account and no supplementary groups — which clears every capability. The process
count is then per uid and the cap is real. For an ordinary user, bubblewrap makes an unprivileged user
namespace and Linux (>= 5.14) counts ``RLIMIT_NPROC`` per user namespace, so the cap holds per sandbox
too. Either way ``PR_SET_NO_NEW_PRIVS`` is set: no set-uid program can give anything back.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys

PR_SET_NO_NEW_PRIVS = 38


def confine(uid: int | None, max_processes: int) -> None:
    """Drop to ``uid`` (when root), forbid privilege gains, cap the processes this uid may run."""
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid or os.getgid() != uid:
            raise SystemExit(f"sandbox: could not switch to uid {uid}")
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SystemExit(f"sandbox: PR_SET_NO_NEW_PRIVS failed: {os.strerror(ctypes.get_errno())}")
    resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))


def main(argv: list[str]) -> None:
    uid, max_processes = None, None
    while argv and argv[0] != "--":
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--uid":
            uid = int(value)
        elif flag == "--nproc":
            max_processes = int(value)
        else:
            raise SystemExit(f"sandbox: unknown option {flag}")
    if max_processes is None or len(argv) < 2:
        raise SystemExit("usage: confine.py [--uid N] --nproc M -- COMMAND...")
    confine(uid, max_processes)
    os.execv(argv[1], argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
