"""Print the exact score of Connect 4 positions (6x7, four in a row), a filter in the manner of Pons' solver.

    connectx solve 4453                      # one position: "4453 SCORE"
    connectx solve --all ""                  # every column of the empty board: " -2 -1 0 1 0 -1 -2"
    connectx solve < positions.txt           # one position a line, each answered as it is read
    connectx solve --json --budget 5 < positions.txt

Input: positions as move strings, the columns played from the empty board, one digit 1-7 each (left to
right), first player first: ``4453``. They come as arguments, or, with none, from stdin, one a line;
each line is answered (and flushed) as soon as it is read, so the command can sit at the end of a pipe.
Whitespace around a move string is ignored; an empty line is the empty board.

Scores are on Pons' scale for the player to move: 0 a draw; a win scores ``(43 - n) // 2`` where ``n`` is
the number of stones on the board before the winning one (the sooner the win, the higher); a loss is the
negative of the opponent's win. The score of a column is the score of the position after playing it, for
the player who played it. A position's score is its best column's.

Output, one line for every line read (or argument), in order:

- text: ``MOVES SCORE``; with ``--all``, ``MOVES S1 S2 S3 S4 S5 S6 S7``, one score per column, ``-`` for a
  full column. A score not settled within ``--budget`` is printed as the bounds proven, ``LOW..HIGH``
  (``1..18``: a win, how fast unknown). A line that is no position to solve prints ``MOVES error: REASON``:
  a character that is not a column 1-7, a move into a full column, a move after the game was won, or a
  finished game (won, or a full board). The next line is answered as usual.
- ``--json``: JSON Lines, one object a line. ``position``: the move string as read (stripped);
  ``score``: the exact score, or null when the budget ran out first; ``bounds``: ``[low, high]``, the
  proven bounds (``low == high == score`` when exact); with ``--all``, ``scores``: seven entries, the
  exact score of each column or null (a full column, or not settled), and ``column_bounds``: seven
  ``[low, high]`` or null for a full column. A line that is no position to solve gives
  ``{"position": ..., "error": REASON}`` instead.

Exit status: 0 when every line got its exact score; 1 when some line printed an error or was not
settled within the budget (the other lines are answered all the same); 2 for bad usage (one line on
stderr, nothing solved); 130 when interrupted (Ctrl-C).

Where the scores come from, and how long they take, is in :mod:`connectx_toolkit.analysis.scores`: the
opening book's scores answer its lines at once; other positions are searched by the compiled solver
(numba) when installed, with no time limit unless ``--budget`` is given. Early positions off the book's
lines (before about ply 10) can take minutes each; ``--budget`` then prints their proven bounds. Without
``--budget``, such a search is announced on stderr first (``connectx solve: note: '12': searching ...``);
stderr carries nothing else but usage errors.

>>> import io
>>> out = io.StringIO()
>>> main(["--all", "--analysis-cache", "none", "", "4444", "44444447"], out)
1
>>> print(out.getvalue(), end="")
 -2 -1 0 1 0 -1 -2
4444 -2 -2 -2 1 -2 -2 -2
44444447 error: move 7 is column 4, which is full
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, Callable, Iterator, Sequence

from connectx_toolkit.analysis.cache import default_cache_path
from connectx_toolkit.analysis.positions import PositionError, parse_moves
from connectx_toolkit.analysis.scores import PositionScorer, Solved, SolveSettings
from connectx_toolkit.analysis.values import Value
from connectx_toolkit.cli.options import Parser, analysis_budget
from connectx_toolkit.errors import UsageError

__all__ = ["EXIT_OK", "EXIT_UNANSWERED", "configure", "main", "run"]

PROGRAM = "connectx solve"
HELP = "the exact score of 6x7 positions given as move strings (a filter, as Pons' solver)"
EXIT_OK = 0  # every line got its exact score
EXIT_UNANSWERED = 1  # some line was no position to solve, or was not settled within the budget
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
FULL_COLUMN = "-"


def _only_standard(name: str, standard: int) -> Callable[[str], int]:
    """An argparse type that takes ``standard`` only: asked for another board, one clear line."""
    def check(text: str) -> int:
        if text.strip() != str(standard):
            raise argparse.ArgumentTypeError(
                f"{text!r}: exact scores exist only for 6x7, four in a row (connectx solve solves no other board)")
        return standard
    check.__name__ = name
    return check


def configure(parser: argparse.ArgumentParser) -> None:
    """Add ``connectx solve``'s arguments to ``parser``."""
    parser.add_argument("moves", nargs="*", metavar="MOVES",
                        help="positions as move strings (columns 1-7 from the empty board, e.g. 4453; '' is the "
                             "empty board); none: read them from stdin, one a line")
    parser.add_argument("-a", "--all", action="store_true",
                        help="print the score of every column (- for a full one) instead of the position's")
    parser.add_argument("--json", action="store_true", help="one JSON object a line (JSON Lines)")
    parser.add_argument("--budget", type=analysis_budget, default=None, metavar="SECONDS",
                        help="CPU seconds of search per searched position (with --all, per column); a score not "
                             "settled in time prints its proven bounds LOW..HIGH (default: no limit, exact "
                             "scores however long they take)")
    parser.add_argument("--analysis-cache", metavar="PATH", default=None,
                        help=f"SQLite file of solved positions, shared with the analysis (default "
                             f"{default_cache_path()}; 'none': no cache)")
    parser.add_argument("--no-compiled-solver", action="store_true",
                        help="search with the agent's Python solver only, even when numba is installed (much slower)")
    parser.add_argument("--no-outcome-table", action="store_true",
                        help="do not bound early positions by the outcome tables (they matter only with --budget)")
    for flag, standard in (("--rows", 6), ("--columns", 7), ("--inarow", 4)):  # the one board there is
        parser.add_argument(flag, type=_only_standard(flag, standard), default=standard, help=argparse.SUPPRESS)


