"""The accuracy report: one JSON object (``connectx accuracy --json``), its text for a terminal, its HTML table
for a notebook, and the answers file.

:func:`build_report` turns the answers into the object; :class:`AccuracyReport` is that object as a dict that
a notebook shows as a table (the pattern of ``evaluation.display``). The object's keys:

- ``benchmark``: ``source``, ``games``, ``positions`` ({set: count}), ``by_phase`` ({set: {phase: count}}); with
  ``--positions``, ``left_out``: the positions of the file not asked, and why (:func:`left_out_figures`);
- ``agents``: one :func:`measuring.scoring.agent_accuracy` object per agent, in the order they answered;
- ``comparisons``: every pair of agents per set (:func:`measuring.paired.compare`);
- ``positions_files`` (with ``--positions``): one section per file (:func:`file_figures`): its positions asked and left out,
  its sample, and each agent's accuracy and **error rate** there (AlphaZero.jl's measure on Pons' sets: a move is
  an error when another move has a strictly better outcome; a forfeit is an error), beside AlphaZero.jl's
  published figures for Pons' sets;
- ``elapsed_s``: the run's wall time (when the caller gives it);
- ``files``: {"answers": path, "plot": path} of the files written (absent until the caller writes them).
"""

from __future__ import annotations

import html
import json
import os
from typing import Any, Iterable, Sequence

from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import BLUNDERS, PHASES, SETS, Benchmark
from connectx_toolkit.measuring.paired import ALPHA, comparisons
from connectx_toolkit.measuring.plot import save_accuracy_plot
from connectx_toolkit.measuring.scoring import TIME_NOTE, agent_accuracy, share
from connectx_toolkit.atomic import write_atomically
from connectx_toolkit.evaluation.display import Report, html_table, paragraph

__all__ = ["AccuracyReport", "build_report", "file_figures", "left_out_figures", "left_out_line", "render_text", "write_answers",
           "write_plot"]

PHASE_NAMES = tuple(name for name, _, _ in PHASES)


class AccuracyReport(Report):
    """``accuracy``'s report: ``connectx accuracy --json``'s object; shown as the accuracy table."""

    def text(self) -> str:
        return render_text(self)

    def html(self) -> str:
        parts = [paragraph(benchmark_line(self)), *(paragraph(line) for line in left_out_lines(self)),
                 html_table(*summary_rows(self), text_columns=(1,)),
                 paragraph(f"Time per move in seconds ({TIME_NOTE}); forfeits:"), html_table(*time_rows(self))]
        if self.get("positions_files"):
            parts += [paragraph(f"Per file ({ERROR_NOTE}):"), html_table(*file_rows(self), text_columns=(1, 2)),
                      *(paragraph(line) for line in file_lines(self))]
        for title, lines in sections(self):
            parts.append(f"<p>{html.escape(title)}</p><ul>"
                         + "".join(f"<li>{html.escape(line)}</li>" for line in lines) + "</ul>")
        return "".join(parts)


def build_report(benchmark: Benchmark, answers: dict[str, Sequence[Answer]], worst: int = 10,
                 elapsed_s: float | None = None, alpha: float = ALPHA) -> AccuracyReport:
    """The report of each agent's answers (``{agent: answers}``, in the table's order) to ``benchmark``'s
    positions, each agent's ``worst`` worst positions in it, every pair of agents compared."""
    positions = {name: benchmark.of_set(name) for name in SETS}
    report = AccuracyReport({
        "benchmark": {"source": benchmark.source, "games": len(benchmark.games),
                      "positions": {name: len(chosen) for name, chosen in positions.items()},
                      "by_phase": {name: {phase: sum(p.phase == phase for p in chosen) for phase in PHASE_NAMES}
                                   for name, chosen in positions.items()},
                      **({"left_out": left_out} if (left_out := left_out_figures(benchmark.metadata)) else {})},
        "agents": [dict(agent_accuracy(found, worst), agent=name) for name, found in answers.items()],
        "comparisons": comparisons(answers, alpha),
    })
    if "files" in benchmark.metadata:
        report["positions_files"] = [file_figures(entry, answers) for entry in benchmark.metadata["files"]]
    if elapsed_s is not None:
        report["elapsed_s"] = elapsed_s
    return report


