"""``evaluate.py --ladder``: the real client (kagglesdk) against a local stand-in for Kaggle's API.

The stand-in (tests/kaggle_stand_in.py) answers on kagglesdk's TEST address with kagglesdk's own types;
its replays and logs are games played here by Kaggle's own runner (tests/ladder_episodes.py). Nothing
here reaches Kaggle itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from connectx_toolkit.cli import evaluate
from connectx_toolkit.on_kaggle import connection
from tests.kaggle_stand_in import KaggleStandIn, ListedEpisode
from tests.ladder_episodes import CATALOGUE, catalogue, other_competition_game
from tests.helpers import REPO

ROOT = REPO
OURS = 41000001
OPPONENTS = ("Bob", "Cy", "Dee", "Eve", "Fay")


@pytest.fixture(scope="module")
def solved(tmp_path_factory) -> str:
    """One analysis cache for the module: the same few games are labelled once."""
    return str(tmp_path_factory.mktemp("analysis") / "cache.sqlite")


@pytest.fixture
def kaggle(stand_in, monkeypatch, tmp_path):
    """The stand-in, reset; this test's own home and working folder; credentials in KAGGLE_USERNAME/KAGGLE_KEY;
    no pacing and short back-offs (the waits asked for are recorded in ``stand_in.waits``)."""
    stand_in.reset()
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("KAGGLE_API_TOKEN", "KAGGLE_CONFIG_DIR", "XDG_CONFIG_HOME", "KAGGLE_KERNEL_RUN_TYPE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KAGGLE_API_ENVIRONMENT", "TEST")
    monkeypatch.setenv("KAGGLE_USERNAME", "ada")
    monkeypatch.setenv("KAGGLE_KEY", "ada-secret")
    stand_in.accept_key("ada", "ada-secret")
    monkeypatch.setattr(connection, "PACE_S", 0.0)
    monkeypatch.setattr(connection, "BACKOFF_S", 0.01)
    stand_in.waits = []
    monkeypatch.setattr(connection, "_wait", stand_in.waits.append)
    monkeypatch.chdir(tmp_path)
    yield stand_in
    assert stand_in.errors == []  # the stand-in answered every request it was meant to


def add_ladder(server: KaggleStandIn, count: int, submission: int = OURS, first_id: int = 1001,
               without_log: tuple[int, ...] = (), unfinished: int = 0) -> dict[int, str]:
    """The validation episode (id first_id - 1) and ``count`` ladder episodes cycling through the catalogue,
    then ``unfinished`` episodes still being played; returns {episode id: catalogue name}."""
    games = catalogue()
    names = list(CATALOGUE)
    validation = games["validation"]
    episodes = [ListedEpisode(first_id - 1, [(0, submission, "Ada", None), (1, submission, "Ada", None)],
                              validation.replay_bytes(first_id - 1, ("Ada", "Ada")), {0: validation.log_bytes(0)},
                              type="EPISODE_TYPE_VALIDATION", rewards=(1, -1))]
    played = {first_id - 1: "validation"}
    for number in range(count):
        name = names[number % len(names)]
        _, seat, _ = CATALOGUE[name]
        opponent = OPPONENTS[number % len(OPPONENTS)]
        teams = ["Ada", "Ada"]
        teams[1 - seat] = opponent
        episode_id = first_id + number
        agents = [(s, submission if s == seat else 42000000 + number % len(OPPONENTS), teams[s],
                   600.0 + number if s != seat and number % 2 else None) for s in range(2)]
        game = games[name]
        logs = {} if episode_id in without_log else {seat: game.log_bytes(seat)}
        replay = game.replay_bytes(episode_id, tuple(teams))
        episodes.append(ListedEpisode(episode_id, agents, replay, logs, rewards=tuple(json.loads(replay)["rewards"])))
        played[episode_id] = name
    for number in range(unfinished):
        episodes.append(ListedEpisode(first_id + count + number, [(0, submission, "Ada", None), (1, 43000000, "Gus",
                                                                                                  None)],
                                      None, state="CREATED"))
    server.submissions[submission] = episodes
    return played


def run(argv: list[str], capsys, solved: str | None = None) -> tuple[int, str, list[str]]:
    extra = ["--workers", "2", "--no-progress", "--analysis-cache", solved] if solved else []
    code = evaluate.main([*argv, *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err.strip().splitlines()


def expected_record(played: dict[int, str]) -> dict[str, dict[str, int]]:
    record = {seat: {"games": 0, "win": 0, "draw": 0, "loss": 0} for seat in ("first", "second", "all")}
    for name in played.values():
        if name == "validation":
            continue
        _, seat, outcome = CATALOGUE[name]
        for key in (("first", "second")[seat], "all"):
            record[key]["games"] += 1
            record[key]["loss" if outcome in ("error", "timeout") else outcome] += 1
    return record


def test_a_ladder_of_100_episodes_is_downloaded_whole_and_analysed(kaggle, capsys, solved):
    played = add_ladder(kaggle, 100, unfinished=3)
    code, out, err = run(["--ladder", str(OURS), "--json"], capsys, solved)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["episodes"] == {"listed": 104, "finished": 101, "selected": 101, "downloaded": 101,
                                   "already_here": 0, "analysed": 101}
    assert kaggle.count("ListSubmissionEpisodes") == 1  # one list, whatever its length
    folder = os.path.join("ladder", str(OURS))
    for listed in kaggle.submissions[OURS][:101]:
        with open(os.path.join(folder, f"{listed.id}.json"), "rb") as handle:
            assert handle.read() == listed.replay  # as Kaggle sent it
        with open(os.path.join(folder, "logs", f"{listed.id}.json"), "rb") as handle:
            assert handle.read() == next(iter(listed.logs.values()))
    assert sorted(os.listdir(folder)) == sorted([f"{e}.json" for e in played] + ["analysis", "listing.json", "logs"])
    record = summary["record"]
    assert {k: {f: record[k][f] for f in ("games", "win", "draw", "loss")} for k in record} == expected_record(played)
    assert record["all"]["our_forfeits"] == sum(CATALOGUE[n][2] in ("error", "timeout") for n in played.values()
                                                if n != "validation")
    assert summary["validation"] == [{"episode": 1000, "outcomes": ["win", "loss"]}]
    opponents = {row["opponent"]: row for row in summary["opponents"]}
    assert [opponents[name]["games"] for name in OPPONENTS] == [20] * 5
    assert opponents["Bob"]["rating"] == 600.0 + 95  # its last game with us, ladder game 95, gave a rating
    assert opponents["Cy"]["rating"] == 600.0 + 91  # its last (96) gave none: the latest one given
    losing = {item["episode"]: item for item in summary["losing_moves"]}
    for episode, name in played.items():
        outcome = CATALOGUE[name][2] if name != "validation" else None
        assert (episode in losing) == (outcome in ("loss", "draw", "error", "timeout")), (episode, name)
    draw = losing[1001 + list(CATALOGUE).index("draw_first")]
    assert draw["outcome"] == "draw" and draw["before"] == "win" and draw["after"] == "draw"  # drawn from won
    assert os.path.exists(summary["analysis"]["plot"])
    forfeits = {item["episode"]: item for item in summary["forfeits"]}
    error = forfeits[1001 + list(CATALOGUE).index("error_first")]
    assert error["status"] == "ERROR" and error["where"] == "our_bot_crashes.py:8 in plan: ValueError: no plan for ply 6"
    assert error["log_tail"][-1] == "move 4: ValueError: no plan for ply 6"  # its 4th move raised
    timeout = forfeits[1001 + list(CATALOGUE).index("timeout_second")]
    assert timeout["status"] == "TIMEOUT" and timeout["where"] is None and timeout["log_tail"][-1] == "move 3: our_bot: move 3"


def test_the_summary_for_people(kaggle, capsys, solved):
    add_ladder(kaggle, 15, without_log=(1006,))
    kaggle.submissions[OURS][-1].replay = None  # finished, but Kaggle has no replay of it
    code, out, err = run(["--ladder", str(OURS)], capsys, solved)
    assert code == 0, err
    assert out.startswith(f"ladder: submission {OURS}: 16 episodes listed, 16 finished; 15 analysed, in ladder/{OURS}/")
    assert "  no replay on Kaggle of 1 finished episode(s): 1015 (asked again next time)" in out
    assert "  no log of episode 1006: Kaggle has no log of our agent" in out
    assert "as first player" in out and "as second player" in out and "by opponent (5;" in out
    assert "errors, timeouts and invalid moves of our agent (4):" in out
    assert "  ERROR in 1 game: no log\n    episode 1006 vs Bob (first player), at ply 6\n" in out  # its log missing
    assert ("  ERROR in 1 game: our_bot_crashes.py:8 in plan: ValueError: no plan for ply 6\n"
            "    episode 1013 vs Dee (first player), at ply 6\n"
            "    the last lines of its log in episode 1013:\n") in out
    assert "      | move 4: ValueError: no plan for ply 6" in out
    assert "  TIMEOUT in 2 games: no traceback in its log\n    episode 1007 vs Cy (second player), at ply 5\n" in out
    assert "episode 1005 vs Fay (first player, draw): ply " in out and ": win -> draw" in out
    assert "submission 41000001" in out and "opponents" in out  # the analysis's two sides
    assert f"connectx board --game ladder/{OURS}/" in out
    assert err == []

    kaggle.requests.clear()
    code, again, err = run(["--ladder", str(OURS)], capsys, solved)  # everything is here already
    assert code == 0, err
    assert [(method, body.get("episodeId")) for method, body in kaggle.requests] == [
        ("ListSubmissionEpisodes", None), ("GetEpisodeAgentLogs", 1006), ("GetEpisodeReplay", 1015)]  # the missing
    assert "downloaded 0 replays now, 15 were already here" in again


def test_a_429_is_waited_out_as_retry_after_asks(kaggle, capsys, solved):
    add_ladder(kaggle, 2)
    kaggle.faults["GetEpisodeReplay"] = [None, 429]  # the second replay: too many requests, once
    kaggle.retry_after = "7"
    code, out, err = run(["--ladder", str(OURS), "--json"], capsys, solved)
    assert code == 0, err
    assert json.loads(out)["episodes"]["downloaded"] == 3
    assert kaggle.waits == [7.0]
    assert err == [f"Kaggle's API: HTTP 429 (too many requests) for the replay of episode 1001; trying again in 7 s "
                   f"(2 of {connection.ATTEMPTS})"]
    assert kaggle.count("GetEpisodeReplay") == 4 and kaggle.served[("GetEpisodeReplay", 1001)] == 1


def test_a_5xx_is_retried_with_growing_waits_then_given_up_in_one_line(kaggle, capsys):
    add_ladder(kaggle, 5)
    kaggle.faults["GetEpisodeReplay"] = [None, None] + [500] * connection.ATTEMPTS
    code, out, err = run(["--ladder", str(OURS)], capsys)
    assert code == 2 and out == ""
    assert kaggle.waits == [0.01, 0.02, 0.04, 0.08]
    errors = [line for line in err if "error" in line]
    assert errors == [f"evaluate.py: error: Kaggle's API answered HTTP 500: Internal error {connection.ATTEMPTS} times "
                      "for the replay of episode 1002; giving up (try again later: files already downloaded are kept)"]
    assert len(err) == connection.ATTEMPTS  # the error and a notice per wait; no traceback
    folder = os.path.join("ladder", str(OURS))
    assert sorted(name for name in os.listdir(folder) if name.endswith(".json")) == [
        "1000.json", "1001.json", "listing.json"]
    assert not [name for name in os.listdir(folder) + os.listdir(os.path.join(folder, "logs")) if name.startswith(".")]


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_a_run_cut_halfway_resumes_without_fetching_a_file_twice(kaggle, capsys, solved, how):
    played = add_ladder(kaggle, 11)
    kaggle.hold_at = ("GetEpisodeReplay", 6)  # the sixth replay stops halfway through its body
    script = ("import sys\nfrom connectx_toolkit.on_kaggle import connection\nconnection.PACE_S = 0\n"
              "from connectx_toolkit.cli import evaluate\n"
              f"sys.exit(evaluate.main(['--ladder', '{OURS}', '--no-progress']))\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        assert kaggle.held.wait(60), "the run never reached the sixth replay"
        process.send_signal(getattr(signal, how))
        process.wait(30)
    finally:
        kaggle.release.set()
        if process.poll() is None:
            process.kill()
            process.wait()
    said = process.stderr.read()
    if how == "SIGINT":
        assert process.returncode == 130 and "Traceback" not in said
        assert said.strip().splitlines()[-1] == f"interrupted; every file in ladder/{OURS}/ is whole: the same command " \
                                                "carries on from there"
    folder = os.path.join("ladder", str(OURS))
    replays = sorted(name for name in os.listdir(folder) if name[0].isdigit())
    assert replays == [f"{episode}.json" for episode in sorted(played)[:5]]  # the five whole ones, none half
    for name in replays:
        listed = next(e for e in kaggle.submissions[OURS] if f"{e.id}.json" == name)
        with open(os.path.join(folder, name), "rb") as handle:
            assert handle.read() == listed.replay

    code, out, err = run(["--ladder", str(OURS), "--json"], capsys, solved)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["episodes"]["downloaded"] == 7 and summary["episodes"]["already_here"] == 5
    assert all(kaggle.served[("GetEpisodeReplay", e)] == 1 for e in played)  # each replay sent whole once
    assert all(kaggle.served[("GetEpisodeAgentLogs", e)] == 1 for e in played)
    assert not [n for n in os.listdir(folder) + os.listdir(os.path.join(folder, "logs")) if n.startswith(".")]


def test_max_takes_the_most_recent_finished_episodes_only(kaggle, capsys, solved):
    played = add_ladder(kaggle, 9, unfinished=2)
    code, out, err = run(["--ladder", str(OURS), "--max", "4", "--json"], capsys, solved)
    assert code == 0, err
    summary = json.loads(out)
    assert [game["episode"] for game in summary["games"]] == sorted(played)[-4:]
    assert kaggle.count("GetEpisodeReplay") == 4 and kaggle.count("GetEpisodeAgentLogs") == 4


def test_an_unknown_submission_is_one_line_and_writes_nothing(kaggle, capsys):
    add_ladder(kaggle, 2)
    code, out, err = run(["--ladder", "999"], capsys)
    assert code == 2 and out == ""
    assert err == ["evaluate.py: error: no submission 999 on Kaggle (Kaggle's API refused the episodes of submission "
                   "999: HTTP 404: Submission 999 not found)"]
    assert not os.path.exists("ladder")


def test_another_competitions_submission_is_one_line_and_writes_nothing(kaggle, capsys):
    game = other_competition_game()
    kaggle.submissions[777] = [ListedEpisode(5000 + n, [(0, 777, "Ada", None), (1, 42, "Bob", None)],
                                             game.replay_bytes(5000 + n, ("Ada", "Bob")), {0: game.log_bytes(0)})
                               for n in range(3)]
    code, out, err = run(["--ladder", "777"], capsys)
    assert code == 2 and out == ""
    assert err == ["evaluate.py: error: submission 777 is not a ConnectX submission: its episodes are games of 'rps' "
                   "(another competition)"]
    assert not os.path.exists("ladder")


def test_missing_credentials_are_one_line_before_any_request(kaggle, capsys, monkeypatch):
    add_ladder(kaggle, 2)
    monkeypatch.delenv("KAGGLE_USERNAME")
    monkeypatch.delenv("KAGGLE_KEY")
    code, out, err = run(["--ladder", str(OURS)], capsys)
    assert code == 2 and out == "" and len(err) == 1
    assert err[0].startswith("evaluate.py: error: no Kaggle credentials found (KAGGLE_API_TOKEN, ~/.kaggle/access_token,")
    assert "https://www.kaggle.com/settings/api" in err[0]
    assert kaggle.requests == [] and not os.path.exists("ladder")


def test_refused_credentials_are_one_line(kaggle, capsys, monkeypatch):
    add_ladder(kaggle, 2)
    monkeypatch.setenv("KAGGLE_KEY", "wrong")
    code, out, err = run(["--ladder", str(OURS)], capsys)
    assert code == 2 and err == [
        "evaluate.py: error: Kaggle refused the credentials from KAGGLE_USERNAME and KAGGLE_KEY (HTTP 401: "
        f"Unauthenticated: no valid credentials) for the episodes of submission {OURS}"]
    assert not os.path.exists("ladder")


@pytest.mark.parametrize("where", ["KAGGLE_API_TOKEN", "token file", "access_token", "kaggle.json", "KAGGLE_CONFIG_DIR",
                                   "kaggle auth login"])
def test_the_official_clients_credentials_are_used(kaggle, capsys, monkeypatch, tmp_path, where):
    kaggle.reset()  # only what this case supplies is accepted
    kaggle.submissions[OURS] = [ListedEpisode(1, [(0, OURS, "Ada", None), (1, 2, "Bob", None)], None, state="CREATED")]
    monkeypatch.delenv("KAGGLE_USERNAME")
    monkeypatch.delenv("KAGGLE_KEY")
    home = os.environ["HOME"]
    if where == "KAGGLE_API_TOKEN":
        monkeypatch.setenv("KAGGLE_API_TOKEN", "KGAT_token")
        kaggle.accept_token("KGAT_token")
    elif where == "token file":
        (tmp_path / "token.txt").write_text("KGAT_from_file\n")
        monkeypatch.setenv("KAGGLE_API_TOKEN", str(tmp_path / "token.txt"))
        kaggle.accept_token("KGAT_from_file")
    elif where == "access_token":
        os.makedirs(os.path.join(home, ".kaggle"))
        with open(os.path.join(home, ".kaggle", "access_token"), "w") as handle:
            handle.write("KGAT_saved")
        kaggle.accept_token("KGAT_saved")
    elif where == "kaggle auth login":  # a refresh token saved; the access token is bought from the API
        os.makedirs(os.path.join(home, ".kaggle"))
        with open(os.path.join(home, ".kaggle", "credentials.json"), "w") as handle:
            json.dump({"refresh_token": "refresh-me", "access_token": "", "username": "ada"}, handle)
        kaggle.refresh_tokens["refresh-me"] = "KGAT_fresh"
        kaggle.accept_token("KGAT_fresh")
    else:
        folder = os.path.join(home, ".kaggle") if where == "kaggle.json" else str(tmp_path / "config")
        os.makedirs(folder)
        with open(os.path.join(folder, "kaggle.json"), "w") as handle:
            json.dump({"username": "ada", "key": "from-file"}, handle)
        if where == "KAGGLE_CONFIG_DIR":
            monkeypatch.setenv("KAGGLE_CONFIG_DIR", folder)
        kaggle.accept_key("ada", "from-file")
    code, out, err = run(["--ladder", str(OURS)], capsys)
    assert code == 0, err
    assert out == f"ladder: submission {OURS}: 1 episodes listed, 0 finished; 0 analysed, in ladder/{OURS}/\n" \
                  "  none finished yet: Kaggle plays a new submission's episodes over the next hours\n"
    assert not os.path.exists("ladder")


def test_no_network_is_one_line(kaggle, capsys, monkeypatch):
    monkeypatch.setenv("KAGGLE_API_ENVIRONMENT", "LOCALHOST")  # kagglesdk's http://localhost: nothing listens
    code, out, err = run(["--ladder", str(OURS)], capsys)
    assert code == 2 and out == ""
    assert err[-1] == (f"evaluate.py: error: cannot reach Kaggle's API at http://localhost for the episodes of submission "
                       f"{OURS}: Connection refused {connection.ATTEMPTS} times (no network? files already downloaded "
                       "are kept)")
    assert len(err) == connection.ATTEMPTS and not os.path.exists("ladder")


def test_a_downloaded_episode_loads_on_the_board_as_downloaded(kaggle, capsys, solved):
    from connectx_toolkit import open_board as board

    played = add_ladder(kaggle, 3)
    code, _, err = run(["--ladder", str(OURS)], capsys, solved)
    assert code == 0, err
    loss = next(e for e, name in played.items() if name == "loss_first")
    path = os.path.join("ladder", str(OURS), f"{loss}.json")
    replay = json.loads(kaggle.submissions[OURS][loss - 1000].replay)
    served = board("greedy", game=path)
    try:
        game = served.session.state()["game"]
        assert game["game_id"] == loss and game["agents"] == replay["info"]["TeamNames"]
        assert game["outcomes"] == ["loss", "win"] and len(game["moves"]) == len(replay["steps"]) - 1
    finally:
        served.close()


@pytest.mark.parametrize("argv, says", [
    (["--max", "3"], "unrecognized arguments: --max"),  # the ladder's flags are no options of a match
    (["--dir", "x"], "unrecognized arguments: --dir"),
    (["--ladder", "0"], "argument --ladder: '0' is not a submission id (a positive number)"),
    (["--ladder", "abc"], "argument --ladder: 'abc' is not a submission id (a number, e.g. 41234567)"),
    (["--ladder", "5", "greedy"], "unrecognized arguments: greedy"),
    (["--ladder", "5", "--board"], "unrecognized arguments: --board"),  # two jobs: the first in priority refuses
    (["--ladder", "5", "--submit", "x.py", "-m", "v"], "unrecognized arguments: --ladder 5"),
])
def test_bad_flags_are_one_line(argv, says, capsys):
    assert evaluate.main(argv) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"evaluate.py: error: {says}"]
