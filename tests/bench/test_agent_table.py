"""The agent table: discovery, dependency digests, row arithmetic and a real two-game run."""

import os

from bench import agent_table
from connectx_toolkit.evaluation.referees.record import GameRecord


def record(game_id, swapped, outcomes, times):
    return GameRecord(game_id, ["a", "b"], [], [3, 3], ["DONE", "DONE"], outcomes, times, {}, 0, swapped)


def test_discovers_the_agents_and_their_sources():
    names = agent_table.discover_agents()
    assert {"greedy", "alphabeta", "minimax", "threats", "bitboard_minimax"} <= set(names)
    sources = [os.path.relpath(p, agent_table.ROOT) for p in agent_table.agent_sources("alphabeta")]
    assert "agents/alphabeta.py" in sources and "agents/heuristic_search/line_heuristic.py" in sources
    assert "agents/core/position.py" in sources and "agents/threats.py" not in sources


def test_rows_count_from_the_agents_side_whatever_its_seat():
    records = [
        record(0, False, ["win", "loss"], [[0.1, 0.3], [0.0]]),
        record(1, True, ["loss", "invalid"], [[0.0], [0.2]]),  # agent A sits second and plays invalid
        record(2, False, ["draw", "draw"], [[0.5], [0.0]]),
    ]
    row = agent_table.match_row("a", "b", records)
    assert (row["win"], row["draw"], row["loss"]) == (1 / 3, 1 / 3, 1 / 3)
    assert row["invalid"] == 1 and row["median_move_s"] == 0.25 and row["max_move_s"] == 0.5


def test_bad_input_exits_2(capsys):
    assert agent_table.main(["--agents", "no_such_agent"]) == 2
    assert agent_table.main(["--games", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("agent_table: ") for line in err)


def test_a_small_table_is_written(tmp_path, capsys):
    out = tmp_path / "table.md"
    assert agent_table.main(["--games", "2", "--agents", "greedy", "--opponents", "random", "--workers", "1",
                             "--out", str(out)]) == 0
    text = out.read_text()
    assert text == capsys.readouterr().out
    assert "| greedy | random |" in text and "Strongest against random: **greedy** (score 1.000)" in text
    assert (tmp_path / "table.jsonl").exists()
