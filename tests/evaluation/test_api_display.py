"""The Python API's results: dicts equal to the --json object, shown as the command line's tables (text and
HTML); the gate's text is exactly what the command line prints; the "full rights" notice once per process."""

from __future__ import annotations

import html
import json
import os
import pickle

import pytest

from connectx_toolkit.sandbox import bubblewrap
from connectx_toolkit.evaluation import gate, league
from connectx_toolkit.evaluation.reports import summary
from connectx_toolkit.evaluation.api import GateSettings, LeagueSettings, play_match, run_gate, run_league
from connectx_toolkit.evaluation.display import GateReport, LeagueReport, MatchResult
from tests.helpers import REPO

ROOT = REPO
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def leftmost(obs, config):
    return [c for c in range(config.columns) if obs.board[c] == 0][0]


def test_a_match_result_is_the_json_object_and_shows_the_table():
    def first_free(obs, config):  # a notebook's function: its name, test_...<locals>.first_free, needs escaping
        return leftmost(obs, config)

    result = play_match(first_free, "random", games=4, workers=1, seed=1, progress=False)
    assert isinstance(result, MatchResult) and isinstance(result, dict)
    plain = result.to_dict()
    assert type(plain) is dict and type(dict(result)) is dict and dict(result) == plain == result
    assert json.loads(json.dumps(result)) == plain  # json.dumps takes it as the dict it is
    assert result["agents"][0]["score"] == plain["agents"][0]["score"]  # indexing as before
    assert pickle.loads(pickle.dumps(result)) == plain
    plain["agents"][0]["score"] = -1.0
    assert result["agents"][0]["score"] != -1.0  # to_dict() is a copy
    # text: what evaluate.py prints for a match (its table; no results file was asked for)
    assert repr(result) == str(result) == summary.table(dict(result))
    page = result._repr_html_()
    parts = summary.table_parts(result)
    for cell in [*parts.columns, *(cell for row in parts.rows for cell in row)]:
        assert f">{html.escape(cell)}<" in page
    assert "<locals>" not in page and "&lt;locals&gt;.first_free" in page
    assert html.escape(parts.tail) in page and html.escape(parts.head) in page


def test_a_named_results_file_is_in_the_text(tmp_path):
    path = str(tmp_path / "run.jsonl")
    result = play_match("greedy", "random", games=2, workers=1, results=path, progress=False)
    assert str(result).endswith(f"\nresults: {path}") and f"results: {html.escape(path)}" in result._repr_html_()


def test_the_gate_report_reads_as_the_command_line_prints_it():
    settings = GateSettings(os.path.join(FIXTURES, "gate_agents", "numpy_int.py"), "greedy", games=20, workers=1)
    said: list[str] = []
    report = gate.run(settings, log=said.append)  # what evaluate.py --gate prints line by line, then the verdict
    shown = GateReport(report)
    assert str(shown) == "\n".join([*said, gate.render_verdict(report)])
    assert dict(shown) == report and shown["verdict"] == "FAIL"
    page = shown._repr_html_()
    assert '<span class="cx-fail">FAIL</span>' in page
    assert all(html.escape(reason) in page for reason in report["reasons"])
    assert all(f">{check['name']}<" in page for check in report["checks"])


def test_run_gate_returns_a_report_object():
    candidate = os.path.join(FIXTURES, "eval_agents", "no_callable.py")
    report = run_gate(GateSettings(candidate, "greedy"), progress=False)
    assert isinstance(report, GateReport) and report["verdict"] == "FAIL" and report["candidate"] == candidate
    lines = str(report).splitlines()  # a candidate that never loaded: the header, the checks not run, the reason
    assert lines[0].startswith(f"gate: {candidate} against baseline greedy (act timeout 2 s")
    assert lines[1].startswith("  load        FAIL  ") and lines[2] == "  smoke       --    not run (an earlier check failed)"
    assert lines[-2:] == ["FAIL", f"  - {report['reasons'][0]}"] and "defines no callable" in lines[-1]


