"""The accuracy report's figures from hand-made answers: intervals, McNemar, blunders, forfeits, the worst
positions' order, and the outputs (JSON, HTML, text, PNG, the answers file) written whole or not at all."""

import doctest
import html
import json
import os

import pytest

from connectx_toolkit.measuring import paired, scoring
from connectx_toolkit.measuring.answers import Answer
from connectx_toolkit.measuring.benchmark import Benchmark, LabelledPosition, SourceGame
from connectx_toolkit.measuring.paired import compare, comparisons
from connectx_toolkit.measuring.plot import save_accuracy_plot
from connectx_toolkit.measuring.report import AccuracyReport, build_report, write_answers, write_plot
from connectx_toolkit.measuring.scoring import agent_accuracy, by_agent, worst_answers
from connectx_toolkit.evaluation.reports import stats
from connectx_toolkit.evaluation.reports.stats import mcnemar_exact, wilson_interval
from connectx_toolkit.outcomes import Outcome

# The empty board: column 4 (index 3) wins, 3 and 5 draw, the rest lose: critical, a win.
START = LabelledPosition(0, 0, "", (-2, -1, 0, 1, 0, -1, -2))
# After "4": every column loses for the mover: never critical.
LOST = LabelledPosition(0, 1, "4", (-3, -2, -2, -1, -2, -2, -3))
# A draw at ply 14 (column 4 full): columns 2 and 6 keep the draw, the others lose.
DRAW = LabelledPosition(1, 14, "44444433333322", (-1, 0, -2, None, -3, 0, -1))
# A win at ply 26 with a win→draw (column 3) and win→loss (column 7).
LATE = LabelledPosition(2, 26, "44444433333322222255555566", (3, 1, 0, None, 2, 1, -4))


# A real game's position of 24 stones: solved at once, exact whatever the budget (analysis.scores.AT_ONCE_STONES)
PLAYED = "444443437666633353767715"


def benchmark(*positions: LabelledPosition) -> Benchmark:
    games = {}
    for position in positions:
        games.setdefault(position.game, []).append(position)
    return Benchmark(tuple(SourceGame(game, tuple(int(c) - 1 for c in max(found, key=lambda p: p.ply).moves),
                                      ("x", "y"), tuple(found)) for game, found in games.items()),
                     source="hand-made")


def test_wilson_matches_known_values():
    for successes, trials, low, high in [(8, 10, 0.4902, 0.9433), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0),
                                         (50, 100, 0.4038, 0.5962), (95, 100, 0.8882, 0.9785)]:
        interval = wilson_interval(successes, trials)
        assert interval.value == successes / trials
        assert (round(interval.low, 4), round(interval.high, 4)) == (low, high)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_mcnemar_is_the_exact_two_sided_binomial():
    assert mcnemar_exact(10, 1) == 0.01171875  # 2 * (1 + 11) / 2**11
    assert mcnemar_exact(1, 10) == 0.01171875
    assert mcnemar_exact(5, 0) == 0.0625  # 2 / 2**5
    assert mcnemar_exact(14, 2) == pytest.approx(2 * (1 + 16 + 120) / 2 ** 16)
    assert mcnemar_exact(0, 0) == mcnemar_exact(4, 4) == 1.0
    assert mcnemar_exact(600, 400) < 1e-9  # large counts stay exact, with no overflow


def test_blunders_best_share_and_phases_per_set():
    answers = [Answer("a", START, 3, 0.1), Answer("a", LOST, 6, 0.1), Answer("a", DRAW, 0, 0.1),
               Answer("a", LATE, 2, 0.1), Answer("a", LATE, 6, 0.1), Answer("a", LATE, 1, 0.1)]
    figures = agent_accuracy(answers)
    every, critical = figures["sets"]["all"], figures["sets"]["critical"]
    assert figures["positions"] == every["positions"] == 6
    assert critical["positions"] == 5  # LOST is not critical
    assert every["accurate"] == 3  # START best, LOST kept (a loss stays a loss), LATE column 2 kept
    assert every["best"] == 1 and critical["best"] == 1 and every["best_share"] == pytest.approx(1 / 6)
    assert every["blunders"] == {"win→draw": 1, "win→loss": 1, "draw→loss": 1}
    assert critical["blunders"] == every["blunders"]
    assert {phase: entry["positions"] for phase, entry in every["by_phase"].items()} == {
        "0-11": 2, "12-23": 1, "24-41": 3}
    assert every["by_phase"]["0-11"]["accuracy"] == 1.0 and every["by_phase"]["12-23"]["accuracy"] == 0.0
    interval = wilson_interval(3, 6)
    assert (every["low"], every["high"]) == (interval.low, interval.high)
    assert [row["ply"] for row in figures["by_ply"]] == [0, 1, 14, 26]
    assert figures["by_ply"][1] == {"ply": 1, "all": {"positions": 1, "accurate": 1},
                                    "critical": {"positions": 0, "accurate": 0}}
    assert figures["by_ply"][3]["critical"] == {"positions": 3, "accurate": 1}


