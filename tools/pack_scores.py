"""Pack the opening book's exact scores into ``connectx_toolkit/analysis/data/book_scores.bin``.

``tools/make_book.py`` keeps every position it solved in ``tools/book_checkpoint.txt`` (canonical key, best
move, exact score); the packed file holds the keys and scores (``analysis/score_book.py``), which
``connectx solve`` reads. The output depends only on the checkpoint:

    python tools/pack_scores.py [CHECKPOINT [OUT]]
"""

from __future__ import annotations

import os
import sys

from connectx_toolkit.analysis.score_book import DEFAULT_SCORE_BOOK, encode_score_book

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CHECKPOINT = os.path.join(ROOT, "tools", "book_checkpoint.txt")


def read_scores(path: str) -> dict[int, int]:
    """``{canonical key: score}`` of the checkpoint; a line cut short by a kill is ignored."""
    scores: dict[int, int] = {}
    with open(path) as handle:
        for line in handle:
            parts = line.split()
            if line.endswith("\n") and len(parts) == 3:
                scores[int(parts[0])] = int(parts[2])
    return scores


def main(argv: list[str]) -> int:
    if len(argv) > 2 or any(arg.startswith("-") for arg in argv):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    checkpoint = argv[0] if argv else DEFAULT_CHECKPOINT
    out = argv[1] if len(argv) > 1 else DEFAULT_SCORE_BOOK
    scores = read_scores(checkpoint)
    data = encode_score_book(scores, {"source": "tools/book_checkpoint.txt", "format": 1})
    temporary = out + ".tmp"
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.replace(temporary, out)
    print(f"{out}: {len(scores)} positions, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