ERROR_NOTE = ("error rate: a move is an error when another move has a strictly better outcome (win, draw or loss "
              "with perfect play; AlphaZero.jl's measure on Pons' sets); a forfeit is an error")


def file_figures(entry: dict[str, Any], answers: dict[str, Sequence[Answer]]) -> dict[str, Any]:
    """One file of ``--positions`` (its entry in the benchmark's ``metadata["files"]``): ``source``, ``set`` and
    ``title`` (a Pons set, else None), ``published`` (AlphaZero.jl's error rates in %, for a Pons set), the file's
    ``file_games``, the ``sample`` taken ({size, of, seed} or None), ``positions`` asked, ``left_out``
    (:func:`left_out_figures`), ``searched`` (positions the labelling searched; 0 when all came from the cache),
    ``scores_checked`` and ``score_mismatches`` (lines whose given score the label's best contradicts), and per
    agent its ``positions``, ``accurate``, ``accuracy`` with ``low``/``high`` (Wilson 95 %), ``errors`` and
    ``error_rate`` with ``error_low``/``error_high``, and ``forfeits``."""
    first, last = entry["first_id"], entry["last_id"]
    agents = []
    for name, found in answers.items():
        mine = [a for a in found if first <= a.position.game <= last]
        figures = share(sum(a.accurate for a in mine), len(mine))
        figures.update(agent=name, errors=len(mine) - figures["accurate"],
                       error_rate=None if figures["accuracy"] is None else 1 - figures["accuracy"],
                       error_low=None if figures["high"] is None else 1 - figures["high"],
                       error_high=None if figures["low"] is None else 1 - figures["low"],
                       forfeits=sum(a.forfeit is not None for a in mine))
        agents.append(figures)
    return {"source": entry["source"], "set": entry["set"], "title": entry["title"], "published": entry["published"],
            "file_games": entry["file_games"], "sample": entry["sample"], "positions": entry["positions"],
            "left_out": left_out_figures(entry), "searched": entry["searched"],
            "scores_checked": entry["scores_checked"], "score_mismatches": entry["score_mismatches"],
            "agents": agents}


def file_name(section: dict[str, Any]) -> str:
    return section["set"] or os.path.basename(section["source"])


def sample_line(section: dict[str, Any]) -> str:
    """What was asked of the file: "sample of 100 of 1000 (seed 1)" or "all 1000"."""
    sample = section["sample"]
    if sample is not None:
        return f"sample of {sample['size']} of {sample['of']} (seed {sample['seed']})"
    return f"all {section['file_games']}"


def file_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per file and agent: the file's games asked (all or a seeded sample), positions asked and left out,
    accuracy and error rate with their 95 % intervals, and AlphaZero.jl's published error rates for a Pons set."""
    head = ["file", "of the file", "agent", "asked", "left out", "accuracy (95% CI)", "error rate (95% CI)",
            "AlphaZero.jl / its minimax"]
    rows = []
    for section in report.get("positions_files", []):
        published = section["published"]
        theirs = "-" if published is None else f"{published['alphazero']:g}% / {published['minimax']:g}%"
        for agent in section["agents"]:
            error = "-" if agent["error_rate"] is None else (
                f"{percent(agent['error_rate'])} ({100 * agent['error_low']:.1f}-{100 * agent['error_high']:.1f})")
            rows.append([file_name(section), sample_line(section), agent["agent"], str(agent["positions"]),
                         str(section["left_out"]["positions"]), with_interval(agent), error, theirs])
    return head, rows