def test_an_empty_set_has_no_share():
    figures = agent_accuracy([Answer("a", LOST, 0, 0.2)])
    critical = figures["sets"]["critical"]
    assert critical["positions"] == 0 and critical["accuracy"] is critical["low"] is critical["best_share"] is None


def test_time_per_move_over_the_timed_answers():
    answers = [Answer("a", START, 3, float(s)) for s in range(1, 21)] + [Answer("a", LOST, 0, None)]
    time = agent_accuracy(answers)["time"]
    assert time["moves"] == 20 and time["mean_s"] == 10.5 and time["median_s"] == 10.5 and time["max_s"] == 20.0
    assert time["p95_s"] == pytest.approx(19.05)  # linear between the 19th and 20th of 20
    assert "load" in time["note"]
    assert agent_accuracy([Answer("a", START, 3, None)])["time"]["mean_s"] is None


def test_forfeits_grouped_by_kind_and_reason_with_their_first_position():
    answers = [Answer("a", START, None, 0.1, Outcome.INVALID, "column 4 is full"),
               Answer("a", LATE, None, 2.5, Outcome.TIMEOUT, "no answer in time"),
               Answer("a", DRAW, None, 0.1, Outcome.INVALID, "column 4 is full"),
               Answer("a", LOST, None, None, Outcome.TIMEOUT, "not reached: timeout at ply 0"),
               Answer("a", DRAW, None, 0.1, Outcome.ERROR, "ValueError: boom")]
    forfeits = agent_accuracy(answers)["forfeits"]
    assert forfeits["total"] == 5 and forfeits["by_kind"] == {"invalid": 2, "error": 1, "timeout": 2}
    assert [(g["kind"], g["reason"], g["count"], g["moves"]) for g in forfeits["reasons"]] == [
        ("invalid", "column 4 is full", 2, ""), ("timeout", "no answer in time", 1, LATE.moves),
        ("timeout", "not reached: timeout at ply 0", 1, "4"), ("error", "ValueError: boom", 1, DRAW.moves)]
    assert agent_accuracy(answers)["sets"]["all"]["accurate"] == 0  # a forfeit is never accurate


def test_worst_positions_order_blunders_by_kind_then_forfeits_never_the_positions_not_reached():
    answers = [Answer("a", START, 2, 0.1),  # win→draw, 1 lost
               Answer("a", LATE, 2, 0.1),  # win→draw, 3 lost
               Answer("a", DRAW, 0, 0.1),  # draw→loss
               Answer("a", LATE, 6, 0.1),  # win→loss
               Answer("a", DRAW, None, 0.1, Outcome.ERROR, "boom"),  # a forfeit in a drawn position
               Answer("a", START, None, 0.1, Outcome.TIMEOUT, "slow"),  # a forfeit in a won position
               Answer("a", LOST, None, None, Outcome.TIMEOUT, "not reached: slow"),
               Answer("a", START, 3, 0.1), Answer("a", LOST, 0, 0.1)]  # accurate: never worst
    order = [(a.position.ply, a.verdict, a.column) for a in worst_answers(answers, 10)]
    assert order == [(26, "win→loss", 6), (14, "draw→loss", 0), (26, "win→draw", 2), (0, "win→draw", 2),
                     (0, "timeout", None), (14, "error", None)]
    assert len(worst_answers(answers, 2)) == 2 and worst_answers(answers, 0) == []
    entry = agent_accuracy(answers, worst=1)["worst"][0]
    assert entry == {"agent": "a", "game": 2, "ply": 26, "moves": LATE.moves, "phase": "24-41", "critical": True,
                     "outcome": "win", "column": 7, "verdict": "win→loss", "score": -4, "best_score": 3,
                     "score_lost": 7, "scores": [3, 1, 0, None, 2, 1, -4], "reason": None,
                     "command": f"connectx board --position {LATE.moves}"}
    assert agent_accuracy([Answer("a", START, 0)])["worst"][0]["command"] == "connectx board --position ''"


