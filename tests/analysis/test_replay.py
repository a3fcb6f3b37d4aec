"""The annotated replay: Kaggle's player beside the labelled move list, rendered in headless Chromium."""

from __future__ import annotations

import os
import re

import pytest

from connectx_toolkit.analysis.cache import PositionCache
from connectx_toolkit.analysis.games import from_record
from connectx_toolkit.analysis.labelling import label_games
from connectx_toolkit.analysis.plot import save_losing_moves_plot
from connectx_toolkit.analysis.replay import annotated_html, save_annotated_replay
from connectx_toolkit.evaluation.reports.results import read
from tests.evaluation.reports.test_replays import run_chromium
from tests.helpers import DATA

SAMPLE = os.path.join(DATA, "analysis_games.jsonl")


@pytest.fixture(scope="module")
def analysis(tmp_path_factory):
    """Game 10 of the sample, lost by negamax: it throws away a draw at ply 21 (and greedy a win earlier if
    the budget proves it)."""
    record = next(r for r in read(SAMPLE)[1] if r.game_id == 10)
    (analysis,) = label_games([from_record(record)], 0.1, PositionCache(None), 2, False)
    return analysis


def test_page_marks_every_move_and_the_first_losing_one(analysis):
    first = analysis.first_losing
    assert first is not None and first is next(m for m in analysis.moves if m.agent and m.loses_outcome)
    page = annotated_html(analysis)
    assert "<title>ConnectX Visualizer</title>" in page and "window.kaggle" in page  # Kaggle's own player
    rows = re.findall(r'<tr class="move[^"]*" data-step="(\d+)" data-ply="(\d+)"', page)
    assert [int(ply) for _, ply in rows] == list(range(len(analysis.game.moves)))
    assert all(int(step) == int(ply) + 1 for step, ply in rows)  # a row shows the board after its move
    assert len(re.findall(r'class="move[^"]*first-losing', page)) == 1
    assert f'data-ply="{first.ply}"' in re.search(r'<tr class="move first-losing"[^>]*>', page).group(0)
    assert f"Kept the {first.before.outcome} with: {', '.join(map(str, analysis.kept_by))}." in page


def test_annotated_replay_renders_in_headless_chromium(analysis, tmp_path):
    path = save_annotated_replay(analysis, str(tmp_path / "out"))
    assert os.path.basename(path) == "game-000010-negamax-vs-greedy-loss-analysis.html"
    steps = len(analysis.game.moves) + 1
    page = ""
    for _ in range(3):  # under heavy CPU load Chromium may dump the page before the player's first paint
        dom = run_chromium("--dump-dom", f"file://{path}")
        assert dom.returncode == 0, dom.stderr[-2000:]
        page = dom.stdout
        if re.search(r'class="renderer-container">\s*<canvas\b', page) and f"{steps} / {steps}</span>" in page:
            break
    assert re.search(r'class="renderer-container">\s*<canvas\b', page), page[-3000:]
    assert f"{steps} / {steps}</span>" in page  # Kaggle's player ran to the last step beside the panel
    assert '<aside id="analysis">' in page and 'class="move first-losing"' in page

    shot = tmp_path / "shot.png"
    taken = run_chromium("--window-size=1200,720", f"--screenshot={shot}", f"file://{path}")
    assert taken.returncode == 0 and shot.exists(), taken.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(str(shot))[:, :, :3]
    left, right = pixels[:, :800], pixels[:, 860:]
    assert left.std() > 0.05 and right.std() > 0.05  # the board on the left, the move list on the right
    # The first losing move's row is drawn in its red (#b3261e) in the panel.
    red = (abs(right[:, :, 0] - 0xB3 / 255) < 0.03) & (abs(right[:, :, 1] - 0x26 / 255) < 0.03)
    assert red.sum() > 500


def test_plot_of_losing_moves(analysis, tmp_path):
    path = save_losing_moves_plot([analysis], str(tmp_path / "plot.png"))
    from matplotlib.image import imread

    pixels = imread(path)
    assert pixels.shape[0] > 200 and pixels[:, :, :3].std() > 0.05
    assert os.listdir(tmp_path) == ["plot.png"]  # no temporary file left behind
