"""``connectx accuracy --positions FILE``: your own positions instead of the shipped benchmark, labelled by the
analysis' solver.

FILE is one of:

1. a results file (JSON Lines of game records, as ``connectx match`` writes them) or
2. a Kaggle episode JSON (your ladder games, as ``connectx ladder`` or Kaggle's viewer downloads them): both are
   read by the analysis' own reader (``analysis.games.read_results_file`` / ``read_episode``), and every position
   of each game is labelled, from the empty board to the last one before its final move, because an agent is
   asked a game's positions in order, as a Kaggle game asks them (``measuring.play``);
3. a text file of move strings (Pons' notation, ``4453``), one position per line; blank lines and lines starting
   with ``#`` are skipped, and a score after the moves (as Pons' test files have them: ``4453 -2``) is allowed.
   Each line is a game of its own whose one labelled position is the line's last one. Where a line gives the
   position's score, the label's best score is checked against it: a line whose label disagrees is counted
   (``["score_mismatches"]``: the line numbers), a sign of a wrong file or a wrong solver.

Labels are the exact score of every legal column (``analysis.scores.PositionScorer`` with ``every_column``). A
position whose columns are not all exact within the budget is left out, and counted
(``Benchmark.metadata["left_out"]``, the move strings in ``["left_out_positions"]``, and by reason and phase in
``["left_out_by_reason"]``: :func:`left_out_reasons`); ``["file_positions"]`` and ``["distinct_positions"]`` count
the file's positions before any was left out (a position several games reach is asked in each). The budget is CPU seconds
of search per column: :data:`DEFAULT_BUDGET` from ply 8 on, where a position takes 0.1-5 s (well under a second
from ply 9). A position of fewer than :data:`EARLY_STONES` stones that the opening book, the rules or a one-ply
look-ahead do not settle often needs a search of minutes a column, so it gets :data:`DEFAULT_EARLY_BUDGET` and is
left out almost at once. Measured on the three games of ``tests/data/analysis_games.jsonl`` (112 positions, no
cache, a 2-core machine shared with other jobs): 10 s a column everywhere took 600 s and still left 11 positions of 1-5 stones out (each of
them spent 70 s to fail); with the early budget it took 49 s and left 21 out (those 11 and 10 more of 4-7 stones,
which 10 s a column labels). ``early_budget=10`` labels those, at that price; the cache keeps every label for
the next run.

Labelling runs on ``workers`` processes (each with its own scorer, all on the same cache file): the labels do not
depend on how many (an exact score is an exact score), only the time does. Each position's searched columns go
into the cache as soon as that position is labelled, so a run killed midway loses only the positions being
labelled at that moment: the next run on the same cache searches none of the others again
(``["searched"]`` counts the positions sent to a search, summed over the workers). ``sample`` asks a seeded sample
of that many of the file's games (a line of move strings is a game): the first ``sample`` of the games in an order
shuffled by ``random.Random(seed)``, so a larger sample of the same seed holds the smaller one (and its labels in
the cache); ``["sample"]`` says ``{"size", "of", "seed"}``.

Only 6x7, four in a row has perfect labels: a file of games on another board is one line (``UsageError``), as
is a file that cannot be read, is no results file, episode nor move strings, or holds an illegal or finished
move string (naming the file and the line).
"""

from __future__ import annotations

import json
import os
import random
import signal
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Callable, Iterator, Sequence, cast

from connectx_toolkit.measuring.benchmark import PHASES, Benchmark, LabelledPosition, SourceGame, phase_of
from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.analysis.games import AnalysisInputError, Game, read_episode, read_results_file
from connectx_toolkit.analysis.positions import PositionError, move_string, parse_moves
from connectx_toolkit.analysis.settings import MAX_BUDGET, NO_CACHE
from connectx_toolkit.errors import UsageError

__all__ = ["DEFAULT_BUDGET", "DEFAULT_EARLY_BUDGET", "EARLY_STONES", "PositionsSettings", "left_out_reasons",
           "read_positions"]

# CPU seconds of search per column. Positions from ply 8 on take 0.1-5 s a position with the compiled solver, so
# 10 s a column labels them all; an early position off the book's lines needs minutes, and is left out instead.
DEFAULT_BUDGET = 10.0
EARLY_STONES = 8
DEFAULT_EARLY_BUDGET = 0.05
FORMATS = ("results", "episode", "moves")
STANDARD = Config()


