"""``connectx accuracy`` (and ``evaluate.py --accuracy``) end to end on a small benchmark: the report, its JSON, its
files, the paired verdict, an agent that keeps state, and every kind of bad input as one line, exit 2, no file."""

import json
import os

import pytest

from connectx_toolkit.cli import evaluate
from connectx_toolkit.cli import main as connectx
from tests.cli.test_old_forms import files_in, jsonl, masked, pair, run_in
from tests.helpers import FIXTURES

AGENTS = os.path.join(FIXTURES, "accuracy_agents")
QUICK = ["--workers", "2", "--no-progress"]


def accuracy(tmp_path, monkeypatch, capfd, *argv, folder="run"):
    return run_in(tmp_path / folder, monkeypatch, capfd, connectx.main, ["accuracy", *argv], "connectx")


def test_json_report_answers_and_plot(tmp_path, monkeypatch, capfd, small, small_file):
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", "random", "--benchmark", small_file, *QUICK,
                              "--json", "--answers", "answers.jsonl", "--plot", "by_ply.png")
    assert code == 0, err
    report = json.loads(out)  # exactly one JSON object on stdout
    assert [agent["agent"] for agent in report["agents"]] == ["greedy", "random"]
    greedy, random_ = report["agents"]
    assert greedy["positions"] == random_["positions"] == len(small.positions)
    assert greedy["sets"]["critical"]["positions"] == len(small.of_set("critical"))
    assert greedy["sets"]["all"]["accuracy"] > random_["sets"]["all"]["accuracy"]
    assert 0 <= greedy["sets"]["all"]["low"] <= greedy["sets"]["all"]["accuracy"] <= greedy["sets"]["all"]["high"] <= 1
    verdicts = [c for c in report["comparisons"] if c["set"] == "critical"]
    assert verdicts and verdicts[0]["more_accurate"] == "greedy" and verdicts[0]["p_value"] < 0.05
    files = files_in(tmp_path / "run")
    assert sorted(files) == ["answers.jsonl", "by_ply.png"]
    assert files["by_ply.png"][:8] == b"\x89PNG\r\n\x1a\n"
    lines = [json.loads(line) for line in files["answers.jsonl"].decode().splitlines()]
    assert len(lines) == 2 * len(small.positions)
    assert {line["agent"] for line in lines} == {"greedy", "random"}
    assert report["files"] == {"answers": "answers.jsonl", "plot": "by_ply.png"}


def test_text_report_names_the_worst_positions_with_the_board_command(tmp_path, monkeypatch, capfd, small_file):
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "random", "--benchmark", small_file, *QUICK, "--worst", "2")
    assert code == 0, err
    assert "accuracy against perfect play" in out and "connectx board --position " in out
    files = files_in(tmp_path / "run")  # by default under results/, the PNG beside the answers
    names = sorted(files)
    assert len(names) == 2 and all(name.startswith(os.path.join("results", "accuracy-random-")) for name in names)
    assert names[0].endswith(".jsonl") and names[1].endswith(".png")


def test_a_stateful_agent_is_asked_as_a_game_asks_it(tmp_path, monkeypatch, capfd, small_file):
    """It raises unless it is set up on its first call (step 0 or 1) and then called at every one of its turns in
    order: it answers every position, and (it plays as greedy, seeded the same) exactly as greedy does."""
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, os.path.join(AGENTS, "counts_its_calls.py"), "greedy",
                              "--benchmark", small_file, *QUICK, "--json", "--answers", "a.jsonl")
    assert code == 0, err
    stateful, greedy = json.loads(out)["agents"]
    assert stateful["forfeits"]["total"] == 0
    lines = [json.loads(line) for line in files_in(tmp_path / "run")["a.jsonl"].decode().splitlines()]
    columns = {}
    for line in lines:
        columns.setdefault((line["game"], line["ply"]), {})[line["agent"]] = line["column"]
    assert all(len(set(both.values())) == 1 for both in columns.values())


def test_the_old_form_gives_the_same_report_and_files(tmp_path, monkeypatch, capfd, small_file):
    flags = ["--benchmark", small_file, *QUICK, "--json", "--answers", "a.jsonl", "--plot", "p.png", "-n", "3"]
    old, new = pair(tmp_path, monkeypatch, capfd, (evaluate.main, ["--accuracy", "greedy", *flags]),
                    ["accuracy", "greedy", *flags])
    assert old[0] == new[0] == 0
    assert masked(json.loads(old[1])) == masked(json.loads(new[1]))
    assert jsonl(old[3]["a.jsonl"]) == jsonl(new[3]["a.jsonl"])
    assert json.loads(new[1])["benchmark"]["games"] == 3


