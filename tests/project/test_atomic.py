"""connectx_toolkit.atomic: a file is replaced whole or not at all, and its temporary files name their writer."""

import os

import pytest

from connectx_toolkit import atomic
from connectx_toolkit.atomic import write_atomically, writer_of


def test_text_and_bytes_replace_the_file_and_leave_nothing_beside_it(tmp_path):
    path = tmp_path / "report.md"
    write_atomically(path, "première ligne\n")
    assert path.read_bytes() == "première ligne\n".encode("utf-8")
    write_atomically(str(path), b"\x00\xffbytes as they are")
    assert path.read_bytes() == b"\x00\xffbytes as they are"
    assert os.listdir(tmp_path) == ["report.md"]


def test_the_mode_is_opens_unless_given(tmp_path):
    with open(tmp_path / "plain", "w"):
        pass
    write_atomically(tmp_path / "atomic", "x")
    assert os.stat(tmp_path / "atomic").st_mode == os.stat(tmp_path / "plain").st_mode
    write_atomically(tmp_path / "given", "x", permissions=0o640)
    assert os.stat(tmp_path / "given").st_mode & 0o777 == 0o640


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, failing):
    path = tmp_path / "games.json"
    path.write_text("old")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(OSError, match="No space"):
        write_atomically(path, "new")
    monkeypatch.undo()
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["games.json"]


def test_a_missing_folder_is_an_error_and_creates_nothing(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "absent" / "file.txt", "x")
    assert os.listdir(tmp_path) == []


def test_the_temporary_lies_beside_the_file_and_names_its_writer(tmp_path, monkeypatch):
    seen = []
    replace = os.replace

    def watch(source, target):
        seen.append((os.path.dirname(source), os.path.basename(source), os.listdir(tmp_path)))
        replace(source, target)

    monkeypatch.setattr(os, "replace", watch)
    write_atomically(tmp_path / "45678.json", b"{}")
    write_atomically(tmp_path / "45678.json", b"{}")
    (folder, first, listed), (_, second, _) = seen
    assert folder == str(tmp_path) and listed == [first] and first.startswith(".45678.json.") and first != second
    assert writer_of(first) == writer_of(second) == os.getpid()


@pytest.mark.parametrize("name, writer", [
    (".6.json.4242.abcdefgh.tmp", 4242),
    (".6.json.4242.tmp", 4242),  # the older form, without letters
    (".45678.json.17.zz.tmp", 17),
    ("6.json.4242.tmp", None),  # not hidden
    (".6.json.tmp", None),  # no process id
    (".6.json.4242.abc.tmp.png", None),
    ("45678.json", None),
])
def test_writer_of_reads_the_process_id_back(name, writer):
    assert writer_of(name) == writer


def test_two_writers_drawing_the_same_letters_do_not_share_a_temporary(tmp_path, monkeypatch):
    draws = iter("a" * 8 + "a" * 8 + "b" * 8)
    monkeypatch.setattr(atomic.secrets, "choice", lambda letters: next(draws))
    taken = tmp_path / f".file.{os.getpid()}.aaaaaaaa.tmp"
    taken.write_text("another writer's")
    write_atomically(tmp_path / "file", "mine")
    assert (tmp_path / "file").read_text() == "mine" and taken.read_text() == "another writer's"
