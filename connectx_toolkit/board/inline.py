"""The board drawn in a notebook cell itself: a solved game stepped by the page's own script, no server.

:class:`InlineBoard` is what ``connectx_toolkit.open_board`` returns where the browser cannot reach the kernel's
127.0.0.1 (Kaggle, Colab; :mod:`board.hosted`), or when asked with ``inline=True``. Its HTML is
self-contained: the styles, the script and every position with its column values
(:func:`board.solved_game.solve_game`) travel in it, so it steps in the notebook, in a saved notebook
and in a page written by :meth:`InlineBoard.save`. Without its script (a notebook not trusted) it still
shows one position and the labelled move list: the position before the first outcome-losing move, else
the last one.
"""

from __future__ import annotations

import html
import json
import os
import secrets
from typing import Any

from connectx_toolkit.outcomes import Proven

__all__ = ["InlineBoard", "inline_board", "live_play_note", "render"]

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
LEGEND = ('Click a move (or use the arrow keys) to see the position before it, with every column\'s value. '
          '<span>kept</span> the mover\'s outcome, <span style="color:#ff8a80">outcome-losing</span> (win to draw '
          'or loss, draw to loss), <span style="color:#999">unknown</span> not solved within the budget.')


class InlineBoard:
    """A game to step through in the cell; ``data`` is every position (JSON-able), ``notice`` a line above it."""

    def __init__(self, data: dict[str, Any], notice: str | None = None) -> None:
        self.data = data
        self.notice = notice

    def html(self) -> str:
        """The board as an HTML fragment (styles and script inside)."""
        return render(self.data, self.notice)

    def _repr_html_(self) -> str:
        return self.html()

    def save(self, path: str) -> str:
        """Write the board as a page of its own (it steps in any browser, offline); returns ``path``."""
        page = ('<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>ConnectX board</title></head>'
                f'<body style="margin:0;padding:16px;background:#0e1015">{self.html()}</body></html>\n')
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(page)
        return path

    def __repr__(self) -> str:
        game = self.data["game"]
        config = self.data["config"]
        if game is None and self.data.get("start"):
            what = f"position {self.data['start']}"
        elif game is None:
            what = f"the empty {config['rows']}x{config['columns']} board"
        else:
            first = game["first_losing"]
            what = (f"{game['source'] or 'game'} game {game['game_id']}, {game['agents'][0]} vs {game['agents'][1]}, "
                    f"{len(game['moves'])} moves, " + ("no outcome-losing move" if first is None else
                                                        f"first outcome-losing move at ply {first}"))
        lines = [f"ConnectX board (drawn in the cell, no server): {what}"]
        return "\n".join(([self.notice] if self.notice else []) + lines)


def live_play_note(service: str, with_game: bool) -> str:
    """The one line above a hosted kernel's board."""
    return (f"Live play needs a local kernel: this one runs on {service}'s machines, whose 127.0.0.1 your browser "
            "cannot reach; " + ("the game steps here, with no server." if with_game else
                                'open_board(game="FILE[:N]") steps through a game here, with no server.'))


def inline_board(options: Any, notice: str | None = None, progress: bool = True) -> InlineBoard:
    """The inline board for ``options`` (a :class:`board.server.BoardOptions`: its game, board and analysis
    settings; the agent does not play). Raises ``BoardError`` (one line) for bad input."""
    from connectx_toolkit.agents.core import Config
    from connectx_toolkit.analysis.cache import default_cache_path
    from connectx_toolkit.analysis.settings import default_budget
    from connectx_toolkit.analysis.solving import compiled_solver_available
    from connectx_toolkit.analysis.workers import default_workers
    from connectx_toolkit.board.server import BoardError, load_game, split_game_argument
    from connectx_toolkit.board.solved_game import solve_game

    loaded = load_game(options.game) if options.game else None
    config = options.config or (loaded.config if loaded is not None else Config())
    if loaded is not None and loaded.config != config:
        raise BoardError(f"game: the game is on a {loaded.config.rows}x{loaded.config.columns} board, not "
                         f"{config.rows}x{config.columns}: drop rows/columns/inarow")
    compiled = options.compiled_solver and compiled_solver_available()
    cache = options.analysis_cache or default_cache_path()
    try:
        data = solve_game(loaded, config, budget=options.analysis_budget or default_budget(compiled),
                          cache_path=None if cache == "none" else cache, workers=options.workers or default_workers(),
                          compiled=compiled, table=options.outcome_table, progress=progress,
                          source=os.path.basename(split_game_argument(options.game)[0]) if options.game else "",
                          start=options.start_moves)
    except ValueError as error:  # an unusable analysis cache
        raise BoardError(str(error)) from None
    return InlineBoard(data, notice)


