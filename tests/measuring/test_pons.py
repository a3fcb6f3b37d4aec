"""Pascal Pons' six test sets (shipped: ``measuring.pons``) and ``connectx accuracy --positions F1 F2 ...``: each file
its own section of the report, with each agent's error rate in AlphaZero.jl's sense (a move is an error when another
move has a strictly better outcome) beside AlphaZero.jl's published figures; ``--sample N --seed S`` said."""

from __future__ import annotations

import json
import os

import pytest

from connectx_toolkit.analysis.positions import parse_moves
from connectx_toolkit.errors import UsageError
from connectx_toolkit.measuring.pons import PONS_DIR, PONS_SETS, pons_error_rates, pons_set, resolve_positions
from connectx_toolkit.measuring.positions_file import PositionsSettings, read_positions
from tests.cli.test_old_forms import files_in
from tests.measuring.test_command import QUICK, accuracy


def lines_of(name: str) -> list[list[str]]:
    with open(os.path.join(PONS_DIR, name)) as handle:
        return [line.split() for line in handle.read().splitlines()]


def test_the_six_sets_are_pons_files_named_as_alphazero_jl_names_them():
    """``Test_L<stage>_R<difficulty>``: stage 1-3 begin (14 stones or fewer), middle (15-28), end (more); difficulty
    1-3 easy, medium, hard; 1,000 legal positions each, with a score that fits the stones left."""
    assert [s.name for s in PONS_SETS] == ["begin-easy", "middle-easy", "end-easy", "begin-medium", "middle-medium",
                                           "begin-hard"]
    stones = {"1": range(0, 15), "2": range(15, 29), "3": range(29, 42)}
    for found in PONS_SETS:
        stage, difficulty = found.file[6], found.file[9]
        assert found.name.startswith({"1": "begin", "2": "middle", "3": "end"}[stage])
        assert found.name.endswith({"1": "easy", "2": "medium", "3": "hard"}[difficulty])
        lines = lines_of(found.file)
        assert len(lines) == 1000 and all(len(fields) == 2 for fields in lines)
        for moves, score in lines:
            assert len(parse_moves(moves)) in stones[stage]
            assert abs(int(score)) <= (43 - len(moves)) // 2  # Pons' scale: at most the stones the mover has left
    assert sorted(os.listdir(PONS_DIR)) == sorted([s.file for s in PONS_SETS] + ["README.md"])


def test_pons_names_the_six_sets_and_pons_colon_one_of_them(tmp_path):
    assert resolve_positions(["pons"]) == [s.path for s in PONS_SETS]
    begin_hard = os.path.join(PONS_DIR, "Test_L1_R3")
    assert resolve_positions(["pons:begin-hard"]) == resolve_positions(["pons:Test_L1_R3"]) == [begin_hard]
    assert resolve_positions(["mine.txt", "pons:end-easy"]) == ["mine.txt", os.path.join(PONS_DIR, "Test_L3_R1")]
    assert pons_set(begin_hard) is PONS_SETS[-1] and pons_set(str(tmp_path / "Test_L1_R3")) is None
    with pytest.raises(UsageError) as raised:
        resolve_positions(["pons:hardest"])
    assert str(raised.value).startswith("--positions pons:hardest: no such Pons set; one of pons:begin-easy, ")
    with pytest.raises(UsageError, match="names .*Test_L3_R1 twice"):
        resolve_positions(["pons", "pons:end-easy"])


def first_legal(position) -> int:
    return position.legal_moves()[0]


def test_the_error_rate_in_process_is_alphazero_jls(tmp_path):
    """A move is an error when another has a strictly better outcome: counted here from the labels, by hand."""
    figures = pons_error_rates(first_legal, ["end-easy", "middle-easy"], sample=12, seed=3, cache="none")
    assert list(figures) == ["end-easy", "middle-easy"]
    for name, found in zip(figures, (PONS_SETS[2], PONS_SETS[1])):
        labelled = read_positions(found.path, PositionsSettings(budget=10.0, early_budget=10.0, cache="none"),
                                  sample=12, seed=3)
        sign = [[None if s is None else (s > 0) - (s < 0) for s in p.scores] for p in labelled.positions]
        errors = sum(outcomes[first_legal(parse_position(p.moves))] < max(o for o in outcomes if o is not None)
                     for p, outcomes in zip(labelled.positions, sign))
        entry = figures[name]
        assert (entry["positions"], entry["errors"], entry["left_out"], entry["of"]) == (12, errors, 0, 1000)
        assert entry["error_rate"] == pytest.approx(errors / 12) and entry["low"] <= entry["error_rate"] <= entry["high"]
        assert entry["sample"] == {"size": 12, "of": 1000, "seed": 3}
        assert (entry["alphazero"], entry["minimax"]) == (found.alphazero, found.minimax)
        best = {parse_position(p.moves).key(): p.best_columns[0] for p in labelled.positions}
        perfect = pons_error_rates(lambda position: best[position.key()], [name], sample=12, seed=3, cache="none")
        assert perfect[name]["errors"] == 0 and perfect[name]["positions"] == 12
    assert sum(figures[name]["errors"] for name in figures) > 0  # the sample is one where the first column errs


