"""The games an analysis reads: from an ``evaluate.py`` results file, a Kaggle episode JSON or a run.

Whatever the source, a game becomes a :class:`Game`: the agents in seat order, the moves as 0-based
columns from the empty board, how many of them were the opening (played for neither agent), and each
seat's outcome. Every move is replayed on the core's :class:`Position`, so a file whose moves are not a
legal game is refused here, with one line naming the file and the game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

from connectx_toolkit.agents.core import Config, Position
from connectx_toolkit.errors import UsageError
from connectx_toolkit.evaluation.referees.played import Status
from connectx_toolkit.evaluation.referees.record import GameRecord
from connectx_toolkit.evaluation.reports.results import ResultsError, ResultsReader
from connectx_toolkit.outcomes import FORFEITS, Outcome

__all__ = ["AnalysisInputError", "Game", "from_record", "read_episode", "read_games", "read_results_file"]

STANDARD = Config()


class AnalysisInputError(UsageError):
    """Input an analysis cannot use: one line for the user (exit 2; a ``ValueError``)."""


@dataclass(frozen=True)
class Game:
    """One game to analyse, in seat order (index 0 moved first, mark 1)."""

    game_id: int
    agents: tuple[str, str]
    moves: tuple[int, ...]  # 0-based columns from the empty board, the opening included
    opening_plies: int  # the first ``opening_plies`` moves were forced by the opening suite
    outcomes: tuple[Outcome | str, Outcome | str]  # per seat: an Outcome, or "" if not known
    config: Config = STANDARD

    def mover(self, ply: int) -> str | None:
        """The agent that chose the move at ``ply`` (stones on the board before it); None in the opening."""
        return None if ply < self.opening_plies else self.agents[ply % 2]

    @property
    def loser_seat(self) -> int | None:
        """The seat that lost or forfeited, None for a draw (or an unknown result)."""
        for seat, outcome in enumerate(self.outcomes):
            if outcome == Outcome.LOSS or outcome in FORFEITS:
                return seat
        return None


def from_record(record: GameRecord, source: str = "run") -> Game:
    """The game of one evaluator record; AnalysisInputError if it is not a legal standard game."""
    config = _config(record.config, f"{source}: game {record.game_id}")
    game = Game(int(record.game_id), (str(record.agents[0]), str(record.agents[1])), tuple(int(c) for c in record.moves),
                len(record.opening), (_outcome(record.outcomes[0]), _outcome(record.outcomes[1])), config)
    _check_moves(game, f"{source}: game {record.game_id}")
    return game


def read_games(path: str) -> list[Game]:
    """The games of ``path``: a results file (JSON Lines with a run header) or a Kaggle episode JSON."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise AnalysisInputError(f"cannot read {path!r}: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AnalysisInputError(f"{path!r} is neither a results file nor a Kaggle episode JSON (not UTF-8 text)") from None
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            document = json.loads(text)
        except ValueError:
            document = None  # several JSON objects: JSON Lines
        if isinstance(document, dict) and "steps" in document:
            return [read_episode(document, path)]
    return read_results_file(text, path)


def read_results_file(text: str, path: str) -> list[Game]:
    """Games of an ``evaluate.py`` results file; any line that is not what the format says is an error.

    Read with the evaluator's own reader in its strict mode (:class:`evaluation.reports.results.ResultsReader`).
    A last line without its newline is a write torn by a killed run: it is skipped, as the evaluator's
    ``--resume`` does. Every other unreadable line stops the analysis.
    """
    reader = ResultsReader(text.encode("utf-8"), path, strict=True)
    games: dict[int, Game] = {}
    try:
        for number, item in reader:
            if isinstance(item, GameRecord):
                game = from_record(item, f"{path}:{number}")
                games.setdefault(game.game_id, game)
            else:
                _config(item.get("config"), f"{path}")
    except ResultsError as error:
        raise AnalysisInputError(str(error)) from None
    if reader.header is None:
        if reader.torn.decode("utf-8").strip():
            raise AnalysisInputError(f"{path!r} is neither a results file nor a Kaggle episode JSON")
        raise AnalysisInputError(f"{path!r} is empty, not a results file")
    return sorted(games.values(), key=lambda g: g.game_id)


