"""The bubblewrap command line of a sandbox, the check that one can be built, and the unsandboxed notice."""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Iterable, Sequence, TextIO

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # connectx_toolkit/
PROJECT_ROOT = os.path.dirname(PACKAGE_DIR)  # where connectx_toolkit is imported from: the checkout, or site-packages
CONFINE_SCRIPT = os.path.join(PACKAGE_DIR, "sandbox", "confine.py")
DEFAULT_TMP_MB = 64  # the private /tmp: enough for an agent's scratch files, small enough to fill harmlessly
SHM_MB = 64  # the private /dev/shm's size
DEFAULT_MAX_PROCESSES = 16  # processes *and threads* of the sandbox's uid (the game's own worker is one)
PROBE_TIMEOUT_S = 60.0
# Unused uids for sandboxes started by root: one per sandbox, so that each one's process count is its own.
_UID_BASE, _UID_SPAN = 2_000_000_000, 100_000_000
_SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# Passed through when set; the BLAS thread counts default to 1 (threads count against the process cap).
_PASSED_ENV = ("PYTHONHASHSEED", "LANG", "LC_ALL", "TZ")
_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
_INSTALL_HINT = "apt-get install bubblewrap (Debian/Ubuntu) or dnf install bubblewrap (Fedora)"

_uids = itertools.count()


class SandboxUnavailable(RuntimeError):
    """No sandbox can be built here; the message is one line saying why and what to do."""


