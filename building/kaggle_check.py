"""Kaggle's checks on one submission file, run in a clean interpreter.

Run as ``python -I building/kaggle_check.py SUBMISSION REPORT`` with an empty working directory:
``-I`` keeps the script's directory off ``sys.path`` and ``forget_editable_installs()`` drops the checkout
that an editable install (run.sh's ``pip install -e .``) puts there, so the file sees what it sees on
Kaggle (the standard library, numpy and kaggle_environments, nothing next to it). The script

1. confirms the project is not importable (``import agents`` must fail);
2. loads the file with ``kaggle_environments.agent.get_last_callable`` — Kaggle's own loader — and times it;
3. plays Kaggle's validation episode (the file against itself) and one game against each built-in agent,
   through ``env.run`` with the file's path, exactly as Kaggle runs a submission;
4. records every file the submission tries to open outside the Python installation (``reads``): on
   Kaggle nothing beside the file exists, so such a read is data the build did not embed;
5. writes a JSON report to REPORT (not stdout: the loader echoes whatever the file prints).

This file depends on nothing in the project; ``building.validation`` runs it and reads the report.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import re
import site
import sys
import sysconfig
import time
import traceback
from typing import Any

# (opponent, seats of the submission) in the order they are played; seat 0 moves first.
GAMES = (("itself", (0, 1)), ("random", (0,)), ("negamax", (1,)))
FAILED = ("ERROR", "INVALID", "TIMEOUT")
STDERR_TAIL = 600  # characters of an agent's stderr quoted in a failure reason


def forget_editable_installs() -> None:
    """Undo what editable installs (``pip install -e``) add at start-up: Kaggle's interpreter has no checkout.

    ``-I`` does not keep them out, since ``site`` runs the environment's ``.pth`` files. An editable install
    is either a ``.pth`` line naming a directory outside the environment (setuptools with this project's
    pyproject.toml, and most other build tools) or setuptools' import hook, a module named
    ``__editable__...``. Both are dropped here, before anything is imported through them.
    """
    site_dirs = [os.path.realpath(directory) for directory in site.getsitepackages()]
    added = set()
    for site_dir in site_dirs:
        for pth in sorted(glob.glob(os.path.join(site_dir, "*.pth"))):
            with open(pth, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    line = line.strip()
                    if not line or line.startswith(("#", "import ", "import\t")):
                        continue
                    directory = os.path.realpath(os.path.join(site_dir, line))
                    if not any(directory == d or directory.startswith(d + os.sep) for d in site_dirs):
                        added.add(directory)

    def editable(hook: object) -> bool:
        return str(getattr(hook, "__module__", "")).startswith("__editable__")

    # setuptools' hook also puts a placeholder entry "__editable__.<project>.finder.__path_hook__" on sys.path
    sys.path[:] = [entry for entry in sys.path
                   if os.path.realpath(entry) not in added and not entry.startswith("__editable__")]
    sys.meta_path[:] = [finder for finder in sys.meta_path if not editable(finder)]
    sys.path_hooks[:] = [hook for hook in sys.path_hooks if not editable(hook)]
    sys.path_importer_cache.clear()


def load(path: str) -> dict[str, Any]:
    """Load the file as Kaggle does; report the time and the name of the callable Kaggle would call."""
    from kaggle_environments.agent import get_last_callable

    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    start = time.perf_counter()
    try:
        entry = get_last_callable(text, path=path)
    except Exception as error:  # Kaggle's loader wraps every failure in InvalidArgument
        cause = error.__context__
        if isinstance(cause, Exception) and not isinstance(cause, SyntaxError):  # the agent's own line first
            text = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
            return {"ok": False, "reason": f"Kaggle's loader failed: {summarize_traceback(text)}"}
        return {"ok": False, "reason": f"Kaggle's loader failed: {error}"}
    seconds = time.perf_counter() - start
    return {"ok": True, "load_s": seconds, "last_callable": getattr(entry, "__name__", repr(entry))}


def outcome(status: str, reward: Any, self_play: bool = False) -> str:
    """The result for the player first in the game's seats; in self-play, which copy won."""
    if status != "DONE":
        return status.lower()
    names = {1: "1 won", -1: "2 won", 0: "draw"} if self_play else {1: "win", -1: "loss", 0: "draw"}
    return names.get(reward, f"reward {reward}")


def play(path: str, opponent: str, seats: tuple[int, ...]) -> dict[str, Any]:
    """One game on Kaggle's referee; the submission sits in ``seats`` (both for the validation episode)."""
    from kaggle_environments import make

    env = make("connectx", debug=False)
    nones: list[int] = []
    players = [watch_none(path, nones) if seat in seats else opponent for seat in range(2)]
    env.run(players)
    final = env.steps[-1]
    seat = seats[0]
    moves = sum(1 for step in env.steps[:-1] for s in seats if step[s].status == "ACTIVE")
    durations = [
        log[s]["duration"]
        for log in env.logs
        for s in seats
        if s < len(log) and isinstance(log[s], dict) and "duration" in log[s]
    ]
    game = {
        "opponent": opponent,
        "seat": "1+2" if len(seats) == 2 else str(seat + 1),
        "result": outcome(final[seat].status, final[seat].reward, self_play=len(seats) == 2),
        "moves": moves,
        "plies": len(env.steps) - 1,
        "max_move_s": max(durations, default=0.0),
        "failure": None,
    }
    for s in seats:
        if final[s].status in FAILED:
            game["failure"] = describe_failure(env, s)
            break
    else:
        if any(final[s].status != "DONE" for s in range(2)):
            statuses = [final[s].status for s in range(2)]
            game["failure"] = f"the episode did not finish (statuses {statuses})"
    if nones:  # the cause of whatever followed (column 0 fills up: INVALID)
        problem = f"returned None at ply {nones[0]}: Kaggle plays column 0; return an int"
        game["failure"] = f"{problem} (then {game['failure']})" if game["failure"] else problem
    return game