def test_paired_comparison_counts_discordant_positions_per_set():
    positions = [LabelledPosition(g, 0, "", START.scores) for g in range(12)] + [
        LabelledPosition(g, 1, "4", LOST.scores) for g in range(12)]
    good = [Answer("good", p, 3 if p.ply == 0 and p.game != 11 else 0) for p in positions]
    bad = [Answer("bad", p, 3 if p.ply == 0 and p.game in (0, 11) else 0) for p in positions]
    critical = compare(good, bad)[1]
    assert (critical["set"], critical["positions"], critical["only_first_wrong"], critical["only_second_wrong"]) == (
        "critical", 12, 1, 10)
    assert critical["p_value"] == 0.01171875 and critical["more_accurate"] == "good"
    assert critical["verdict"] == ("good is more accurate than bad on the critical set: 10 positions only bad got "
                                   "wrong, 1 only good (McNemar exact p = 0.0117)")
    assert compare(good, bad)[0]["positions"] == 24  # the lost positions: both accurate
    reverse = compare(bad, good)[1]
    assert reverse["more_accurate"] == "good" and reverse["verdict"].startswith("good is more accurate than bad")
    even = compare(good[:3], bad[:3])[1]  # games 1 and 2: 2 only bad got wrong, 0 only good: p = 0.5
    assert even["more_accurate"] is None and even["verdict"] == (
        "no significant difference between good and bad on the critical set: 2 positions only bad got wrong, "
        "0 only good (McNemar exact p = 0.5)")
    assert compare(good[:2], bad[1:3])[0]["unpaired"] == 2  # matched by (game, ply): one each has no partner
    with pytest.raises(ValueError, match="two answers of good"):
        compare(good + good[:1], bad)


def test_every_pair_of_three_agents():
    answers = [Answer(name, START, 3) for name in ("a", "b", "c")]
    assert comparisons(answers) == comparisons(by_agent(answers))
    assert [(c["first"], c["second"], c["set"]) for c in comparisons(answers)] == [
        ("a", "b", "all"), ("a", "b", "critical"), ("a", "c", "all"), ("a", "c", "critical"),
        ("b", "c", "all"), ("b", "c", "critical")]


def two_agents_report(**options):
    answers = [Answer("alpha", START, 3, 0.4), Answer("alpha", LOST, 0, 0.01), Answer("alpha", DRAW, 1, 0.02),
               Answer("alpha", LATE, 0, 0.03),
               Answer("beta", START, 2, 0.1), Answer("beta", LOST, 3, 0.01), Answer("beta", DRAW, 0, 0.02),
               Answer("beta", LATE, None, 2.5, Outcome.TIMEOUT, "no answer within the bank")]
    return answers, build_report(benchmark(START, LOST, DRAW, LATE), by_agent(answers), **options)


def test_the_report_is_one_json_object_that_reads_back_equal():
    _, report = two_agents_report()
    assert isinstance(report, AccuracyReport) and isinstance(report, dict)
    assert list(report) == ["benchmark", "agents", "comparisons"]
    assert list(two_agents_report(elapsed_s=1.5)[1]) == ["benchmark", "agents", "comparisons", "elapsed_s"]
    assert report["benchmark"] == {"source": "hand-made", "games": 3, "positions": {"all": 4, "critical": 3},
                                   "by_phase": {"all": {"0-11": 2, "12-23": 1, "24-41": 1},
                                                "critical": {"0-11": 1, "12-23": 1, "24-41": 1}}}
    assert [agent["agent"] for agent in report["agents"]] == ["alpha", "beta"]
    assert list(report["agents"][0]) == ["agent", "positions", "answered", "sets", "time", "forfeits", "by_ply",
                                         "worst"]
    assert report["agents"][1]["answered"] == 3
    assert len(report["comparisons"]) == 2
    assert json.loads(json.dumps(report)) == report.to_dict() == dict(report)


def test_what_positions_left_out_of_its_file_is_in_the_json_the_text_and_the_html(tmp_path):
    from connectx_toolkit.measuring.positions_file import PositionsSettings, read_positions

    path = tmp_path / "mine.txt"
    path.write_text(f"445\n44444756\n144451456721\n{PLAYED}\n{PLAYED}\n")
    labelled = read_positions(str(path), PositionsSettings(budget=0.001, early_budget=0.001, cache="none"))
    answers = [Answer("alpha", position, 0, 0.1) for position in labelled.positions]
    report = build_report(labelled, by_agent(answers))
    left_out = report["benchmark"]["left_out"]
    assert (left_out["positions"], left_out["of"], left_out["distinct"]) == (3, 5, 4)
    assert left_out["by_phase"] == {"0-11": 2, "12-23": 1, "24-41": 0}
    assert [p.moves for p in labelled.positions] == [PLAYED, PLAYED]
    assert {name: reason["positions"] for name, reason in left_out["by_reason"].items()} == {"early": 1, "budget": 2}
    assert left_out["moves"] == ["445", "44444756", "144451456721"]
    assert json.loads(json.dumps(report)) == dict(report)
    said = ["left out: 3 of the file's 5 positions (4 distinct), not labelled exactly within the budget "
            "(0-11: 2, 12-23: 1, 24-41: 0)",
            "  1 with fewer than 8 stones, not exact within the early budget, 0.001 s a column: 0-11: 1",
            "  2 not exact within the budget, 0.001 s a column: 0-11: 1, 12-23: 1"]
    assert str(report).splitlines()[1:4] == said
    page = report._repr_html_()
    assert all(html.escape(line.strip()) in page for line in said)


