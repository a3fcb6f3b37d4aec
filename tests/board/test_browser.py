"""The board in a real browser: Debian's chromium driven by Selenium through chromium-driver.

Two servers (``evaluate.py --board`` in a subprocess, as a user starts it) and one browser for the module:
a whole game against greedy by clicking, the values at a mid-game position of a loaded game against
bitbully, a loaded Kaggle episode's first outcome-losing move, and requests refused without the token or
with a foreign Host. And the inline board (a hosted notebook's) opened from the disk, stepped by its own
script with no server. ``BOARD_SCREENSHOT=PATH`` saves the page (the values test) as a PNG.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is a test dependency (requirements.txt)")
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from tests.helpers import REPO  # noqa: E402

ROOT = REPO
SAMPLE = os.path.join(ROOT, "tests", "data", "analysis_games.jsonl")
WAIT = 60  # seconds: the values of a position, solved in the background on a shared machine


def _binary(*names: str) -> str:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(f"{names[0]} is not installed (.ci/run installs Debian's chromium and chromium-driver)")


@pytest.fixture(scope="module")
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = _binary("chromium", "chromium-browser", "google-chrome")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,860",
                 "--disable-background-networking", "--disable-component-update", "--no-first-run"):
        options.add_argument(flag)
    try:  # the driver is Debian's, named explicitly: Selenium must not try to download one
        browser = webdriver.Chrome(options=options, service=Service(_binary("chromedriver", "chromium-driver")))
    except WebDriverException as error:
        pytest.skip(f"chromium cannot be driven here: {str(error).splitlines()[0]}")
    yield browser
    browser.quit()


class Board:
    """``evaluate.py --board ...`` in a subprocess started in the checkout (a relative path is the
    checkout's, and the page shows it as given); ``url`` is the first line it printed."""

    def __init__(self, tmp: str, *argv: str) -> None:
        environment = dict(os.environ, PYTHONPATH=ROOT)
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "evaluate.py"), "--board", *argv, "--no-browser",
             "--analysis-cache", os.path.join(tmp, "cache.sqlite")],
            stdout=subprocess.PIPE, text=True, env=environment, cwd=ROOT)
        first = self.process.stdout.readline()
        assert first.startswith("board: http://127.0.0.1:"), first
        self.url = first.split(" ", 1)[1].strip()
        self.base, self.token = self.url.split("/?token=")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(30)


@pytest.fixture(scope="module")
def results_board(tmp_path_factory):
    # relative, so that the page (and docs/board.png, saved from it) shows no machine's path
    board = Board(str(tmp_path_factory.mktemp("board")), "greedy", "--game",
                  f"{os.path.relpath(SAMPLE, ROOT)}:10")
    yield board
    board.close()


def an_episode(path: str) -> list[int]:
    """A Kaggle episode (``env.toJSON()``) in which the first player gives the win away; its moves."""
    from kaggle_environments import make

    from connectx_toolkit.agents.greedy import agent as greedy

    def opening_then_greedy(obs, config):
        return [3, 3, 0][obs.step] if obs.step < 3 else greedy(obs, config)

    random.seed(5)  # greedy breaks ties at random
    env = make("connectx", debug=True)
    env.run([opening_then_greedy, opening_then_greedy])
    document = env.toJSON()
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    from connectx_toolkit.analysis.games import read_episode

    return list(read_episode(document).moves)


def wait(driver, condition, timeout: float = WAIT):
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))


def state(driver) -> str:
    return driver.find_element(By.ID, "status").get_attribute("data-state")


def marks(driver) -> list[int]:
    return [int(cell.get_attribute("data-mark")) for cell in driver.find_elements(By.CSS_SELECTOR, "[data-cell]")]


def snapshot(driver) -> tuple[str, list[int]]:
    """The status and the marks read in one script: between two separate reads the page may render a newer
    state (a move's response), and a status from before it beside marks from after it once sent a click on
    the agent's turn."""
    status, cells = driver.execute_script(
        'return [document.getElementById("status").getAttribute("data-state"),'
        ' Array.from(document.querySelectorAll("[data-cell]"), cell => Number(cell.getAttribute("data-mark")))];')
    return status, cells


def answered(status: str, cells: list[int], clicks: int) -> bool:
    """The agent has answered our move ``clicks`` (or the game ended, on our move or on its answer)."""
    return status == "over" or (status == "human" and cells.count(1) == clicks)


