"""The annotated replay: Kaggle's own ConnectX player beside the move list with every move's value.

The page is Kaggle's player (``evaluation.reports.replays.replay_html``, the same file ``--replays`` saves) with
a panel added next to it: one row per move — ply, agent, column, the mover's outcome before and after
the move, the exact score — outcome-losing moves marked, the first one highlighted together with the
moves that would have kept the value. Clicking a row shows that move on the board (the player listens
for ``{"step": n}`` messages).
"""

from __future__ import annotations

import html
from typing import cast

from connectx_toolkit.evaluation.referees.played import Status
from connectx_toolkit.evaluation.referees.record import GameRecord
from connectx_toolkit.outcomes import Outcome, Proven
from connectx_toolkit.evaluation.reports.replays import replay_html, replay_name, write_page

from connectx_toolkit.analysis.labelling import GameAnalysis

__all__ = ["annotated_html", "replay_file_name", "save_annotated_replay"]

STATUS_OF = {**{outcome: outcome.status for outcome in Outcome}, "": Status.DONE}  # "": a result not known
MARK = {Proven.WIN: "W", Proven.DRAW: "D", Proven.LOSS: "L", Proven.UNKNOWN: "?"}

STYLE = """
#analysis-layout{display:flex;width:100%;height:100%}
#analysis-player{flex:1 1 auto;min-width:0;height:100%}
#analysis{flex:0 0 360px;height:100%;overflow-y:auto;box-sizing:border-box;padding:10px 12px;
  font:13px/1.35 Inter,-apple-system,Segoe UI,Roboto,Arial,sans-serif;background:#1d1f24;color:#e8e8e8;
  border-left:1px solid #444}
#analysis h1{font-size:15px;margin:0 0 6px}
#analysis p{margin:4px 0 8px}
#analysis table{border-collapse:collapse;width:100%}
#analysis th,#analysis td{padding:2px 5px;text-align:left;border-bottom:1px solid #333}
#analysis td.num{text-align:right;font-variant-numeric:tabular-nums}
#analysis tr.move{cursor:pointer}
#analysis tr.move:hover{background:#30343c}
#analysis tr.opening td{color:#999}
#analysis tr.losing td{background:#5a2a2a}
#analysis tr.first-losing td{background:#b3261e;color:#fff;font-weight:bold}
#analysis .win{color:#7bd88f}#analysis .draw{color:#e6c35c}#analysis .loss{color:#ff7b72}#analysis .unknown{color:#9aa}
#analysis tr.first-losing .win,#analysis tr.first-losing .draw,#analysis tr.first-losing .loss{color:#fff}
"""

SCRIPT = """
document.querySelectorAll('#analysis tr.move').forEach(function (row) {
  row.addEventListener('click', function () { window.postMessage({step: Number(row.dataset.step)}, '*'); });
});
"""


def _record(analysis: GameAnalysis) -> GameRecord:
    game = analysis.game
    return GameRecord(game.game_id, list(game.agents), list(game.moves[:game.opening_plies]), list(game.moves),
                      [STATUS_OF.get(o, Status.DONE) for o in game.outcomes],
                      cast("list[Outcome]", list(game.outcomes)), [[], []],  # a result not known stays ""
                      game.config.as_dict(), 0)


def replay_file_name(analysis: GameAnalysis) -> str:
    """``game-<id>-<loser>-vs-<winner>-<outcome>-analysis.html`` (the loser's side; seat 0 for a draw)."""
    seat = analysis.game.loser_seat or 0
    return replay_name(_record(analysis), seat)[: -len(".html")] + "-analysis.html"


def _cell(outcome: Proven) -> str:
    return f'<span class="{outcome}">{MARK[outcome]}</span>'


def _panel(analysis: GameAnalysis) -> str:
    game = analysis.game
    first = analysis.first_losing
    parts = [f"<h1>Game {game.game_id}: {html.escape(game.agents[0])} (first) vs {html.escape(game.agents[1])}</h1>"]
    result = ", ".join(f"{html.escape(name)} {outcome or '?'}" for name, outcome in zip(game.agents, game.outcomes))
    parts.append(f"<p>Result: {result}. Outcome for the mover before → after each move: "
                 f"{_cell(Proven.WIN)} win, {_cell(Proven.DRAW)} draw, {_cell(Proven.LOSS)} loss, {_cell(Proven.UNKNOWN)} not solved "
                 "in the budget. Score: Pons' scale (exact, mover's side). Columns 0-based; click a move to see it.</p>")
    if first is not None:
        kept = ", ".join(map(str, analysis.kept_by)) or "none found within the budget"
        parts.append(f'<p id="first-losing-move">First outcome-losing move: ply {first.ply}, '
                     f"{html.escape(str(first.agent))} played column {first.column}: "
                     f"{first.before.outcome} → {first.after.outcome}. Kept the {first.before.outcome} with: "
                     f"{kept}.</p>")
    else:
        parts.append('<p id="first-losing-move">No agent move threw away a win or a draw (among the moves labelled).</p>')
    if analysis.decided_ply is not None:
        parts.append(f"<p>Decided at ply {analysis.decided_ply}.</p>")
    rows = ["<tr><th>ply</th><th>agent</th><th>col</th><th>before</th><th>after</th><th>score</th></tr>"]
    for label in analysis.moves:
        classes = ["move"]
        if label.agent is None:
            classes.append("opening")
        if label is first:
            classes.append("first-losing")
        elif label.loses_outcome:
            classes.append("losing")
        score = "" if label.after.score is None else f"{label.after.score:+d}"
        agent = "opening" if label.agent is None else html.escape(label.agent)
        rows.append(f'<tr class="{" ".join(classes)}" data-step="{label.ply + 1}" data-ply="{label.ply}">'
                    f'<td class="num">{label.ply}</td><td>{agent}</td><td class="num">{label.column}</td>'
                    f"<td>{_cell(label.before.outcome)}</td><td>{_cell(label.after.outcome)}</td>"
                    f'<td class="num">{score}</td></tr>')
    parts.append('<table id="analysis-moves">' + "".join(rows) + "</table>")
    return "".join(parts)


def annotated_html(analysis: GameAnalysis) -> str:
    """One self-contained page: Kaggle's player on the left, the analysed move list on the right."""
    page = replay_html(_record(analysis))
    anchor = '<div id="app"></div>'
    if anchor not in page:
        raise RuntimeError("Kaggle's player page changed: no <div id=\"app\"> to place the analysis beside")
    layout = (f'<div id="analysis-layout"><div id="analysis-player">{anchor}</div>'
              f'<aside id="analysis">{_panel(analysis)}</aside></div><script>{SCRIPT}</script>')
    page = page.replace(anchor, layout, 1)
    return page.replace("</head>", f"<style>{STYLE}</style></head>", 1)


def save_annotated_replay(analysis: GameAnalysis, directory: str) -> str:
    """Write the annotated replay into ``directory``; the file appears whole or not at all."""
    return write_page(annotated_html(analysis), directory, replay_file_name(analysis))
