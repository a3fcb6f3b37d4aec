"""Every position of a game with every column's value, solved ahead: what the inline board steps through.

The live board asks for a position's values when it is shown; a page with no server behind it (a hosted
notebook, a saved file) needs them all beforehand. The values are the live board's, from the same engine
(:func:`analysis.labelling.label_games`: the rules, the on-disk cache, the opening book, the outcome table,
then a search under the budget): the value of the move into each column for the side to move, and the
label of every move of the game. The whole game goes to the analysis in one call, so its workers start
once and positions the lines share are solved once.
"""

from __future__ import annotations

import functools
from typing import Any

from connectx_toolkit.agents.core import Config, Position

from connectx_toolkit.analysis.games import STANDARD, Game
from connectx_toolkit.analysis.positions import move_string
from connectx_toolkit.board.game import BoardGame
from connectx_toolkit.board.session import move_label

__all__ = ["solve_game"]

NO_VALUES = "No exact values on this board: the analysis solves 6x7, four in a row only."


def solve_game(game: Game | None, config: Config, *, budget: float, cache_path: str | None, workers: int,
               compiled: bool, table: bool = True, progress: bool = True, source: str = "",
               start: tuple[int, ...] = ()) -> dict[str, Any]:
    """The page's data (JSON-able): every position of ``game`` with its board, status line and column values,
    and the move list with each move's label; with no game, the one position after ``start`` (6x7 moves not
    over, as ``--position`` gives them; none: the empty board)."""
    moves = list(game.moves) if game is not None else list(start)
    first_ply = 0 if game is not None else len(moves)  # a position alone: only it is shown (and solved)
    shown = [BoardGame(config, moves[:ply]) for ply in range(first_ply, len(moves) + 1)]
    values: list[list[dict[str, Any]] | None] = [None] * len(shown)
    analysis = None
    note = NO_VALUES
    if config.is_standard:
        analysis, values = _values(game, shown, budget, cache_path, workers, compiled, table, progress)
        note = ("Each column's value for the side to move: win / draw / loss, with the exact score on Pons' scale "
                "when solved (? = not solved within the budget).")
    first = analysis.first_losing.ply if analysis is not None and analysis.first_losing is not None else None
    positions = []
    for index, position in enumerate(shown):
        ply = first_ply + index
        ending = position.ending()
        cells = position.board()
        positions.append({
            "board": cells, "to_move": position.to_move, "message": _message(game, ply, moves, ending),
            "values": values[index], "line": [list(cell) for cell in ending.line] if ending else [],
            "last": _last_cell(config, cells, moves[ply - 1]) if ply else None,
        })
    data: dict[str, Any] = {"config": config.as_dict(), "positions": positions, "values_note": note, "game": None,
                            "start": None if game is not None else move_string(moves)}
    if game is not None:
        data["game"] = {
            "source": source, "game_id": game.game_id, "agents": list(game.agents), "outcomes": list(game.outcomes),
            "opening_plies": game.opening_plies, "first_losing": first,
            "labelled": analysis is not None or not config.is_standard,
            "moves": [{"ply": ply, "column": column, "agent": game.mover(ply),
                       "label": move_label(analysis, ply) if config.is_standard else None,
                       "first_losing": ply == first} for ply, column in enumerate(moves)],
        }
    return data


def _values(game: Game | None, shown: list[BoardGame], budget: float, cache_path: str | None, workers: int,
            compiled: bool, table: bool, progress: bool) -> tuple[Any, list[list[dict[str, Any]] | None]]:
    """The game's analysis (None without a game) and, per position, every column's value (None once over)."""
    from connectx_toolkit.analysis.cache import PositionCache
    from connectx_toolkit.analysis.labelling import label_games

    lines: list[Game] = []  # each legal column's move from each position still in play, as a game of its own
    asked: list[tuple[int, int]] = []  # (ply, column) of each line
    for ply, position in enumerate(shown):
        if position.ending() is not None:
            continue
        prefix = tuple(position.moves)
        for column in Position.from_moves(prefix, STANDARD).legal_moves():
            lines.append(Game(0, ("", ""), prefix + (column,), len(prefix) + 1, ("", "")))
            asked.append((ply, column))
    games = ([game] if game is not None else []) + lines
    analyses = label_games(games, budget, PositionCache(cache_path), workers, compiled, progress=progress,
                           table=_outcome_table() if table else None)
    analysis = analyses.pop(0) if game is not None else None
    columns = STANDARD.columns
    values: list[list[dict[str, Any]] | None] = [
        None if position.ending() is not None else [{"value": "full", "score": None}] * columns for position in shown]
    for (ply, column), line in zip(asked, analyses):
        value = line.moves[-1].after
        row = values[ply]
        assert row is not None
        row[column] = {"value": value.outcome, "score": value.score, "low": value.low, "high": value.high}
    return analysis, values


@functools.lru_cache(maxsize=1)
def _outcome_table() -> Any:
    """One table per process: it settles its positions once (about a second), then answers at once."""
    from connectx_toolkit.analysis.table import OutcomeTable

    return OutcomeTable()


def _message(game: Game | None, ply: int, moves: list[int], ending: Any) -> str:
    if ending is not None:
        if ending.winner is None:
            return f"Draw: {ending.reason}."
        who = (game.agents[ending.winner] if game is not None else "") or f"player {ending.winner + 1}"
        return f"{who} won: {ending.reason}."
    total = len(moves)
    if game is None:
        if not moves:
            return "The empty board: yellow to move."
        return f"Position {move_string(moves)}: {('yellow', 'red')[ply % 2]} to move."
    if ply == total:  # a forfeit (an invalid move, an error, a timeout) ended it before the rules did
        return f"Move {ply} of {total}: the game ended here ({' / '.join(o or '?' for o in game.outcomes)})."
    return f"Move {ply} of {total}: {('yellow', 'red')[ply % 2]} to move."


def _last_cell(config: Config, cells: list[int], column: int) -> list[int] | None:
    for row in range(config.rows):
        if cells[row * config.columns + column]:
            return [row, column]
    return None