def test_a_whole_game_against_greedy_by_clicking(driver, results_board):
    driver.get(results_board.url)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-ply="0"]'))
    driver.find_element(By.ID, "new-game").click()
    wait(driver, lambda d: state(d) == "human" and sum(marks(d)) == 0
         and d.find_element(By.ID, "status").get_attribute("data-mode") == "play")  # not the loaded game's start
    assert len(driver.find_elements(By.CSS_SELECTOR, "[data-column]")) == 7
    driver.find_element(By.CSS_SELECTOR, '[data-column="0"]').click()
    wait(driver, lambda d: state(d) == "human" and marks(d).count(2) == 1)  # greedy answered
    driver.find_element(By.ID, "undo").click()
    wait(driver, lambda d: sum(marks(d)) == 0)
    clicks = 0
    while state(driver) != "over":
        top = [driver.find_element(By.CSS_SELECTOR, f'[data-cell="0,{c}"]').get_attribute("data-mark") for c in range(7)]
        column = top.index("0")  # the leftmost open column, whatever happens
        driver.find_element(By.CSS_SELECTOR, f'[data-column="{column}"]').click()
        clicks += 1
        wait(driver, lambda d: answered(*snapshot(d), clicks))
        assert clicks <= 21
    board = marks(driver)
    assert board.count(1) == clicks and board.count(2) in (clicks - 1, clicks)
    line = driver.find_elements(By.CSS_SELECTOR, "[data-cell].win-line")
    text = driver.find_element(By.ID, "status").text
    if line:  # greedy's line (or, against a sloppy greedy, ours): at least four of one mark, shown
        winner = {cell.get_attribute("data-mark") for cell in line}
        assert len(line) >= 4 and len(winner) == 1
        assert text.startswith("greedy won" if winner == {"2"} else "You won")
    else:
        assert text.startswith("Draw") and 0 not in board


def test_values_of_a_loaded_game_agree_with_bitbully(driver, results_board):
    pytest.importorskip("bitbully")
    from tests.helpers import shared_oracle

    game = json.loads(open(SAMPLE, encoding="utf-8").read().splitlines()[2])
    assert game["game_id"] == 10
    ply = 17
    driver.get(results_board.url)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'[data-ply="{ply}"]'))
    driver.find_element(By.CSS_SELECTOR, f'[data-ply="{ply}"]').click()
    wait(driver, lambda d: marks(d).count(0) == 42 - ply)
    cells = wait(driver, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "[data-value-column]")]
                 if all(e.get_attribute("data-value") != "pending"
                        for e in d.find_elements(By.CSS_SELECTOR, "[data-value-column]")) else None)
    scores = shared_oracle().scores(game["moves"][:ply])
    exact = 0
    for cell in cells:
        column = int(cell.get_attribute("data-value-column"))
        value, score = cell.get_attribute("data-value"), cell.get_attribute("data-score")
        if column not in scores:
            assert value == "full"
            continue
        truth = scores[column]
        assert value == ("win" if truth > 0 else "loss" if truth < 0 else "draw"), (column, value, truth)
        if score is not None:
            assert int(score) == truth
            exact += 1
    assert exact >= 4  # the compiled solver or the Python search settles these late positions exactly
    driver.find_element(By.ID, "export-columns").click()
    expected = "".join(str(c + 1) for c in game["moves"][:ply])
    wait(driver, lambda d: d.find_element(By.ID, "export").get_attribute("value") == expected, 10)
    target = os.environ.get("BOARD_SCREENSHOT")
    if target:
        driver.save_screenshot(target)


def test_a_loaded_episode_highlights_its_first_losing_move(driver, tmp_path):
    pytest.importorskip("bitbully")
    from tests.helpers import shared_oracle

    episode = str(tmp_path / "episode.json")
    moves = an_episode(episode)
    oracle = shared_oracle()

    def outcome(score: int) -> int:
        return (score > 0) - (score < 0)

    first = None
    for ply, column in enumerate(moves):
        scores = oracle.scores(moves[:ply])
        if outcome(scores[column]) < outcome(max(scores.values())):
            first = ply
            break
    assert first is not None and first > 0
    board = Board(str(tmp_path), "greedy", "--game", episode)
    try:
        driver.get(board.url)
        highlighted = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-ply].first-losing"))
        assert [int(e.get_attribute("data-ply")) for e in highlighted] == [first]
        assert highlighted[0].get_attribute("data-label") == "outcome-losing"
        labels = [e.get_attribute("data-label") for e in driver.find_elements(By.CSS_SELECTOR, "[data-ply]")]
        assert len(labels) == len(moves) and labels[:first] == ["kept"] * first
        for button, stones in (("next", 1), ("next", 2), ("prev", 1)):  # the game is shown from its first move
            driver.find_element(By.ID, button).click()
            wait(driver, lambda d: marks(d).count(0) == 42 - stones)
        driver.find_element(By.ID, "play-on").click()  # red to move: the human takes red, greedy waits
        wait(driver, lambda d: d.find_element(By.ID, "status").get_attribute("data-mode") == "play"
             and state(d) == "human" and marks(d).count(0) == 41)
        driver.find_element(By.CSS_SELECTOR, '[data-column="6"]').click()
        wait(driver, lambda d: state(d) == "human" and marks(d).count(0) == 39)  # greedy answered
    finally:
        board.close()