@dataclass(frozen=True)
class PositionsSettings:
    """How ``--positions`` labels its positions; bad values raise ``UsageError`` (one line) when it is made.

    - ``budget``: CPU seconds of search per column of a position of :data:`EARLY_STONES` stones or more
      (``--analysis-budget``; default :data:`DEFAULT_BUDGET`); a position not solved exactly within it is left out;
    - ``early_budget``: the same for a position of fewer stones (default :data:`DEFAULT_EARLY_BUDGET`: those not
      known without a search take minutes, and are left out rather than searched);
    - ``cache``: the analysis' SQLite file of solved positions (``--analysis-cache``; None: the default file,
      ``"none"``: no cache): a second run on the same file takes no search at all.
    """

    budget: float = DEFAULT_BUDGET
    cache: str | None = None
    early_budget: float = DEFAULT_EARLY_BUDGET

    def __post_init__(self) -> None:
        for name, flag in (("budget", "--analysis-budget"), ("early_budget", "early_budget")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_BUDGET:
                raise UsageError(f"{flag} must be > 0 and <= {MAX_BUDGET:g}, got {value!r}")
        if self.cache is not None and not (isinstance(self.cache, str) and self.cache):
            raise UsageError(f"--analysis-cache must be a path, got {self.cache!r}")

    @property
    def cache_path(self) -> str | None:
        """The cache file the scorer opens (None: in memory only)."""
        from connectx_toolkit.analysis.cache import default_cache_path

        if self.cache == NO_CACHE:
            return None
        return self.cache if self.cache is not None else default_cache_path()


def read_positions(path: str, settings: PositionsSettings = PositionsSettings(), *,
                   on_position: Callable[[int, int], None] | None = None, games: int | None = None,
                   sample: int | None = None, seed: int = 0, workers: int = 1) -> Benchmark:
    """The labelled positions of ``path`` (a results file, a Kaggle episode JSON or a file of move strings) as a
    :class:`Benchmark` of its games (its first ``games`` games only, when given; a seeded ``sample`` of that many
    games, when given: see the module docstring); ``metadata`` says where they came from, how many positions were
    left out and why. Labelled on ``workers`` processes. ``on_position(done, total)`` is told after each position
    (a progress bar). Raises ``UsageError`` (one line naming the file, and the line of a bad move string) for
    input it cannot use."""
    text = _read_text(path)
    kind, wanted, expected = _games(text, path)
    if not wanted:
        raise UsageError(f"{path}: no positions in it")
    file_games = len(wanted)
    if games is not None:
        wanted = wanted[:games]
    chosen = None
    if sample is not None and sample < len(wanted):
        order = list(range(len(wanted)))
        random.Random(seed).shuffle(order)
        wanted = [wanted[index] for index in sorted(order[:sample])]
        chosen = {"size": sample, "of": file_games, "seed": seed}
    items = [moves[:ply] for _, moves, _, plies in wanted for ply in plies]
    labels, searched = label_positions(items, settings, workers=workers, on_position=on_position)
    labelled: list[SourceGame] = []
    left_out: list[str] = []
    reasons = left_out_reasons(settings)
    boards: set[int] = set()
    mismatches: list[int] = []
    checked = 0
    found = iter(labels)
    for game_id, moves, agents, plies in wanted:
        positions = []
        for ply in plies:
            boards.add(Position.from_moves(moves[:ply], STANDARD).key())
            scores = next(found)
            if scores is None:
                left_out.append(move_string(moves[:ply]))
                reason = reasons["early" if ply < EARLY_STONES else "budget"]
                reason["positions"] += 1
                reason["by_phase"][phase_of(ply)] += 1
                continue
            position = LabelledPosition(game_id, ply, move_string(moves[:ply]), scores)
            if game_id in expected:
                checked += 1
                if position.best != expected[game_id]:
                    mismatches.append(game_id)
            positions.append(position)
        if positions:  # a game all of whose positions were left out asks the agent nothing
            labelled.append(SourceGame(game_id, moves, agents, tuple(positions)))
    total = len(items)
    metadata: dict[str, Any] = {
        "source": os.path.abspath(path), "format": kind, "budget": settings.budget,
        "early_budget": settings.early_budget, "early_stones": EARLY_STONES, "games": len(labelled),
        "positions": total - len(left_out), "file_positions": total, "distinct_positions": len(boards),
        "file_games": file_games, "sample": chosen, "searched": searched,
        "scores_checked": checked, "score_mismatches": mismatches,
        "left_out": len(left_out), "left_out_positions": left_out, "left_out_by_reason": reasons,
        "labels": "analysis.scores.PositionScorer, every column exact within the budget (CPU s a column)"}
    return Benchmark(tuple(labelled), metadata, path)


def label_positions(items: Sequence[tuple[int, ...]], settings: PositionsSettings, *, workers: int = 1,
                    on_position: Callable[[int, int], None] | None = None) -> tuple[list[tuple | None], int]:
    """Each position's label (every column's exact score, None for a full column; None for a position not exact
    within its budget), in the order of ``items`` (move tuples), and the positions sent to a search. On
    ``workers`` processes when there are several (:class:`_LabelPool`), else here; ``on_position(done, total)``
    after each position, in the order they finish."""
    total = len(items)
    labels: list[tuple | None] = [None] * total
    if workers <= 1 or total <= 1:
        scorers = _Scorers(settings)
        try:
            for done, moves in enumerate(items, start=1):
                labels[done - 1] = _label(scorers.of(len(moves)), moves)
                if on_position is not None:
                    on_position(done, total)
        finally:
            scorers.close()
        return labels, scorers.searched
    _Scorers(settings).close()  # an unusable cache: said before any worker starts
    pool = _LabelPool(settings, min(workers, total))
    searched = 0
    try:
        for done, (index, scores, count) in enumerate(pool.run(items), start=1):
            labels[index] = scores
            searched += count
            if on_position is not None:
                on_position(done, total)
    finally:
        pool.close()
    return labels, searched


def left_out_reasons(settings: PositionsSettings) -> dict[str, dict[str, Any]]:
    """Why a position is left out, each reason with its count, zero so far, and its count by phase: ``early`` (fewer
    than :data:`EARLY_STONES` stones, not exact within the early budget: off the opening book's lines, such a
    position takes minutes) and ``budget`` (not exact within the budget)."""
    def reason(why: str) -> dict[str, Any]:
        return {"reason": why, "positions": 0, "by_phase": {name: 0 for name, _, _ in PHASES}}

    return {"early": reason(f"with fewer than {EARLY_STONES} stones, not exact within the early budget, "
                            f"{settings.early_budget:g} s a column"),
            "budget": reason(f"not exact within the budget, {settings.budget:g} s a column")}


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the positions ({error.strerror or error})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not positions (not UTF-8 text): a results file, a Kaggle episode JSON or "
                         "move strings, one a line") from None