def parse_position(moves: str):
    from connectx_toolkit.analysis.positions import parse_position as parse

    return parse(moves)


def test_several_files_each_get_a_section_with_the_error_rate(tmp_path, monkeypatch, capfd):
    """Two files (the second with a line number the first also has): one run, one section per file, each agent's
    errors there counted from its answers; the sample said in the JSON and the text."""
    end_easy, middle_easy = lines_of("Test_L3_R1"), lines_of("Test_L2_R1")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "end.txt").write_text("".join(f"{m} {s}\n" for m, s in end_easy[:8]))
    (tmp_path / "run" / "middle.txt").write_text("".join(f"{m}\n" for m, _ in middle_easy[:3]))
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", "random", "--positions", "end.txt",
                              "middle.txt", "--sample", "5", "--seed", "2", *QUICK, "--json", "--answers", "a.jsonl",
                              "--analysis-cache", "none")
    assert code == 0, err
    report = json.loads(out)
    end, middle = report["positions_files"]
    assert (end["source"], middle["source"]) == ("end.txt", "middle.txt")
    assert end["sample"] == {"size": 5, "of": 8, "seed": 2} and middle["sample"] is None  # 3 lines: all of them
    assert (end["positions"], middle["positions"], end["scores_checked"], end["score_mismatches"]) == (5, 3, 5, [])
    answers = [json.loads(line) for line in files_in(tmp_path / "run")["a.jsonl"].decode().splitlines()]
    assert len(answers) == 2 * 8 and len({a["game"] for a in answers}) == 8  # ids apart: line 1 of each file
    for section, lines in ((end, end_easy[:8]), (middle, middle_easy[:3])):
        mine = {moves for moves, _ in lines}
        for agent in section["agents"]:
            asked = [a for a in answers if a["agent"] == agent["agent"] and a["moves"] in mine]
            assert agent["positions"] == len(asked) == section["positions"]
            assert agent["errors"] == sum(not a["accurate"] for a in asked)
            assert agent["error_rate"] == pytest.approx(agent["errors"] / len(asked))
            assert agent["error_high"] == pytest.approx(1 - agent["low"])
    assert end["published"] is None and end["set"] is None
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", "--positions", "end.txt", "middle.txt",
                              "--sample", "5", "--seed", "2", *QUICK, "--analysis-cache", "none")
    assert code == 0, err
    assert "error rate: a move is an error when another move has a strictly better outcome" in out
    assert "end.txt     sample of 5 of 8 (seed 2)  greedy" in out and "middle.txt  all 3  " in out


def test_a_pons_set_by_name_carries_alphazero_jls_figures(tmp_path, monkeypatch, capfd):
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", "--positions", "pons:end-easy", "--sample", "4",
                              "--seed", "1", *QUICK, "--json", "--analysis-cache", "none")
    assert code == 0, err
    [section] = json.loads(out)["positions_files"]
    assert (section["set"], section["title"]) == ("end-easy", "End - Easy (Test_L3_R1)")
    assert section["published"] == {"alphazero": 0.0, "minimax": 1.4}
    assert section["sample"] == {"size": 4, "of": 1000, "seed": 1} and section["scores_checked"] == 4
    assert section["score_mismatches"] == []  # the labels agree with Pons' own scores


@pytest.mark.parametrize("argv, says", [
    (["--sample", "3"], "--sample takes a seeded sample of --positions' games: give --positions FILE"),
    (["--positions", "pons", "--sample", "3", "-n", "2"], "--sample and --games cannot be combined"),
    (["--positions", "pons:nowhere"], "--positions pons:nowhere: no such Pons set"),
    (["--positions", "pons", "--sample", "0"], "--sample must be an integer >= 1, got 0"),
])
def test_bad_pons_options_are_one_line(tmp_path, monkeypatch, capfd, argv, says):
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", *argv, "--no-progress")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert says in err


def test_pons_sets_give_their_early_positions_the_whole_budget(tmp_path, monkeypatch, capfd):
    """Every line of a Pons set is asked on purpose (65 % of Begin-Hard has fewer than 8 stones): its early positions
    get --analysis-budget, where a file of one's own gets 0.05 s unless --analysis-early-budget says otherwise."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "mine.txt").write_text("".join(f"{m}\n" for m, _ in lines_of("Test_L3_R1")[:2]))

    def early_reason(*argv: str) -> str:
        code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", *argv, "--sample", "2", *QUICK, "--json",
                                  "--analysis-budget", "3", "--analysis-cache", "none")
        assert code == 0, err
        return json.loads(out)["positions_files"][0]["left_out"]["by_reason"]["early"]["reason"]

    assert early_reason("--positions", "pons:end-easy").endswith("early budget, 3 s a column")
    assert early_reason("--positions", "mine.txt").endswith("early budget, 0.05 s a column")
    assert early_reason("--positions", "mine.txt", "--analysis-early-budget", "0.5").endswith("early budget, 0.5 s a column")
