"""The board drawn in a notebook cell (a hosted kernel's board): every position's column values solved ahead
and checked against bitbully, a self-contained page, and the API choosing it where the kernel is remote."""

from __future__ import annotations

import html
import json
import os
import re

import pytest

from connectx_toolkit.agents.core import Config
from connectx_toolkit.analysis.games import read_games
from connectx_toolkit.board.hosted import hosted_kernel
from connectx_toolkit.board.inline import InlineBoard, render, start_ply
from connectx_toolkit.board.solved_game import NO_VALUES, solve_game
from tests.helpers import REPO

ROOT = REPO
SHORT = os.path.join(ROOT, "tests", "data", "short_game.jsonl")  # greedy wins along the bottom row at ply 7
SAMPLE = os.path.join(ROOT, "tests", "data", "analysis_games.jsonl")


@pytest.mark.parametrize("environ, modules, service", [
    ({"KAGGLE_KERNEL_RUN_TYPE": "Interactive", "COLAB_RELEASE_TAG": "x"}, {}, "Kaggle"),  # Kaggle's image is Colab's
    ({"KAGGLE_KERNEL_RUN_TYPE": "Batch"}, {}, "Kaggle"),
    ({"COLAB_RELEASE_TAG": "release-colab_20250101-060000_RC00"}, {}, "Colab"),
    ({}, {"google.colab": object()}, "Colab"),
    ({"JPY_PARENT_PID": "1", "HOME": "/home/me"}, {"ipykernel": object()}, None),  # a local Jupyter
])
def test_a_hosted_kernel_is_recognised(environ, modules, service):
    assert hosted_kernel(environ, modules) == service


def solved(path: str = SHORT, number: int = 0, cache: str | None = None, **options) -> dict:
    game = next(g for g in read_games(path) if g.game_id == number)
    settings = dict(budget=30.0, cache_path=cache, workers=1, compiled=True, progress=False, source="run.jsonl")
    settings.update(options)
    return solve_game(game, game.config, **settings)


def test_every_positions_values_agree_with_bitbully():
    pytest.importorskip("bitbully")
    from tools.oracle import Oracle

    data = solved()
    oracle = Oracle()
    moves = [3, 3, 4, 4, 2, 2, 5]
    assert len(data["positions"]) == len(moves) + 1
    for ply, position in enumerate(data["positions"][:-1]):
        truth = oracle.scores(moves[:ply])
        for column, value in enumerate(position["values"]):
            if column not in truth:
                assert value["value"] == "full"
                continue
            expected = "win" if truth[column] > 0 else "loss" if truth[column] < 0 else "draw"
            assert value["value"] == expected, (ply, column, value, truth[column])
            assert value["score"] in (None, truth[column])
            assert value["low"] <= truth[column] <= value["high"]
    final = data["positions"][-1]
    assert final["values"] is None and final["message"] == "greedy won: four in a row."
    assert sorted(map(tuple, final["line"])) == [(5, 2), (5, 3), (5, 4), (5, 5)]
    game = data["game"]
    assert [m["column"] for m in game["moves"]] == moves and game["agents"] == ["greedy", "stacker.py"]
    losing = [m["ply"] for m in game["moves"] if m["label"] == "outcome-losing"]
    assert game["first_losing"] == losing[0]
    # the first outcome-losing move is the first whose column bitbully values below the mover's best
    first = next(ply for ply in range(len(moves))
                 if (lambda s: (s[moves[ply]] > 0) - (s[moves[ply]] < 0) < (max(s.values()) > 0) - (max(s.values()) < 0))(
                     oracle.scores(moves[:ply])))
    assert game["first_losing"] == first