def test_nothing_left_out_of_a_file_is_said_too_and_a_benchmark_has_no_such_line(tmp_path):
    from connectx_toolkit.measuring.positions_file import PositionsSettings, read_positions

    path = tmp_path / "mine.txt"
    path.write_text(f"{PLAYED}\n")
    labelled = read_positions(str(path), PositionsSettings(cache="none"))
    report = build_report(labelled, by_agent([Answer("alpha", labelled.positions[0], 0, 0.1)]))
    assert str(report).splitlines()[1] == "left out: none of the file's 1 position (1 distinct)"
    assert "left_out" not in two_agents_report()[1]["benchmark"]
    assert not str(two_agents_report()[1]).splitlines()[1].startswith("left out")


def test_the_html_table_and_the_text():
    _, report = two_agents_report()
    page = report._repr_html_()
    assert page.startswith('<div class="cx-report">') and "<table>" in page
    for shown in ("alpha", "beta", "critical", "100.0% (43.9-100.0)", "win→loss", "no answer within the bank",
                  "connectx board --position 44444433333322", "McNemar exact p"):
        assert shown in page, shown
    text = str(report)
    lines = text.splitlines()
    assert lines[0] == ("accuracy against perfect play: hand-made, 3 games, 4 positions (0-11: 2, 12-23: 1, "
                        "24-41: 1), 3 critical")
    header = lines[1]
    assert header.split()[:4] == ["agent", "set", "positions", "accuracy"] and set(lines[2]) == {"-"}
    rows = lines[3:7]
    assert [row.split()[:3] for row in rows] == [["alpha", "all", "4"], ["alpha", "critical", "3"],
                                                 ["beta", "all", "4"], ["beta", "critical", "3"]]
    assert len({len(line) for line in lines[1:7]}) == 1  # aligned
    assert rows[0].split()[3:5] == ["100.0%", "(51.0-100.0)"]
    assert text.index("comparisons:") < text.index("worst positions") < text.index("forfeits:")
    assert "  beta: 1 timeout: no answer within the bank (first at game 2, ply 26, moves " + LATE.moves + ")" in lines
    worst = [line for line in lines if line.startswith("  beta: game")]
    assert "draw→loss" in worst[0] and "win→draw" in worst[1] and "timeout" in worst[2]
    assert worst[0].endswith("connectx board --position 44444433333322")
    report["files"] = {"answers": "out/answers.jsonl"}
    assert str(report).endswith("files:\n  answers: out/answers.jsonl")


def test_the_answers_file_is_one_json_line_per_answer(tmp_path):
    answers, _ = two_agents_report()
    path = write_answers(str(tmp_path / "run" / "answers.jsonl"), answers)
    lines = open(path, encoding="utf-8").read().splitlines()
    assert [json.loads(line) for line in lines] == [answer.to_json() for answer in answers]
    assert json.loads(lines[4])["verdict"] == "win→draw"


def test_no_half_written_answers_file(tmp_path):
    class Broken(Answer):
        def to_json(self):
            raise RuntimeError("cannot say")

    path = tmp_path / "answers.jsonl"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        write_answers(str(path), [Answer("a", START, 3), Broken("a", LOST, 0)])
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["answers.jsonl"]


def test_the_plot_is_a_png_written_whole_or_not_at_all(tmp_path):
    answers, report = two_agents_report()
    for path in (save_accuracy_plot(report["agents"], str(tmp_path / "plots" / "accuracy.png"), "bench.json.gz"),
                 write_plot(str(tmp_path / "plots" / "again.png"), by_agent(answers))):
        with open(path, "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
    target = tmp_path / "kept.png"
    target.write_bytes(b"before")
    with pytest.raises(KeyError):
        save_accuracy_plot([{"agent": "x", "by_ply": [{"ply": 3}], "sets": {}}], str(target))
    assert target.read_bytes() == b"before" and sorted(os.listdir(tmp_path)) == ["kept.png", "plots"]


@pytest.mark.parametrize("module", [scoring, paired, stats], ids=lambda module: module.__name__)
def test_the_docstring_examples_run(module):
    assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0