def file_lines(report: dict[str, Any]) -> list[str]:
    """Under the per-file table: each file's source, what its left-out positions were, and any label that
    contradicts the score the file gives."""
    lines = []
    for section in report.get("positions_files", []):
        left = section["left_out"]
        why = "; ".join(f"{reason['positions']} {reason['reason']}" for reason in left["by_reason"].values()
                        if reason["positions"])
        title = f"{section['title']}, " if section["title"] else ""
        lines.append(f"{file_name(section)}: {title}{section['source']}; {sample_line(section)}; "
                     f"{section['positions']} asked, {left['positions']} left out" + (f" ({why})" if why else "")
                     + f"; {section['searched']} searched by the solver (the rest from the book, the rules or the cache)")
        if section["score_mismatches"]:
            lines.append(f"  WARNING: {len(section['score_mismatches'])} of {section['scores_checked']} labels "
                         f"contradict the score the file gives (lines {', '.join(map(str, section['score_mismatches'][:10]))})")
    return lines


def left_out_figures(metadata: dict[str, Any]) -> dict[str, Any] | None:
    """What ``--positions`` left out of its file (``measuring.positions_file``'s metadata), None for a benchmark
    that was not labelled here: ``positions`` (left out), ``of`` (the file's positions, a position several games
    reach counted in each) and ``distinct`` (its distinct boards), ``by_phase`` ({phase: count}), ``by_reason``
    ({reason: {reason, positions, by_phase}}: ``early``, ``budget``) and ``moves`` (their move strings)."""
    reasons = metadata.get("left_out_by_reason")
    if not isinstance(reasons, dict):
        return None
    return {"positions": metadata["left_out"], "of": metadata["file_positions"],
            "distinct": metadata["distinct_positions"],
            "by_phase": {phase: sum(reason["by_phase"][phase] for reason in reasons.values()) for phase in PHASE_NAMES},
            "by_reason": reasons, "moves": metadata["left_out_positions"]}


def left_out_line(figures: dict[str, Any] | None) -> str:
    """One line of :func:`left_out_figures`: how many of the file's positions were left out, by phase ("" for
    None: a benchmark not labelled here)."""
    if figures is None:
        return ""
    count, of = figures["positions"], figures["of"]
    file = f"the file's {of} position{'' if of == 1 else 's'} ({figures['distinct']} distinct)"
    if not count:
        return f"left out: none of {file}"
    phases = ", ".join(f"{phase}: {n}" for phase, n in figures["by_phase"].items())
    return f"left out: {count} of {file}, not labelled exactly within the budget ({phases})"


def left_out_lines(report: dict[str, Any]) -> list[str]:
    """The line of :func:`left_out_line` and one line per reason that left a position out (none without --positions)."""
    figures = report["benchmark"].get("left_out")
    if figures is None:
        return []
    lines = [left_out_line(figures)]
    for reason in figures["by_reason"].values():
        if reason["positions"]:
            phases = ", ".join(f"{phase}: {n}" for phase, n in reason["by_phase"].items() if n)
            lines.append(f"  {reason['positions']} {reason['reason']}: {phases}")
    return lines


def write_answers(path: str, answers: Iterable[Answer]) -> str:
    """Write every answer as one JSON line (``Answer.to_json``), whole or not at all; return the path."""
    text = "".join(json.dumps(answer.to_json(), ensure_ascii=False) + "\n" for answer in answers)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomically(path, text)
    return path


def write_plot(path: str, answers: dict[str, Sequence[Answer]], source: str = "") -> str:
    """The PNG of accuracy by ply of each agent's answers (``measuring.plot``), whole or not at all."""
    return save_accuracy_plot([dict(agent_accuracy(found, 0), agent=name) for name, found in answers.items()],
                              path, source)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def with_interval(figures: dict[str, Any]) -> str:
    if figures["accuracy"] is None:
        return "-"
    return f"{percent(figures['accuracy'])} ({100 * figures['low']:.1f}-{100 * figures['high']:.1f})"


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def benchmark_line(report: dict[str, Any]) -> str:
    bench = report["benchmark"]
    phases = ", ".join(f"{phase}: {count}" for phase, count in bench["by_phase"]["all"].items())
    return (f"accuracy against perfect play: {bench['source']}, {bench['games']} game{'' if bench['games'] == 1 else 's'}, "
            f"{bench['positions']['all']} positions ({phases}), {bench['positions']['critical']} critical")