def test_the_page_is_self_contained_and_opens_at_the_first_losing_move():
    data = solved()
    page = InlineBoard(data, "Live play needs a local kernel: here.").html()
    assert "http" not in page and " src=" not in page and "fetch(" not in page  # nothing from anywhere
    root = re.search(r'<div class="cxb" id="(cxb-[0-9a-f]{12})" data-cursor="(\d+)"', page)
    assert root and int(root.group(2)) == start_ply(data) == data["game"]["first_losing"]
    assert f'document.getElementById("{root.group(1)}")' in page
    embedded = re.search(r'<script type="application/json" data-role="data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(embedded) == data
    # before its script runs, the page shows that position and the labelled move list
    position = data["positions"][start_ply(data)]
    marks = [int(m) for m in re.findall(r'data-cell="\d+,\d+" data-mark="(\d)"', page)]
    by_cell = {(r, c): int(m) for r, c, m in re.findall(r'data-cell="(\d+),(\d+)" data-mark="(\d)"', page)}
    assert len(marks) == 42 and all(by_cell[(str(i // 7), str(i % 7))] == position["board"][i] for i in range(42))
    assert page.count("<li data-ply=") == 7 and 'class="cxb-first-losing cxb-current"' in page
    assert "Live play needs a local kernel: here." in page
    assert render(data) != render(data)  # every board has its own root: two in one notebook do not clash


def test_names_cannot_break_out_of_the_page(tmp_path):
    text = open(SHORT, encoding="utf-8").read().replace("stacker.py", "</script><b>x</b>")
    path = tmp_path / "odd.jsonl"
    path.write_text(text)
    page = InlineBoard(solved(str(path))).html()
    assert "</script><b>" not in page and "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in page
    assert page.count("</script>") == 2  # the data's and the code's own


def test_another_board_is_drawn_without_values():
    data = solve_game(None, Config(5, 5, 3), budget=5.0, cache_path=None, workers=1, compiled=True, progress=False)
    assert data["values_note"] == NO_VALUES and data["positions"][0]["values"] is None
    page = render(data)
    assert 'data-cell="4,4"' in page and 'data-cell="5,' not in page and 'data-cell="0,5"' not in page


def test_the_api_draws_it_on_a_hosted_kernel(monkeypatch, tmp_path):
    from connectx_toolkit.board.server import BoardError
    from connectx_toolkit import open_board as board

    monkeypatch.setenv("KAGGLE_KERNEL_RUN_TYPE", "Interactive")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shown = board("greedy", game=f"{SHORT}:0", progress=False)
    assert isinstance(shown, InlineBoard) and shown.data["game"]["source"] == "short_game.jsonl"
    assert shown.notice.startswith("Live play needs a local kernel: this one runs on Kaggle's machines")
    assert repr(shown).splitlines()[0] == shown.notice and html.escape(shown.notice) in shown._repr_html_()
    page = shown.save(str(tmp_path / "board.html"))
    assert open(page, encoding="utf-8").read().startswith("<!doctype html>")
    empty = board(progress=False)  # no game: the empty board, and how to step through one
    assert len(empty.data["positions"]) == 1 and empty.data["game"] is None
    assert 'open_board(game="FILE[:N]")' in empty.notice and "yellow to move" in empty.data["positions"][0]["message"]
    with pytest.raises(BoardError, match="has no game 9"):
        board(game=f"{SHORT}:9", progress=False)
    monkeypatch.delenv("KAGGLE_KERNEL_RUN_TYPE")
    local = board(game=f"{SHORT}:0", inline=True, progress=False)  # asked for locally: no notice
    assert local.notice is None and "Live play" not in local.html()


def test_a_config_is_kept():
    data = solve_game(None, Config(), budget=5.0, cache_path=None, workers=1, compiled=True, progress=False)
    assert [v["value"] for v in data["positions"][0]["values"]] == ["loss", "loss", "draw", "win", "draw", "loss",
                                                                    "loss"]


@pytest.mark.slow
def test_a_whole_game_agrees_with_bitbully(tmp_path):
    """Game 10 of the sample (39 plies): every column of every position, solved from an empty cache (7-9 s here)."""
    pytest.importorskip("bitbully")
    from tools.oracle import Oracle

    game = next(g for g in read_games(SAMPLE) if g.game_id == 10)
    data = solved(SAMPLE, 10, cache=str(tmp_path / "cache.sqlite"), workers=2)
    oracle = Oracle()
    exact = 0
    for ply, position in enumerate(data["positions"][:-1]):
        truth = oracle.scores(list(game.moves[:ply]))
        for column, value in enumerate(position["values"] or []):
            if column in truth:
                assert value["value"] in ("unknown", "win" if truth[column] > 0 else "loss" if truth[column] < 0
                                          else "draw")
                assert value["low"] <= truth[column] <= value["high"]
                exact += value["score"] is not None
    assert exact > 100
