"""The Kaggle client's parts without a server: credentials, the listing's shapes, agent logs, the cache folder."""

from __future__ import annotations

import json
import os

import pytest

from connectx_toolkit.on_kaggle.agent_logs import log_lines, own_error, read_log
from connectx_toolkit.on_kaggle.credentials import find_credentials
from connectx_toolkit.on_kaggle.errors import KaggleError
from connectx_toolkit.on_kaggle.files import LadderFolder

TRACEBACK = """Traceback (most recent call last):
  File "/opt/conda/lib/python3.11/site-packages/kaggle_environments/agent.py", line 194, in act
    action = self.agent(*args)
             ^^^^^^^^^^^^^^^^^
  File "/kaggle_simulations/agent/main.py", line 12, in agent
    book = json.loads(raw)
           ^^^^^^^^^^^^^^^
  File "/opt/conda/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
  File "/opt/conda/lib/python3.11/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("KAGGLE_API_TOKEN", "KAGGLE_USERNAME", "KAGGLE_KEY", "KAGGLE_CONFIG_DIR", "XDG_CONFIG_HOME",
                 "KAGGLE_KERNEL_RUN_TYPE"):
        monkeypatch.delenv(name, raising=False)
    return folder


def write_key_file(home, content: str) -> str:
    os.makedirs(home / ".kaggle", exist_ok=True)
    path = home / ".kaggle" / "kaggle.json"
    path.write_text(content)
    return str(path)


def test_an_error_raised_in_a_library_names_the_agents_own_line_first():
    entries = [{}, {"duration": 0.1, "stdout": "thinking\n", "stderr": ""}, {},
               {"duration": 0.2, "stdout": "", "stderr": TRACEBACK}]
    assert own_error(entries) == ("main.py:12 in agent: json.decoder.JSONDecodeError: Expecting value: line 1 column 1 "
                                  "(char 0) (raised in json/decoder.py:355)")
    lines = log_lines(entries)
    assert lines[0] == "move 1: thinking" and lines[1] == "move 2: Traceback (most recent call last):"
    assert not [line for line in lines if line.strip().endswith("^")]  # the marker lines are left out
    assert own_error(entries[:2]) is None


def test_a_log_of_steps_of_agents_is_read_as_the_agents_entries(tmp_path):
    path = tmp_path / "log.json"
    path.write_text(json.dumps([[], [{"duration": 0.1, "stdout": "a\n", "stderr": ""}, {}]]))
    assert log_lines(read_log(str(path))) == ["move 1: a"]
    path.write_text("not json")
    assert read_log(str(path)) is None and read_log(str(tmp_path / "absent.json")) is None


def test_credentials_come_in_the_official_clients_order(home, monkeypatch):
    with pytest.raises(KaggleError, match=r"^no Kaggle credentials found \(KAGGLE_API_TOKEN"):
        find_credentials()
    write_key_file(home, json.dumps({"username": "ada", "key": "k1"}))
    assert find_credentials().source == "~/.kaggle/kaggle.json" and find_credentials().key == "k1"
    monkeypatch.setenv("KAGGLE_KEY", "k2")  # the environment overrides a field of the file
    found = find_credentials()
    assert (found.username, found.key, found.source) == ("ada", "k2", "~/.kaggle/kaggle.json and KAGGLE_KEY")
    monkeypatch.setenv("KAGGLE_API_TOKEN", "KGAT_x")  # a token comes first
    assert find_credentials().token == "KGAT_x" and find_credentials().source == "KAGGLE_API_TOKEN"


@pytest.mark.parametrize("content, says", [
    ("{not json", "no Kaggle credentials: ~/.kaggle/kaggle.json is not JSON; create an API token"),
    ('["ada"]', "no Kaggle credentials: ~/.kaggle/kaggle.json is not a JSON object;"),
    ('{"username": "ada"}', "no Kaggle credentials: ~/.kaggle/kaggle.json gives no key;"),
])
def test_an_unusable_key_file_is_named(home, content, says):
    write_key_file(home, content)
    with pytest.raises(KaggleError) as raised:
        find_credentials()
    assert str(raised.value).startswith(says) and "\n" not in str(raised.value)


def test_ids_sent_as_json_strings_become_numbers():
    from kagglesdk.competitions.types.competition_api_service import ApiListSubmissionEpisodesResponse

    from connectx_toolkit.on_kaggle.episodes import _episode

    listing = ApiListSubmissionEpisodesResponse.from_dict({"episodes": [{
        "id": "71234567890", "state": "COMPLETED", "type": "EPISODE_TYPE_PUBLIC",
        "agents": [{"submissionId": "41000001", "reward": 1, "state": "EPISODE_AGENT_STATE_COMPLETE", "teamName": "Ada"},
                   {"index": "1", "submissionId": "42", "reward": -1, "teamName": "Bob"}]}]})
    episode = _episode(listing.episodes[0], {"agents": [{"index": "1", "initialScore": "612.5"}]})
    assert episode.id == 71234567890 and episode.finished and episode.type == "PUBLIC"
    assert episode.seats_of(41000001) == [0] and episode.agent(1).rating == 612.5 and episode.agent(0).rating is None
    assert episode.from_json(json.loads(json.dumps(episode.to_json()))) == episode


def test_a_file_is_written_whole_and_a_dead_runs_temporaries_are_removed(tmp_path, monkeypatch):
    folder = LadderFolder(str(tmp_path / "ladder" / "1"))
    folder.write(folder.replay(5), b'{"name": "connectx"}')
    assert open(folder.replay(5), "rb").read() == b'{"name": "connectx"}'
    dead = os.path.join(folder.directory, ".6.json.999999999.tmp")  # no such process
    alive = os.path.join(os.path.dirname(folder.log(6)), f".6.json.{os.getppid()}.tmp")
    for path in (dead, alive):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "wb").close()
    assert folder.remove_stale_temporaries() == 1
    assert not os.path.exists(dead) and os.path.exists(alive)

    class Refused(Exception):
        pass

    def refuse(*args):
        raise Refused()

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(Refused):
        folder.write(folder.replay(7), b"data")
    monkeypatch.undo()
    assert sorted(os.listdir(folder.directory)) == ["5.json", "logs"]  # neither the file nor its temporary