def watch_none(path: str, nones: list[int]) -> Any:
    """The file as Kaggle's ``build_agent`` makes it from its path (same loader, same lazy load inside
    move 1), noting the plies at which it returned None: Kaggle plays column 0 for it, silently."""
    from kaggle_environments.agent import build_agent

    inner, _ = build_agent(path, {}, "connectx")

    def agent(observation, configuration):
        action = inner(observation, configuration)
        if action is None:
            nones.append(int(observation.step))
        return action

    return agent


def describe_failure(env: Any, seat: int) -> str:
    """Why the submission in ``seat`` lost by rule: status, offending action and its stderr."""
    final = env.steps[-1][seat]
    reason = f"{final.status} as player {seat + 1} at ply {len(env.steps) - 1}"
    if final.status == "INVALID":
        reason += f" (returned {final.action!r})"
    stderr = ""
    for log in reversed(env.logs):
        if seat < len(log) and isinstance(log[seat], dict) and log[seat].get("stderr", "").strip():
            stderr = log[seat]["stderr"].strip()
            break
    if stderr:
        reason += ": " + summarize_traceback(stderr)
    return reason


FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<name>.+)')


def library_name(filename: str) -> str | None:
    """``json/decoder.py`` for a file of the standard library, site-packages or kaggle_environments; None
    for the agent's own code."""
    paths = sysconfig.get_paths()
    roots = sorted({os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib")},
                   key=len, reverse=True)
    real = filename if filename.startswith("<") else os.path.realpath(filename)
    for root in roots:
        if real.startswith(root + os.sep):
            return os.path.relpath(real, root)
    if filename.startswith("<frozen "):
        return filename.strip("<>").split(" ", 1)[1]
    return None


def summarize_traceback(stderr: str) -> str:
    """One line: the agent's own innermost frame first, the exception, then the library frame it was raised
    in (``lib_error.py:5 in agent: JSONDecodeError: ... (raised in json/decoder.py:355)``)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    frames = [match for line in lines if (match := FRAME.match(line))]
    summary = re.sub(r"^(?:\w+\.)+(\w+:)", r"\1", lines[-1][-STDERR_TAIL:])  # JSONDecodeError, not json.decoder.…
    if not frames:
        return summary
    own = [frame for frame in frames if library_name(frame["file"]) is None]
    text = summary
    if own:
        text = f"{os.path.basename(own[-1]['file'])}:{own[-1]['line']} in {own[-1]['name']}: {summary}"
    if not own or frames[-1] is not own[-1]:
        last = frames[-1]
        text += f" (raised in {library_name(last['file']) or os.path.basename(last['file'])}:{last['line']})"
    return text


def watch_reads(submission: str) -> list[str]:
    """Start recording files opened outside the installation (an audit hook); returns the live list."""
    roots = (sys.prefix, sys.base_prefix, sys.exec_prefix, *sysconfig.get_paths().values())
    installed = {os.path.realpath(p) for p in roots}
    system = ("/proc/", "/dev/", "/sys/", "/etc/", "/usr/share/zoneinfo/")
    own = os.path.realpath(submission)
    # A bundle unpacked where Kaggle unpacks one: every file in it is the submission's own.
    bundle = os.path.dirname(own) if os.path.dirname(own) == "/kaggle_simulations/agent" else None
    checker = os.path.realpath(__file__)  # read back for a traceback through ``watch_none``'s frame
    reads: list[str] = []

    def hook(event: str, args: tuple) -> None:
        if event != "open" or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        if isinstance(args[1], str) and not any(c in args[1] for c in "r+"):
            return  # writing: not data that should have been embedded
        name = os.fsdecode(args[0])
        real = os.path.realpath(name)
        if real in (own, checker) or (bundle and real.startswith(bundle + os.sep)) or real.startswith(system) \
                or any(real.startswith(p + os.sep) for p in installed):
            return
        if name not in reads:
            reads.append(name)

    sys.addaudithook(hook)
    return reads


def check(path: str) -> dict[str, Any]:
    forget_editable_installs()
    if importlib.util.find_spec("agents") is not None:
        return {"ok": False, "reason": "the project is importable in the check interpreter (not a clean room)"}
    import kaggle_environments

    make_env_once()
    reads = watch_reads(path)
    report = load(path)
    report["reads"] = reads  # the live list: it grows while the games run
    report["kaggle_environments"] = getattr(kaggle_environments, "__version__", "?")
    report["python"] = sys.version.split()[0]
    report["numpy"] = numpy_version()
    if not report["ok"]:
        return report
    report["games"] = []
    for opponent, seats in GAMES:
        game = play(path, opponent, seats)
        report["games"].append(game)
        if game["failure"]:
            report["ok"] = False
            report["reason"] = f"game against {opponent}: {game['failure']}"
            break
    report["reads"] = list(report["reads"])
    return report


def numpy_version() -> str:
    """numpy's version in this interpreter (some public agents run only under numpy 1)."""
    try:
        import numpy
    except ImportError:
        return "not installed"
    return numpy.__version__


def make_env_once() -> None:
    """Let kaggle_environments read its own files (specifications, agents) before reads are watched."""
    from kaggle_environments import make

    make("connectx", debug=False).run(["random", "random"])


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -I kaggle_check.py SUBMISSION REPORT", file=sys.stderr)
        return 2
    path, report_path = argv
    report = check(path)
    with open(report_path, "w", encoding="utf-8") as handle:
        json.dump(report, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