def build_parser() -> Parser:
    parser = Parser(prog=PROGRAM, description=(__doc__ or "").split("\n\n")[0],
                    epilog="Output, one line per position in order: MOVES SCORE (with --all: MOVES S1 ... S7, - for a "
                           "full column); LOW..HIGH are the bounds proven when --budget ran out; MOVES error: REASON "
                           "for an illegal or finished position. --json: {position, score, bounds[, scores, "
                           "column_bounds]} or {position, error}. Scores are on Pons' scale for the player to move: "
                           "0 a draw, > 0 a win (the sooner, the higher), < 0 a loss. Exit status: 0 every line got "
                           "its exact score; 1 some line printed an error or bounds; 2 bad usage.")
    configure(parser)
    return parser


def settings_of(args: argparse.Namespace) -> SolveSettings:
    cache = args.analysis_cache or default_cache_path()
    try:
        return SolveSettings(budget=args.budget, compiled=not args.no_compiled_solver,
                             cache_path=None if cache == "none" else cache, outcome_table=not args.no_outcome_table)
    except ValueError as error:
        raise UsageError(str(error)) from None


def run(args: argparse.Namespace, out: IO[str], stdin: IO[str] | None = None) -> int:
    """Answer every position of ``args.moves``, or of ``stdin`` (default ``sys.stdin``) line by line; the exit status."""
    current = [""]  # the line being answered, for the notes on stderr

    def note(message: str) -> None:
        print(f"{PROGRAM}: note: {current[0]!r}: {message} (--budget SECONDS bounds it)", file=sys.stderr, flush=True)

    try:
        scorer = PositionScorer(settings_of(args), note)
    except ValueError as error:  # a cache file that is not SQLite, a folder that cannot be made
        raise UsageError(str(error)) from None
    status = EXIT_OK
    try:
        for text in (args.moves if args.moves else _lines(stdin or sys.stdin)):
            current[0] = text.strip()
            answered = _answer(scorer, current[0], args.all, args.json, out)
            out.flush()
            if not answered:
                status = EXIT_UNANSWERED
    finally:
        scorer.close()
    return status


def _lines(stream: IO[str]) -> Iterator[str]:
    """Each line as soon as it is read (no read-ahead: the command sits at the end of a pipe)."""
    return iter(stream.readline, "")


def _answer(scorer: PositionScorer, text: str, every_column: bool, as_json: bool, out: IO[str]) -> bool:
    """Print one line for ``text``; True if it got its exact score(s)."""
    try:
        moves = parse_moves(text)
    except PositionError as error:
        out.write(json.dumps({"position": text, "error": str(error)}) + "\n" if as_json else f"{text} error: {error}\n")
        return False
    solved = scorer.solve(moves, every_column)
    out.write((json.dumps(_json(text, solved)) if as_json else f"{text} {_text(solved, every_column)}") + "\n")
    return solved.value.exact and all(v is None or v.exact for v in solved.columns or ())


def _shown(value: Value | None) -> str:
    if value is None:
        return FULL_COLUMN
    return str(value.low) if value.exact else f"{value.low}..{value.high}"


def _text(solved: Solved, every_column: bool) -> str:
    if every_column and solved.columns is not None:
        return " ".join(_shown(value) for value in solved.columns)
    return _shown(solved.value)


def _json(text: str, solved: Solved) -> dict:
    answer: dict = {"position": text, "score": solved.value.score, "bounds": [solved.value.low, solved.value.high]}
    if solved.columns is not None:
        answer["scores"] = [None if value is None else value.score for value in solved.columns]
        answer["column_bounds"] = [None if value is None else [value.low, value.high] for value in solved.columns]
    return answer


def main(argv: Sequence[str] | None = None, out: IO[str] | None = None) -> int:
    """``connectx solve`` on its own (``python -m connectx_toolkit.cli.solve``): the exit status."""
    stream: IO[str] = out if out is not None else sys.stdout
    try:
        return run(build_parser().parse_args(argv), stream)
    except UsageError as error:
        print(f"{PROGRAM}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROGRAM}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader stopped reading (| head): end quietly
        _silence(stream)
        return EXIT_OK


def _silence(out: IO[str]) -> None:
    """Point stdout at /dev/null, so the interpreter's last flush raises no second BrokenPipeError."""
    if out is sys.stdout:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    sys.exit(main())