Wanted = tuple[int, tuple[int, ...], tuple[str, str], tuple[int, ...]]  # game id, moves, agents, plies to label


def _games(text: str, path: str) -> tuple[str, list[Wanted], dict[int, int]]:
    """The file's format and, per game, its moves and the plies whose positions are labelled; and the scores a
    file of move strings gives (by game: its line number)."""
    if not text.lstrip().startswith("{"):
        expected: dict[int, int] = {}
        return "moves", _move_lines(text, path, expected), expected
    _check_board(text, path)
    document: Any = None
    try:
        document = json.loads(text)
    except ValueError:
        pass  # several JSON objects: JSON Lines
    try:
        if isinstance(document, dict) and "steps" in document:
            kind, games = "episode", [read_episode(document, path)]
        else:
            kind, games = "results", read_results_file(text, path)
    except AnalysisInputError as error:
        raise UsageError(str(error)) from None
    return kind, [_whole_game(game) for game in games], {}


def _whole_game(game: Game) -> Wanted:
    """Every position an agent chose a move at: the empty board to the one before the final move."""
    return game.game_id, game.moves, game.agents, tuple(range(len(game.moves)))


def _move_lines(text: str, path: str, expected: dict[int, int]) -> list[Wanted]:
    """Each line's game; the score a line gives after its moves goes into ``expected`` (by line number)."""
    games = []
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) > 2 or (len(fields) == 2 and not _integer(fields[1])):
            raise UsageError(f"{path}:{number}: not a move string (columns 1 to 7, optionally a score after it): "
                             f"{line.strip()[:60]!r}")
        try:
            moves = parse_moves(fields[0])
        except PositionError as error:
            raise UsageError(f"{path}:{number}: {error}") from None
        games.append((number, moves, ("", ""), (len(moves),)))
        if len(fields) == 2:
            expected[number] = int(fields[1])
    return games