def summary_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per agent and set: positions, accuracy with its 95 % interval, by phase, best share, blunders."""
    head = ["agent", "set", "positions", "accuracy (95% CI)", *PHASE_NAMES, "best", *BLUNDERS]
    rows = []
    for agent in report["agents"]:
        for name in SETS:
            figures = agent["sets"][name]
            rows.append([agent["agent"], name, str(figures["positions"]), with_interval(figures),
                         *(percent(figures["by_phase"][phase]["accuracy"]) for phase in PHASE_NAMES),
                         percent(figures["best_share"]), *(str(figures["blunders"][kind]) for kind in BLUNDERS)])
    return head, rows


def time_rows(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """One row per agent: time per move and forfeits by kind."""
    kinds = list(report["agents"][0]["forfeits"]["by_kind"]) if report["agents"] else []
    head = ["agent", "moves", "mean", "median", "95th pct", "max", *kinds]
    rows = []
    for agent in report["agents"]:
        time = agent["time"]
        rows.append([agent["agent"], str(time["moves"]), seconds(time["mean_s"]), seconds(time["median_s"]),
                     seconds(time["p95_s"]), seconds(time["max_s"]),
                     *(str(agent["forfeits"]["by_kind"][kind]) for kind in kinds)])
    return head, rows


def worst_line(entry: dict[str, Any]) -> str:
    scores = " ".join("x" if score is None else str(score) for score in entry["scores"])
    played = (f"played {entry['column']} (score {entry['score']}, best {entry['best_score']})"
              if entry["column"] is not None else f"no move: {entry['reason']}")
    return (f"{entry['agent']}: game {entry['game']}, ply {entry['ply']}, {entry['verdict']}, {played}; "
            f"scores by column {scores}; {entry['command']}")


def sections(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """The titled lists below the tables: comparisons, worst positions, forfeits with reasons (empty ones left
    out), then the files written."""
    found = [("comparisons:", [entry["verdict"] for entry in report["comparisons"]]),
             ("worst positions (win→loss, then draw→loss, then win→draw, the larger score lost first; then forfeits):",
              [worst_line(entry) for agent in report["agents"] for entry in agent["worst"]]),
             ("forfeits:", [f"{agent['agent']}: {group['count']} {group['kind']}: {group['reason'] or 'no reason given'}"
                            f" (first at game {group['game']}, ply {group['ply']}, moves {group['moves'] or '(empty board)'})"
                            for agent in report["agents"] for group in agent["forfeits"]["reasons"]]),
             ("files:", [f"{kind}: {path}" for kind, path in report.get("files", {}).items()])]
    return [(title, lines) for title, lines in found if lines]


def aligned(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """A text table: the first ``left`` columns left-aligned, the numbers right-aligned, a rule under the head."""
    table = [list(head), *map(list, rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i < left else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
             for row in table]
    return [lines[0], "-" * len(lines[0]), *lines[1:]]


def render_text(report: dict[str, Any]) -> str:
    """The report for a terminal: the accuracy table, time and forfeits, then the titled lists."""
    lines = [benchmark_line(report), *left_out_lines(report), *aligned(*summary_rows(report), left=2), "",
             f"time per move in seconds ({TIME_NOTE}); forfeits by kind:", *aligned(*time_rows(report))]
    if report.get("positions_files"):
        lines += ["", f"per file ({ERROR_NOTE}):", *aligned(*file_rows(report), left=3), *file_lines(report)]
    for title, items in sections(report):
        lines += ["", title, *(f"  {item}" for item in items)]
    return "\n".join(lines)

