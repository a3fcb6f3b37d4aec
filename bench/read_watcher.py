#!/usr/bin/env python3
"""What the validation's read watcher costs a submission: microseconds per ``open()`` with it and without.

    python -I bench/read_watcher.py [--opens 20000] [--check building/kaggle_check.py]

``building/kaggle_check.py`` watches every file a submission opens while Kaggle's checks run (an audit
hook). This times ``open()`` + ``read()`` before and after the watcher starts, in one interpreter: of
distinct installed files, each opened once (the standard library's sources: what imports read), and, again
and again, of one installed file and of one file in the temp folder (an agent's own data or cache).
``--check`` points at another copy of the checker to compare versions.
"""

from __future__ import annotations

import argparse
import glob
import os
import runpy
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def per_open_us(path: str, opens: int) -> float:
    start = time.perf_counter()
    for _ in range(opens):
        with open(path, "rb") as handle:
            handle.read()
    return (time.perf_counter() - start) / opens * 1e6


def each_once_us(paths: list[str]) -> float:
    start = time.perf_counter()
    for path in paths:
        with open(path, "rb") as handle:
            handle.read()
    return (time.perf_counter() - start) / len(paths) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opens", type=int, default=20_000)
    parser.add_argument("--check", default=os.path.join(ROOT, "connectx_toolkit", "building", "kaggle_check.py"))
    args = parser.parse_args()
    check = runpy.run_path(args.check)
    with tempfile.NamedTemporaryFile(delete=False) as scratch:
        scratch.write(b"x")
    distinct = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "**", "*.py"), recursive=True))[:2000]
    try:
        files = {"installed file": os.__file__, "temp-folder file": scratch.name}
        each_once_us(distinct)  # the page cache, warm for both runs
        first = each_once_us(distinct)
        before = {name: per_open_us(path, args.opens) for name, path in files.items()}
        if "ReadWatcher" in check:
            check["ReadWatcher"]("/nonexistent/submission.py").start()
        else:  # the checker before the watcher became a class
            check["watch_reads"]("/nonexistent/submission.py")
        first_watched = each_once_us(distinct)
        after = {name: per_open_us(path, args.opens) for name, path in files.items()}
    finally:
        os.remove(scratch.name)
    print(f"{len(distinct):,} installed files, each opened once: {first:6.1f} us without the watcher, "
          f"{first_watched:6.1f} us with it")
    for name in files:
        print(f"one {name}, {args.opens:,} times: {before[name]:6.1f} us without the watcher, {after[name]:6.1f} us with it")


if __name__ == "__main__":
    main()