def _integer(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _check_board(text: str, path: str) -> None:
    """The one line for games on a board other than 6x7, four in a row, before the analysis' reader refuses
    them with its own: the board of the episode, or of the results file's header (its first line)."""
    document: Any = None
    try:
        document = json.loads(text)
    except ValueError:
        try:
            document = json.loads(text.lstrip().splitlines()[0])
        except ValueError:
            return  # the reader says what is wrong with it
    if not isinstance(document, dict):
        return
    data = document.get("configuration") if "steps" in document else document.get("config")
    if not isinstance(data, dict):
        return
    try:
        config = Config.from_kaggle(data)
    except (TypeError, ValueError):
        return
    if not config.is_standard:
        inarow = "four in a row" if config.inarow == 4 else f"{config.inarow} in a row"
        raise UsageError(f"{path}: positions on {config.rows}x{config.columns} boards, {inarow}, have no perfect "
                         "labels: only 6x7 four in a row")


class _Scorers:
    """The scorer of each budget (the early one made on its first use), sharing the cache file."""

    def __init__(self, settings: PositionsSettings) -> None:
        self.settings = settings
        self._made: dict[float, Any] = {}
        self.of(EARLY_STONES)  # an unusable cache: said before any position

    def of(self, stones: int) -> Any:
        from connectx_toolkit.analysis.scores import PositionScorer, SolveSettings

        budget = self.settings.budget if stones >= EARLY_STONES else self.settings.early_budget
        if budget not in self._made:
            try:
                self._made[budget] = PositionScorer(SolveSettings(budget=budget, cache_path=self.settings.cache_path))
            except ValueError as error:  # an unusable cache file
                raise UsageError(str(error)) from None
        return self._made[budget]

    @property
    def searched(self) -> int:
        """Positions sent to a search so far, by every scorer."""
        return sum(scorer.searched for scorer in self._made.values())

    def close(self) -> None:
        for scorer in self._made.values():
            scorer.close()


def _label(scorer: Any, moves: tuple[int, ...]) -> tuple[int | None, ...] | None:
    """Every column's exact score (None for a full column), or None when one is not exact within the budget."""
    columns = scorer.solve(moves, every_column=True).columns
    if any(value is not None and not value.exact for value in columns):
        return None
    return tuple(None if value is None else value.score for value in columns)


def _serve_labels(connection: Any, settings: PositionsSettings) -> None:
    """A labelling worker: answer each (index, moves) with (index, label, positions searched for it) until the
    pipe closes or says None; its own scorers, on the same cache file (each label committed as it is made)."""
    from connectx_toolkit.analysis.workers import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides
    die_with_parent()
    scorers = _Scorers(settings)
    try:
        while True:
            try:
                message = connection.recv()
            except EOFError:
                return
            if message is None:
                return
            index, moves = message
            before = scorers.searched
            connection.send((index, _label(scorers.of(len(moves)), moves), scorers.searched - before))
    finally:
        scorers.close()


class _LabelPool:
    """``workers`` forked processes labelling positions (:func:`_serve_labels`), one position per message."""

    def __init__(self, settings: PositionsSettings, workers: int) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._workers: list[tuple[Any, Connection]] = []
        for _ in range(workers):
            parent, child = context.Pipe()
            process = context.Process(target=_serve_labels, args=(child, settings), daemon=False)
            process.start()
            child.close()
            self._workers.append((process, parent))

    def run(self, items: Sequence[tuple[int, ...]]) -> Iterator[tuple[int, tuple | None, int]]:
        """Yield (index, label, searched) for every item, as the workers finish them."""
        from multiprocessing.connection import wait

        pending = list(enumerate(items))
        pending.reverse()  # popped from the end: in the file's order
        busy: dict[Connection, int] = {}
        for _, connection in self._workers:
            if pending:
                connection.send(pending.pop())
                busy[connection] = 1
        while busy:
            for ready in wait(list(busy)):
                connection = cast(Connection, ready)
                try:
                    answer = connection.recv()
                except EOFError:
                    raise RuntimeError("a labelling worker died") from None
                del busy[connection]
                if pending:
                    connection.send(pending.pop())
                    busy[connection] = 1
                yield answer

    def close(self) -> None:
        for process, connection in self._workers:
            try:
                connection.send(None)
            except (BrokenPipeError, OSError):
                pass
        for process, connection in self._workers:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
            connection.close()
