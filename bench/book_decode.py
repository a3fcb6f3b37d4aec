#!/usr/bin/env python3
"""Size and decode time of the opening book: the shipped one and synthetic ones of chosen sizes.

    python bench/book_decode.py [--entries 100000 300000 1000000]

The synthetic books hold random 49-bit keys; the format scrambles keys before bucketing, so their
size and decode time are what a real book of that many entries costs. Figures only.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from connectx_toolkit.agents.core.resources import has_resource, load_resource
from connectx_toolkit.agents.solver_engine.opening_book import OpeningBook, encode_book


def decode_seconds(data: bytes, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        OpeningBook(data)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, nargs="*", default=[100_000, 300_000, 1_000_000])
    args = parser.parse_args()
    print(f"{'book':<22}{'entries':>10}{'bytes':>12}{'bytes/entry':>13}{'decode s':>10}")
    if has_resource("connect4_book.bin"):
        data = load_resource("connect4_book.bin")
        book = OpeningBook(data)
        print(f"{'shipped ' + str(book.metadata.get('depth')) + '-ply':<22}{len(book):>10}{len(data):>12}"
              f"{len(data) / max(1, len(book)):>13.2f}{decode_seconds(data):>10.3f}")
    rng = random.Random(0)
    for n in args.entries:
        entries = {rng.getrandbits(49): rng.randrange(7) for _ in range(n)}
        data = encode_book(entries, {"depth": 0, "all_plies": 0})
        print(f"{'synthetic':<22}{len(entries):>10}{len(data):>12}{len(data) / len(entries):>13.2f}"
              f"{decode_seconds(data):>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