def read_episode(document: dict[str, Any], path: str = "episode") -> Game:
    """The game of a Kaggle episode (``env.toJSON()``, or the JSON Kaggle's episode viewer downloads).

    The moves are the stones that appear from one step's board to the next; the agents are the
    episode's ``info.TeamNames`` when present. An episode has no opening: every move is an agent's.
    """
    steps = document.get("steps")
    if not isinstance(steps, list) or not steps:
        raise AnalysisInputError(f"{path!r}: not a Kaggle episode (no steps)")
    if document.get("name") not in (None, "connectx"):
        raise AnalysisInputError(f"{path!r}: a Kaggle episode of {document.get('name')!r}, not connectx")
    config = _config(document.get("configuration") or {}, path)
    info = document.get("info") or {}
    names = info.get("TeamNames") if isinstance(info, dict) else None
    agents = (str(names[0]), str(names[1])) if isinstance(names, list) and len(names) == 2 else ("player 1", "player 2")
    try:
        boards = [step[0]["observation"]["board"] for step in steps]
        final = steps[-1]
        statuses = [state["status"] for state in final]
        rewards = [state.get("reward") for state in final]
    except (KeyError, IndexError, TypeError):
        raise AnalysisInputError(f"{path!r}: not a ConnectX episode (steps without boards)") from None
    moves: list[int] = []
    previous = [0] * config.cells
    for number, board in enumerate(boards):
        if not isinstance(board, list) or len(board) != config.cells:
            raise AnalysisInputError(f"{path!r}: step {number} has no {config.rows}x{config.columns} board")
        changed = [i for i, (a, b) in enumerate(zip(previous, board)) if a != b]
        if len(changed) > 1 or (changed and previous[changed[0]]):
            raise AnalysisInputError(f"{path!r}: step {number} is not one move after step {number - 1}")
        if changed:
            moves.append(changed[0] % config.columns)
        previous = board
    game = Game(int(info.get("EpisodeId", 0) or 0) if isinstance(info, dict) else 0, agents, tuple(moves), 0,
                _episode_outcomes(statuses, rewards), config)
    _check_moves(game, path)
    position = Position.from_moves(game.moves, config)
    if position.to_board() != [int(cell) for cell in boards[-1]]:
        raise AnalysisInputError(f"{path!r}: the final board does not follow from the moves")
    return game


def _outcome(value: Any) -> Outcome | str:
    """A seat's outcome as an ``Outcome``; "" for a value that is none (a result not known)."""
    try:
        return Outcome(value)
    except ValueError:
        return ""


def _episode_outcomes(statuses: Sequence[str], rewards: Sequence[Any]) -> tuple[Outcome | str, Outcome | str]:
    outcomes: list[Outcome | str] = []
    for text, reward in zip(statuses, rewards):
        try:
            status: Status | None = Status(text)
        except ValueError:
            status = None
        if status is not None and status.outcome is not None:  # a forfeit
            outcomes.append(status.outcome)
        elif status == Status.DONE and reward is not None:
            outcomes.append(Outcome.WIN if reward > 0 else Outcome.LOSS if reward < 0 else Outcome.DRAW)
        else:
            outcomes.append("")
    if "" in outcomes and any(o in FORFEITS for o in outcomes):
        outcomes = [o or Outcome.WIN for o in outcomes]  # the other seat of a forfeit won
    return outcomes[0], outcomes[1]


def _config(data: Any, where: str) -> Config:
    try:
        config = Config.from_kaggle(data if isinstance(data, dict) else None)
    except (TypeError, ValueError):
        raise AnalysisInputError(f"{where}: not a valid board configuration: {data!r}") from None
    if not isinstance(data, dict):
        raise AnalysisInputError(f"{where}: no board configuration")
    if not config.is_standard:
        raise AnalysisInputError(
            f"{where}: a game of {config.rows}x{config.columns}, {config.inarow} in a row; exact labels exist only "
            "for 6x7, four in a row (no analysis of other boards)")
    return config


def _check_moves(game: Game, where: str) -> None:
    position = Position(game.config)
    for ply, column in enumerate(game.moves):
        if position.last_player_won():
            raise AnalysisInputError(f"{where}: moves go on after the game was won (ply {ply})")
        if not isinstance(column, int) or not position.can_play(column):
            raise AnalysisInputError(f"{where}: illegal move {column!r} at ply {ply}")
        position.play(column)
    if not 0 <= game.opening_plies <= len(game.moves):
        raise AnalysisInputError(f"{where}: opening longer than the game")