def test_a_league_report_reads_as_the_command_line_prints_it(tmp_path):
    report = run_league(LeagueSettings(("greedy", "random", os.path.join(FIXTURES, "gate_agents", "leftmost.py")), games=2, workers=1,
                                       directory=str(tmp_path / "league")), progress=False)
    assert isinstance(report, LeagueReport) and set(report) == set(json.load(open(tmp_path / "league" / "league.json")))
    saved = [str(tmp_path / "league" / name) for name in ("league.md", "league.json", "league.png")]
    assert str(report) == league.render_table(report) + "\n\n" + "\n".join(f"saved {path}" for path in saved)
    assert all(os.path.exists(path) for path in saved)
    page = report._repr_html_()
    assert page.count("<table>") == 2 and all(f">{name}<" in page for name in ("leftmost.py", "random", "greedy"))


@pytest.fixture
def fresh_notice(monkeypatch):
    monkeypatch.setattr(bubblewrap, "_outside_said", False)


def test_the_full_rights_notice_is_said_once_per_process(tmp_path, capsys, fresh_notice):
    bot = tmp_path / "my_bot.py"
    bot.write_text("def agent(obs, config):\n    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n")
    for _ in range(2):
        play_match(str(bot), "random", games=2, workers=1, progress=False)
    err = capsys.readouterr().err
    notices = [line for line in err.splitlines() if "full rights" in line]
    assert len(notices) == 1 and str(bot) in notices[0] and "pass sandbox=True" in notices[0], err
    play_match(leftmost, "random", games=2, workers=1, progress=False)
    assert "full rights" not in capsys.readouterr().err


def test_the_notice_waits_for_a_file_from_outside(tmp_path, capsys, fresh_notice):
    assert not bubblewrap.say_outside_note(["greedy", os.path.join(ROOT, "agents", "greedy.py")], "x")
    bot = tmp_path / "b.py"
    bot.write_text("x = 1\n")
    assert bubblewrap.say_outside_note([str(bot)], "evaluation.api", advice="pass sandbox=True")
    assert not bubblewrap.say_outside_note([str(bot)], "evaluation.api")
    assert capsys.readouterr().err.count("full rights") == 1


class RecordingBar:
    """tqdm's interface, remembering what the gate told it."""

    def __init__(self, total: int, **options) -> None:
        self.total, self.n, self.descriptions, self.closed = total, 0, [], False

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_description(self, desc: str) -> None:
        self.descriptions.append(desc)

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def close(self) -> None:
        self.closed = True


def test_the_gates_bar_counts_its_games_by_check_and_ends_full(monkeypatch):
    from connectx_toolkit.evaluation.reports import progress

    bars: list[RecordingBar] = []
    monkeypatch.setattr(progress, "progress_bar", lambda total, **options: bars.append(RecordingBar(total)) or bars[-1])
    settings = GateSettings(os.path.join(FIXTURES, "gate_agents", "numpy_int.py"), "greedy", games=20, workers=1)
    report = run_gate(settings)  # fails at the smoke check: 2 of the 39 games it could have played
    [bar] = bars
    assert gate.most_games(settings) == 2 + 1 + 20 + 2 * 2 * 4 == 39
    assert bar.descriptions == ["gate: smoke"] and bar.n == report["games"] == 2
    assert bar.total == 2 and bar.closed  # ended full, not as an interrupted bar
    run_gate(settings, progress=False)
    assert len(bars) == 1


def test_a_matchs_bar_counts_every_game_unless_turned_off(monkeypatch):
    from connectx_toolkit.evaluation.reports import progress

    bars: list[RecordingBar] = []
    monkeypatch.setattr(progress, "progress_bar", lambda total, **options: bars.append(RecordingBar(total)) or bars[-1])
    play_match("greedy", "random", games=4, workers=1)
    assert [(bar.total, bar.n, bar.closed) for bar in bars] == [(4, 4, True)]
    play_match("greedy", "random", games=4, workers=1, progress=False)
    assert len(bars) == 1
