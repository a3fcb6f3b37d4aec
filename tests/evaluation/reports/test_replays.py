"""HTML replays: Kaggle's renderer, sensible names, forfeits rebuilt, and a page that renders in Chromium."""

import os
import re
import shutil
import subprocess
import tempfile

import pytest

from connectx_toolkit.evaluation.seats.agent_specs import resolve_agent
from connectx_toolkit.evaluation.referees.record import GameTask, forfeit
from connectx_toolkit.evaluation.reports.replays import replay_environment, replay_name, save_replay
from connectx_toolkit.evaluation.scheduling.runner import play_game
from tests.helpers import REPO

FIXTURES = os.path.join(REPO, "tests", "fixtures", "eval_agents")
CONFIG = (("rows", 6), ("columns", 7), ("inarow", 4))
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # The player animates the game step by step; virtual time lets it reach the last step at once.
    "--virtual-time-budget=120000",
]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium is not installed and could not be (.ci/run installs Debian's chromium with apt-get)")


def run_chromium(*arguments: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments],
            capture_output=True, text=True, timeout=120,
        )


def a_lost_game():
    """Match agent A (greedy) sits second (``swapped``); B moves first and plays column 99 (invalid)."""
    return play_game(resolve_agent(os.path.join(FIXTURES, "returns_99.py")), resolve_agent("greedy"),
                     opening=[3, 3], seed=3, swapped=True, game_id=17)


def test_replay_of_a_played_game_is_kaggles_record(tmp_path):
    record = play_game(resolve_agent("greedy"), resolve_agent("random"), opening=[3, 2], seed=1, game_id=4)
    path = save_replay(record, str(tmp_path / "replays"))
    assert os.path.basename(path) == f"game-000004-greedy-vs-random-{record.outcome_of(0)}.html"
    html = open(path, encoding="utf-8").read()
    assert "<title>ConnectX Visualizer</title>" in html and "window.kaggle" in html
    env = replay_environment(record)
    assert len(env.steps) == len(record.steps)
    assert env.steps[-1][0]["observation"]["board"] == record.steps[-1][0]["observation"]["board"]
    assert os.listdir(tmp_path / "replays") == [os.path.basename(path)]  # no temporary left behind


def test_name_says_game_agent_opponent_and_outcome_from_the_first_agents_side():
    record = a_lost_game()
    assert record.outcome_of(1) == "invalid"
    assert replay_name(record) == "game-000017-greedy-vs-returns_99-win.html"
    assert replay_name(record, perspective=1) == "game-000017-returns_99-vs-greedy-invalid.html"


@pytest.mark.parametrize("outcome", ["timeout", "error"])
def test_killed_game_is_rebuilt_and_ends_with_its_forfeit(outcome):
    task = GameTask(9, resolve_agent("greedy"), resolve_agent("random"), False, (3, 3, 2), CONFIG, 2.0, 60.0, 0)
    record = forfeit(task, 1, outcome, "killed by the pool")
    assert not record.steps
    env = replay_environment(record)
    assert env.done
    assert [state.status for state in env.state] == ["DONE", outcome.upper()]
    assert len(env.steps) == 1 + 3 + 1  # the reset, the opening, the forfeit
    assert sum(1 for cell in env.steps[-1][0]["observation"]["board"] if cell) == 3


def test_invalid_game_without_steps_is_rebuilt_as_invalid():
    record = a_lost_game()
    record.steps = []  # as read back from a results file
    assert [state.status for state in replay_environment(record).state] == ["INVALID", "DONE"]


def test_replay_renders_in_headless_chromium(tmp_path):
    record = play_game(resolve_agent("greedy"), resolve_agent("random"), seed=5, game_id=1)
    assert record.outcomes == ["win", "loss"]
    path = save_replay(record, str(tmp_path), perspective=1)

    steps = len(record.steps)
    page = ""
    for _ in range(3):  # under heavy CPU load Chromium may dump the page before the player's first paint
        dom = run_chromium("--dump-dom", f"file://{path}")
        assert dom.returncode == 0, dom.stderr[-2000:]
        page = dom.stdout
        if (re.search(r'class="renderer-container">\s*<canvas\b', page) and "Winner: greedy" in page
                and f"{steps} / {steps}</span>" in page):
            break
    assert re.search(r'class="renderer-container">\s*<canvas\b', page), page[-3000:]
    assert f"{steps} / {steps}</span>" in page  # the player reached the game's last step
    assert "Winner: greedy" in page  # the ConnectX renderer drew the final state

    shot = tmp_path / "shot.png"
    taken = run_chromium("--window-size=800,600", f"--screenshot={shot}", f"file://{path}")
    assert taken.returncode == 0 and shot.exists(), taken.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(str(shot))[:, :, :3]
    colours = {tuple(p) for p in (pixels[::4, ::4].reshape(-1, 3) * 255).round().astype(int).tolist()}
    assert pixels.std() > 0.05 and len(colours) > 50  # a drawn board, not a blank page