def start_ply(data: dict[str, Any]) -> int:
    """The position shown first: before the first outcome-losing move, else the last one."""
    game = data["game"]
    if game is not None and game["first_losing"] is not None:
        return int(game["first_losing"])
    return len(data["positions"]) - 1


def render(data: dict[str, Any], notice: str | None = None) -> str:
    """The self-contained HTML of the board for ``data``, showing :func:`start_ply` before its script runs."""
    root = "cxb-" + secrets.token_hex(6)
    config = data["config"]
    cursor = start_ply(data)
    position = data["positions"][cursor]
    line = {tuple(cell) for cell in position["line"]}
    last = tuple(position["last"]) if position["last"] else None
    columns = []
    for c in range(config["columns"]):
        cells = []
        for r in range(config["rows"]):
            classes = "cxb-cell" + (" cxb-win-line" if (r, c) in line else "") + (" cxb-last" if (r, c) == last else "")
            cells.append(f'<div class="{classes}" data-cell="{r},{c}" data-mark="{position["board"][r * config["columns"] + c]}"></div>')
        columns.append(f'<div class="cxb-column" title="column {c + 1}">{"".join(cells)}</div>')
    values = position["values"]
    value_cells = "".join(_value_cell(c, values[c] if values else {"value": "full", "score": None})
                          for c in range(config["columns"]))
    hidden = "" if values else ' style="visibility:hidden"'
    game = data["game"]
    players = (f"{html.escape(game['agents'][0] or 'player 1')} (yellow) vs {html.escape(game['agents'][1] or 'player 2')} (red)"
               if game else f"{config['rows']}x{config['columns']}, {config['inarow']} in a row")
    buttons = "".join(f'<button type="button" data-action="{action}">{label}</button>'
                      for action, label in (("first", "&#171; First"), ("prev", "&#9664; Prev"), ("next", "Next &#9654;"),
                                            ("last", "Last &#187;")))
    parts = [
        f'<div class="cxb" id="{root}" data-cursor="{cursor}" tabindex="0">',
        f"<style>{_static('inline.css')}</style>",
        f'<p class="cxb-notice">{html.escape(notice)}</p>' if notice else "",
        f'<div class="cxb-players">{players}</div>',
        '<div class="cxb-main"><section>',
        f'<div class="cxb-status" data-role="status" data-ply="{cursor}">{html.escape(position["message"])}</div>',
        f'<div class="cxb-values" data-role="values"{hidden}>{value_cells}</div>',
        f'<div class="cxb-board" data-role="board">{"".join(columns)}</div>',
        f'<div class="cxb-note">{html.escape(data["values_note"])}</div>',
        f'<div class="cxb-buttons">{buttons}</div>',
        "</section>",
        _move_list(game, cursor) if game else "",
        "</div>",
        f'<script type="application/json" data-role="data">{_json_in_html(data)}</script>',
        f"<script>{_static('inline.js').replace('__ROOT__', root)}</script>",
        "</div>",
    ]
    return "".join(parts)


def _move_list(game: dict[str, Any], cursor: int) -> str:
    outcomes = " / ".join(outcome or "?" for outcome in game["outcomes"])
    first = game["first_losing"]
    info = (f"{game['source'] + ': ' if game['source'] else ''}game {game['game_id']} ({outcomes})"
            + ("" if not game["labelled"] else "; no outcome-losing move" if first is None
               else f"; first outcome-losing move: ply {first}"))
    items = []
    for move in game["moves"]:
        who = "opening" if move["agent"] is None else move["agent"]
        label = move["label"]
        classes = " ".join(name for name, on in (("cxb-first-losing", move["first_losing"]),
                                                 ("cxb-current", move["ply"] == cursor)) if on)
        text = f"column {move['column'] + 1} by {who}" + (f": {label}" if label else "")
        class_attribute = f' class="{classes}"' if classes else ""
        items.append(f'<li data-ply="{move["ply"]}" data-label="{label or ""}"{class_attribute}>{html.escape(text)}</li>')
    return (f'<section class="cxb-game"><div>{html.escape(info)}</div><ol start="0">{"".join(items)}</ol>'
            f'<p class="cxb-legend">{LEGEND}</p></section>')


def _value_cell(column: int, value: dict[str, Any]) -> str:
    score = value.get("score")
    text = {**{proven: str(proven) for proven in Proven}, Proven.UNKNOWN: "?", "full": ""}[value["value"]]
    if score is not None:
        text += f" {score:+d}" if score else " 0"
    score_attribute = f' data-score="{score}"' if score is not None else ""
    return (f'<div class="cxb-value" data-value-column="{column}" data-value="{value["value"]}"{score_attribute}>'
            f"{text}</div>")


def _json_in_html(data: dict[str, Any]) -> str:
    """JSON inside a <script> element: no "</script>" or "<!--" can end or confuse it."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _static(name: str) -> str:
    with open(os.path.join(STATIC, name), encoding="utf-8") as handle:
        return handle.read()