@dataclass(frozen=True)
class Sandbox:
    """What one sandboxed command may see beyond the system, the Python environment and the project.

    ``files`` are shown read-only at their own absolute paths (an agent's file, wherever it lies; they
    are copied in, so a file only its owner may read still loads after root's uid switch). ``writable``
    directories are bound read-write (the builder's report directory; under root they are handed to the
    sandbox's uid). ``tmp_mb`` sizes the private ``/tmp``; ``max_processes`` caps processes and threads.
    ``mounts`` are ``(folder, where)`` pairs: ``folder`` shown read-only at ``where`` inside (a Kaggle bundle
    unpacked at ``/kaggle_simulations/agent``); the folder must be readable by everyone.
    """

    files: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()
    mounts: tuple[tuple[str, str], ...] = ()
    tmp_mb: int = DEFAULT_TMP_MB
    max_processes: int = DEFAULT_MAX_PROCESSES

    def popen(self, argv: Sequence[str], *, cwd: str | None = None, pass_fds: Iterable[int] = (),
              **kwargs: Any) -> subprocess.Popen:
        """``subprocess.Popen(argv)`` inside the sandbox; ``cwd`` is a directory as seen inside."""
        command, fds = self._command(argv, cwd)
        try:
            return subprocess.Popen(command, pass_fds=(*pass_fds, *fds), **kwargs)
        finally:
            for fd in fds:
                os.close(fd)

    def run(self, argv: Sequence[str], *, timeout: float | None = None, capture_output: bool = False,
            text: bool = False, cwd: str | None = None, **kwargs: Any) -> subprocess.CompletedProcess:
        """``subprocess.run(argv)`` inside the sandbox (the same keywords)."""
        if capture_output:
            kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with self.popen(argv, cwd=cwd, text=text, **kwargs) as process:
            try:
                out, err = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()  # bwrap --die-with-parent takes everything inside down with it
                process.communicate()
                raise
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)

    def _command(self, argv: Sequence[str], cwd: str | None) -> tuple[list[str], list[int]]:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable(f"--sandbox needs bubblewrap (bwrap), which is not installed: {_INSTALL_HINT}")
        root = os.geteuid() == 0
        uid = _UID_BASE + (os.getpid() % 1000 * 100_000 + next(_uids) % 100_000) % _UID_SPAN if root else None
        command = [bwrap, "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid", "--unshare-ipc",
                   "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
        if root:  # no user namespace: confine.py switches to ``uid`` (see there why), then no capability is left
            command += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            command += ["--unshare-user"]
        command += ["--proc", "/proc", "--dev", "/dev", "--ro-bind", "/usr", "/usr"]
        for entry in _SYSTEM_DIRS:  # merged-/usr systems have symlinks here, older ones directories
            if os.path.islink(entry):
                command += ["--symlink", os.readlink(entry), entry]
            elif os.path.isdir(entry):
                command += ["--ro-bind", entry, entry]
        # The private /tmp comes first, so that a project or Python environment kept under /tmp (a fresh
        # clone, a CI checkout) is bound on top of it rather than hidden by it.
        command += ["--perms", "1777", "--size", str(self.tmp_mb * 1024 * 1024), "--tmpfs", "/tmp"]
        # a private /dev/shm, as a container has: multiprocessing's locks and queues (a Pool) live there
        command += ["--perms", "1777", "--size", str(SHM_MB * 1024 * 1024), "--tmpfs", "/dev/shm"]
        covered = ["/usr", "/proc", "/dev"]  # bound whole: whatever lies below them exists inside
        made: set[str] = set()  # directories made empty inside: only they exist, not what lies below
        for path, target in _readable_paths():
            command += _parents(target, covered, made) + ["--ro-bind", target, target]
            covered.append(target)
            if path != target:
                command += _parents(path, covered, made) + ["--symlink", target, path]
        for directory in self.writable:
            directory = os.path.abspath(directory)
            if uid is not None:  # the sandbox's uid owns it; bubblewrap (root without capabilities) must enter it
                os.chown(directory, uid, uid)
                os.chmod(directory, 0o755)
            command += _parents(directory, covered, made) + ["--bind", directory, directory]
        for folder, where in self.mounts:
            command += _parents(where, covered, made) + ["--ro-bind", os.path.abspath(folder), where]
            covered.append(where)
        fds = []
        try:
            for path in self.files:
                fds.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
                path = os.path.abspath(path)
                command += _parents(path, covered, made) + ["--perms", "0444", "--ro-bind-data", str(fds[-1]), path]
        except OSError:
            for fd in fds:
                os.close(fd)
            raise
        # bubblewrap's own root and /dev are RAM (tmpfs) of the size of half the machine: read-only, so that
        # the private /tmp is the one place (64 MB) an agent can write to, whoever runs it
        command += ["--remount-ro", "/dev", "--remount-ro", "/"]
        command += ["--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
                    "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "PYTHONPATH", PROJECT_ROOT,
                    "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
        for name in _PASSED_ENV:
            if name in os.environ:
                command += ["--setenv", name, os.environ[name]]
        for name in _THREAD_ENV:
            command += ["--setenv", name, os.environ.get(name, "1")]
        command += ["--chdir", os.path.abspath(cwd) if cwd else PROJECT_ROOT]
        confine = [sys.executable, "-I", CONFINE_SCRIPT, "--nproc", str(self.max_processes)]
        if uid is not None:
            confine += ["--uid", str(uid)]
        return command + ["--", *confine, "--", *argv], fds


def _parents(path: str, covered: list[str], made: set[str]) -> list[str]:
    """``--dir`` options for the ancestors of ``path`` that do not exist yet inside, made traversable (0755).

    ``covered`` lists what is bound already (its insides exist); ``made`` the directories made empty so
    far (they exist, what lies below them does not), to which this adds. The private /tmp is empty, so
    ancestors below it are made too. Without this bubblewrap makes them 0700, which the sandbox's uid
    cannot enter.
    """
    chain = []
    parent = os.path.dirname(path)
    while (parent not in ("/", "/tmp") and parent not in made
           and not any(parent == c or parent.startswith(c + "/") for c in covered)):
        chain.append(parent)
        parent = os.path.dirname(parent)
    options = []
    for directory in reversed(chain):
        options += ["--perms", "0755", "--dir", directory]
        made.add(directory)
    return options


def _bound_in_tmp() -> list[str]:
    """The names directly in the private /tmp that only lead to the project or the Python environment."""
    return sorted({path.split("/")[2] for pair in _readable_paths() for path in pair
                   if path.startswith("/tmp/") and len(path.split("/")) > 2})


def _readable_paths() -> list[tuple[str, str]]:
    """(path, real path) of the Python environment and the project, without nesting or repeats."""
    wanted = [PROJECT_ROOT, sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.realpath(sys.executable))]
    # installed packages outside the prefixes (user site, extra site dirs); not a script's own directory
    wanted += [entry for entry in sys.path if os.path.isabs(entry) and os.path.exists(entry)
               and (os.path.basename(entry) in ("site-packages", "dist-packages") or entry.endswith(".zip"))]
    pairs: dict[str, str] = {}
    for path in wanted:
        path = os.path.abspath(path)
        if path in ("/", "/usr") or path.startswith("/usr/"):
            continue  # /usr is bound whole; "/" would be everything
        pairs.setdefault(os.path.realpath(path), path)
    targets = sorted(pairs)
    kept = [t for t in targets if not any(t != o and t.startswith(o.rstrip("/") + "/") for o in targets)]
    result = [(t, t) for t in kept]
    links: list[str] = []
    # a symlinked path (e.g. a venv link in the project) also resolves; one inside another link (the
    # venv's site-packages below a linked venv) already does, and its parents could not be made
    for path, target in sorted((path, target) for target, path in pairs.items() if path != target):
        if not any(path == o or path.startswith(o.rstrip("/") + "/") for o in kept + links):
            result.append((path, target))
            links.append(path)
    return result


_PROBE = """
import os, resource, socket, sys
assert os.getuid() != 0, "still uid 0"
assert resource.getrlimit(resource.RLIMIT_NPROC)[0] == int(sys.argv[1]), "no process cap"
assert set(os.listdir("/tmp")) <= set(sys.argv[2:]) and os.environ["HOME"] == "/tmp", "no private empty /tmp"
names = [name for _, name in socket.if_nameindex()]
assert names == ["lo"], f"network interfaces visible: {names}"
print("ok")
"""


@functools.lru_cache(maxsize=1)
def require() -> None:
    """Raise ``SandboxUnavailable`` (one line: why, and what to install) unless a sandbox works here.

    Builds a real sandbox with this interpreter and checks, from inside, the uid switch, the process
    cap and the empty network namespace. Cached: one probe per process.
    """
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"--sandbox needs Linux namespaces (bubblewrap); this is {sys.platform}")
    sandbox = Sandbox()
    try:
        probe = sandbox.run([sys.executable, "-I", "-c", _PROBE, str(sandbox.max_processes), *_bound_in_tmp()],
                            capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SandboxUnavailable(f"--sandbox: a test sandbox did not start within {PROBE_TIMEOUT_S:g} s") from None
    except OSError as error:
        raise SandboxUnavailable(f"--sandbox: cannot start bubblewrap: {error}; {_INSTALL_HINT}") from None
    if probe.returncode != 0 or probe.stdout.strip() != "ok":
        lines = (probe.stderr or "").strip().splitlines() or ["no output"]
        reason = lines[-1]
        hint = ("user namespaces look disabled: enable them (sysctl kernel.unprivileged_userns_clone=1, "
                "user.max_user_namespaces > 0; on Ubuntu allow bwrap in AppArmor) or run as root"
                if reason.startswith("bwrap:") else "this environment cannot run a sandboxed Python")
        raise SandboxUnavailable(f"--sandbox: bubblewrap cannot build the sandbox here ({reason}); {hint}")


def outside_warning(paths: Iterable[str], program: str, advice: str = "add --sandbox") -> str | None:
    """The notice for agent files outside the project run without a sandbox, or None if there are none.

    ``advice`` says how to ask for the sandbox (``--sandbox`` on the command line, ``sandbox=True`` in Python).
    """
    found = [_agent_path(path) for path in paths]
    outside = [path for path in found if path and not _inside(path, PROJECT_ROOT)]
    if not outside:
        return None
    several = len(outside) > 1
    return (f"{program}: note: {', '.join(outside)} {'lie' if several else 'lies'} outside this project and "
            f"{'run' if several else 'runs'} with your full rights (your files, ~/.kaggle/kaggle.json, the network); "
            f"{advice} to run {'them' if several else 'it'} isolated")


_outside_said = False  # the notice is said once per process


def say_outside_note(paths: Iterable[str], program: str, advice: str = "add --sandbox",
                     file: TextIO | None = None) -> bool:
    """Print :func:`outside_warning`'s notice on ``file`` (stderr), once per process: a notebook that calls
    the API cell after cell is told once. Returns whether it printed."""
    global _outside_said
    note = None if _outside_said else outside_warning(paths, program, advice)
    if note is None:
        return False
    print(note, file=file or sys.stderr, flush=True)
    _outside_said = True
    return True


def _agent_path(spec: str) -> str | None:
    """The file or folder an agent argument names (``my_bot.py``, ``bots/mine``, ``my_bot.py:act``), or None."""
    for candidate in (spec, spec.rpartition(":")[0]):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def _inside(path: str, directory: str) -> bool:
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory.rstrip("/") + "/")
