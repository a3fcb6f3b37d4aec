"""What the Python API returns: the ``--json`` report as a dict that a notebook shows as its table.

:class:`MatchResult` (``play_match``), :class:`GateReport` (``run_gate``), :class:`LeagueReport`
(``league``) and :class:`AnalysisReport` (``analyze``) are dicts: indexing (``result["agents"][0]["score"]``), ``json.dumps``, ``==`` with the
JSON object and pickling work as on the plain dict, which ``dict(result)`` and ``result.to_dict()`` give
back. A notebook shows them as an HTML table (``_repr_html_``); ``repr()``/``str()`` (a console, a
``print``) are the text ``evaluate.py`` prints for the same run.
"""

from __future__ import annotations

import copy
import html
import os
from typing import Any, Sequence

from connectx_toolkit.outcomes import Verdict

__all__ = ["AnalysisReport", "GateReport", "LeagueReport", "MatchResult", "Report", "html_table", "paragraph"]

STYLE = ("<style>.cx-report table{border-collapse:collapse;margin:4px 0}"
         ".cx-report th,.cx-report td{padding:2px 8px;border-bottom:1px solid #8884;text-align:right}"
         ".cx-report th:first-child,.cx-report td.cx-name{text-align:left}"
         ".cx-report td.cx-text{text-align:left}"
         ".cx-report .cx-pass{color:#1e7d3a;font-weight:700}.cx-report .cx-fail{color:#c0392b;font-weight:700}"
         ".cx-report p{margin:4px 0}</style>")


class Report(dict):
    """A ``--json`` report; subclasses say how it reads as text and as HTML."""

    def to_dict(self) -> dict[str, Any]:
        """The report as the plain JSON object ``evaluate.py --json`` prints (a deep copy)."""
        return copy.deepcopy(dict(self))

    def text(self) -> str:
        raise NotImplementedError

    def html(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.text()

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return f'<div class="cx-report">{STYLE}{self.html()}</div>'

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's console (not a dict's pretty print)
        printer.text(self.text())


class MatchResult(Report):
    """``play_match``'s result: ``evaluate.py A B --json``'s object; shown as the match table."""

    def text(self) -> str:
        from connectx_toolkit.evaluation.reports.summary import table

        return table(self) + (f"\nresults: {self['results']}" if self.get("results") else "")

    def html(self) -> str:
        from connectx_toolkit.evaluation.reports.summary import table_parts

        parts = table_parts(self)
        rows = html_table(parts.columns, parts.rows)
        notes = [*parts.reasons, parts.tail, *parts.extra]
        if self.get("results"):
            notes.append(f"results: {self['results']}")
        return paragraph(parts.head) + rows + "".join(paragraph(note) for note in notes)


class GateReport(Report):
    """``run_gate``'s report: ``evaluate.py --gate --json``'s object; shown as the checks and the verdict."""

    def text(self) -> str:
        from connectx_toolkit.evaluation.gate import render_report

        return render_report(self)

    def html(self) -> str:
        passed = self["verdict"] == Verdict.PASS
        verdict = (f'<span class="cx-{"pass" if passed else "fail"}">{self["verdict"]}</span>'
                   + (f" ({self['games']} games, {self.get('elapsed_s', 0):g} s)" if passed else ""))
        head = ""
        if self["candidate"] is not None:
            config = self["config"]
            head = paragraph(f"gate: {self['candidate']} against baseline {self['baseline']} (act timeout "
                      f"{self['act_timeout']:g} s, {config['rows']}x{config['columns']} in a row {config['inarow']})")
        rows = [[check["name"], {True: "ok", False: "FAIL", None: "--"}[check["passed"]], check["detail"],
                 f"{check['seconds']:g}" if "seconds" in check else ""] for check in self["checks"]]
        body = html_table(["check", "", "detail", "s"], rows, text_columns=(1, 2))
        lists = "".join(f"<p>{title}</p><ul>{''.join(f'<li>{html.escape(item)}</li>' for item in items)}</ul>"
                        for title, items in (("Reasons:", self["reasons"]), ("Warnings:", self["warnings"])) if items)
        return f"<p>{verdict}</p>" + head + body + lists


class LeagueReport(Report):
    """``league``'s report: ``evaluate.py --league --json``'s object; shown as the rating and cross tables."""

    def text(self) -> str:
        from connectx_toolkit.evaluation.league import render_table

        return render_table(self) + "\n\n" + "\n".join(f"saved {path}" for path in self.saved())

    def saved(self) -> list[str]:
        """The files the league wrote (its games are in ``games.jsonl`` beside them)."""
        return [os.path.join(self["out"], name) for name in ("league.md", "league.json", "league.png")]

    def html(self) -> str:
        from connectx_toolkit.evaluation.league import table_rows

        ratings, cross, intro = table_rows(self)
        return (paragraph(intro) + html_table(*ratings, text_columns=(1,)) + paragraph("Score of the row agent against the column agent:")
                + html_table(*cross, text_columns=(1,)) + paragraph("saved " + ", ".join(self.saved())))


class AnalysisReport(Report):
    """``analyze``'s report: ``evaluate.py --analyze-file FILE --json``'s object (``{"analysis": ...}``); shown
    as the analysis table the command prints, which the analysis renders from its labelled games (kept here
    beside the object: the object alone does not hold every row)."""

    def __init__(self, data: dict[str, Any], table: str = "") -> None:
        super().__init__(data)
        self.table = table

    def text(self) -> str:
        return self.table

    def html(self) -> str:
        return f'<pre class="cx-text">{html.escape(self.table)}</pre>'


def paragraph(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def html_table(head: Sequence[str], rows: Sequence[Sequence[str]], text_columns: Sequence[int] = ()) -> str:
    """An HTML table; the first column (the names) and ``text_columns`` left-aligned, numbers right."""
    def cell(index: int, value: str) -> str:
        kind = "cx-name" if index == 0 else "cx-text" if index in text_columns else ""
        return f'<td class="{kind}">{html.escape(value)}</td>' if kind else f"<td>{html.escape(value)}</td>"

    header = "".join(f"<th>{html.escape(title)}</th>" for title in head)
    body = "".join("<tr>" + "".join(cell(i, value) for i, value in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"