@pytest.mark.parametrize("argv, message", [
    (["no_such_agent.py"], "no_such_agent.py"),
    ([], "accuracy needs at least one AGENT"),
    (["greedy", "--rows", "5"], "there are no perfect labels for 5x7 boards"),
    (["greedy", "--inarow", "5"], "there are no perfect labels for 6x7 boards with 5 in a row"),
    (["greedy", "--benchmark", "missing.json.gz"], "missing.json.gz: cannot read the benchmark"),
    (["greedy", "--benchmark", "not_a_benchmark.txt"], "not_a_benchmark.txt: not a benchmark file"),
    (["greedy", "-n", "0"], "--games must be"),
    (["greedy", "--worst", "-1"], "--worst must be"),
    (["greedy", "--answers", "no/such/folder/a.jsonl"], "--answers no/such/folder/a.jsonl: no such folder"),
    (["greedy", "greedy"], "agent greedy is given twice"),
    (["greedy", "--baseline", "random"], "unrecognized arguments: --baseline random"),
])
def test_bad_input_is_one_line_exit_2_and_no_file(tmp_path, monkeypatch, capfd, argv, message):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "not_a_benchmark.txt").write_text("hello\n")
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, *argv, "--no-progress")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("connectx accuracy: error: ") and message in lines[0], err
    assert sorted(files_in(tmp_path / "run")) == ["not_a_benchmark.txt"]


def test_the_notebook_function_returns_a_table(tmp_path, small_file):
    from connectx_toolkit import accuracy as measure

    report = measure("greedy", benchmark=small_file, games=2, progress=False, workers=1,
                     answers=str(tmp_path / "a.jsonl"), plot=str(tmp_path / "a.png"))
    assert report["agents"][0]["agent"] == "greedy"
    html = report._repr_html_()
    assert "<table" in html and "greedy" in html
    assert os.path.isfile(tmp_path / "a.jsonl") and os.path.isfile(tmp_path / "a.png")


def test_positions_of_a_file_of_move_strings(tmp_path, monkeypatch, capfd, small):
    lines = [p.moves for p in small.positions[:6]]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "mine.txt").write_text("# positions of my own games\n" + "\n".join(lines) + "\n")
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", "--positions", "mine.txt", *QUICK, "--json",
                              "--answers", "a.jsonl", "--analysis-cache", "none")
    assert code == 0, err
    report = json.loads(out)
    assert report["agents"][0]["positions"] == 6
    answered = [json.loads(line)["moves"] for line in files_in(tmp_path / "run")["a.jsonl"].decode().splitlines()]
    assert sorted(answered) == sorted(lines)


def test_an_illegal_position_names_its_file_and_line(tmp_path, monkeypatch, capfd):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "mine.txt").write_text("4453\n44444447\n")
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, "greedy", "--positions", "mine.txt", "--no-progress")
    assert code == 2 and out == ""
    assert err.strip() == "connectx accuracy: error: mine.txt:2: move 7 is column 4, which is full"
    assert sorted(files_in(tmp_path / "run")) == ["mine.txt"]


def test_train_evaluate_reports_the_accuracy_beside_its_games(tmp_path, capsys):
    from connectx_toolkit.cli import train

    assert train.main(["--untrained", "--out", str(tmp_path / "bot"), "--evaluate", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "quick check (4 games each" in out
    line = next(line for line in out.splitlines() if line.startswith("accuracy against perfect play"))
    assert "2,346 benchmark positions" in line and "of the critical ones" in line


def test_agents_run_in_the_sandbox_when_asked(tmp_path, monkeypatch, capfd, small_file):
    from connectx_toolkit.sandbox import SandboxUnavailable, require

    try:
        require()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    agent = tmp_path / "where.py"  # it answers a column only inside the sandbox's private /tmp
    agent.write_text("import os\n\ndef agent(obs, config):\n"
                     "    assert not os.path.exists(os.path.expanduser('~/.cache')), 'sees the home directory'\n"
                     "    return [c for c in range(config.columns) if obs.board[c] == 0][0]\n")
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, str(agent), "--benchmark", small_file, "-n", "2",
                              "--sandbox", *QUICK, "--json", "--answers", "a.jsonl")
    assert code == 0, err
    assert json.loads(out)["agents"][0]["forfeits"]["total"] == 0


def test_a_folder_given_as_dot_is_named_by_its_real_name(tmp_path, monkeypatch, capfd, small_file):
    """Its table rows, its worst positions and its answers' file name read the folder (``.../my_bot``), never ``.``."""
    import shutil

    shutil.copytree(os.path.join(FIXTURES, "building_shapes", "folder_bot"), tmp_path / "my_bot")
    code, out, err = accuracy(tmp_path, monkeypatch, capfd, ".", "--benchmark", small_file, *QUICK, folder="my_bot")
    assert code == 0, err
    named = [line.split()[0] for line in out.splitlines() if line.split()]
    folder = str(tmp_path / "my_bot")
    assert named.count(folder) == 3 and "." not in named and ".:" not in named, out  # the tables' rows
    assert f"  {folder}: game " in out  # its worst positions
    assert all(name.startswith(os.path.join("results", "accuracy-my_bot-"))
               for name in files_in(tmp_path / "my_bot") if name.startswith("results"))