def test_requests_without_the_token_or_with_a_foreign_host_are_refused(results_board):
    def status(path: str, headers: dict | None = None) -> int:
        request = urllib.request.Request(results_board.base + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    token = results_board.token
    assert status(f"/?token={token}") == 200 and status(f"/api/state?token={token}") == 200
    assert status("/") == 403 and status("/api/state") == 403 and status("/?token=not-it") == 403
    assert status(f"/?token={token}", {"Host": "attacker.example"}) == 403
    assert status(f"/api/state?token={token}", {"Host": "rebound.example:8000"}) == 403


def test_the_inline_board_steps_with_no_server(driver, tmp_path):
    """A hosted notebook's board (connectx_toolkit.open_board on Kaggle or Colab), saved as a page and opened from
    the disk: its own script steps through the game, every position's values already in the page."""
    from connectx_toolkit.board.inline import inline_board
    from connectx_toolkit.board.server import BoardOptions

    short = os.path.join(ROOT, "tests", "data", "short_game.jsonl")
    shown = inline_board(BoardOptions(game=short, analysis_cache="none", workers=1), "Live play needs a local kernel.",
                         progress=False)
    driver.get("about:blank")  # an earlier test's page stops polling its server, now gone...
    driver.get_log("browser")  # ...and what it logged is drained
    driver.get("file://" + shown.save(str(tmp_path / "board.html")))
    root = driver.find_element(By.CSS_SELECTOR, ".cxb")
    first = shown.data["game"]["first_losing"]
    assert root.get_attribute("data-ready") == "1" and root.get_attribute("data-cursor") == str(first)

    def board() -> list[int]:  # Kaggle's layout, row 0 on top (the page lists cells column by column)
        cells = driver.execute_script('return Array.from(document.querySelectorAll("[data-cell]"),'
                                      ' e => [e.getAttribute("data-cell"), Number(e.getAttribute("data-mark"))]);')
        by_cell = {tuple(map(int, cell.split(","))): mark for cell, mark in cells}
        return [by_cell[(r, c)] for r in range(6) for c in range(7)]

    def shows(ply: int) -> bool:
        position = shown.data["positions"][ply]
        values = [(e.get_attribute("data-value"), e.get_attribute("data-score"))
                  for e in driver.find_elements(By.CSS_SELECTOR, "[data-value-column]")]
        expected = [(v["value"], None if v["score"] is None else str(v["score"])) for v in position["values"] or []]
        status = driver.find_element(By.CSS_SELECTOR, '[data-role="status"]')
        current = [e.get_attribute("data-ply") for e in driver.find_elements(By.CSS_SELECTOR, "li.cxb-current")]
        return (board() == position["board"] and status.text == position["message"]
                and (values == expected or position["values"] is None) and current == ([str(ply)] if ply < 7 else []))

    assert shows(first)
    driver.find_element(By.CSS_SELECTOR, '[data-action="next"]').click()
    wait(driver, lambda d: shows(first + 1), 5)
    driver.find_element(By.CSS_SELECTOR, 'li[data-ply="0"]').click()
    wait(driver, lambda d: shows(0) and sum(marks(d)) == 0, 5)
    assert driver.find_element(By.CSS_SELECTOR, '[data-action="prev"]').get_attribute("disabled") == "true"
    root.send_keys(Keys.ARROW_RIGHT)
    wait(driver, lambda d: shows(1) and marks(d).count(1) == 1, 5)
    driver.find_element(By.CSS_SELECTOR, '[data-action="last"]').click()
    wait(driver, lambda d: shows(7), 5)
    assert driver.find_element(By.CSS_SELECTOR, '[data-role="status"]').text == "greedy won: four in a row."
    assert len(driver.find_elements(By.CSS_SELECTOR, ".cxb-win-line")) == 4
    assert not driver.find_element(By.CSS_SELECTOR, '[data-role="values"]').is_displayed()  # the game is over
    assert [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"] == []
