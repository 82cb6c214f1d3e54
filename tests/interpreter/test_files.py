"""User files: only regular files are read, never past a limit, and only regular files are replaced.

Whole-file writes leave the target with the old text or the new and no
temporary file behind, and without `replace` never take the place of a file
that is there.  A held file is written by one holder at a time, and only in
whole appends.

FIFOs and symbolic links are made under tmp_path; no test touches a real device.
A FIFO that were opened for reading would wait for a writer for ever: the
timeouts turn such a regression into a failure instead of a stalled run.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import stat
import time

import pytest

from ruleplay import files
from ruleplay.files import UserFileError, atomic_write_text, lines, read_bytes, write_target

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_a_regular_file_is_read_whole(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b"{}\n")
    assert read_bytes(path, 3) == b"{}\n"


def test_a_file_over_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "big.json"
    with path.open("wb") as out:
        out.truncate(10 ** 10)  # sparse: a 10 GB file that costs no disk
    with pytest.raises(UserFileError) as err:
        read_bytes(path, 100)
    assert (err.value.strerror, err.value.filename) == ("the file is 10000000000 bytes, over the limit of 100",
                                                        str(path))


@pytest.mark.parametrize("make,kind", [
    (lambda p: os.mkfifo(p), "a FIFO (named pipe)"),
    (lambda p: p.mkdir(), "a folder"),
])
def test_what_is_not_a_regular_file_is_refused_unopened(tmp_path, make, kind):
    path = tmp_path / "x"
    make(path)
    for read in (lambda: read_bytes(path, 100), lambda: next(lines(path))):
        with pytest.raises(UserFileError) as err:
            read()
        assert err.value.strerror == f"{kind}, not a regular file"
        assert err.value.filename == str(path)


def test_a_symbolic_link_to_a_regular_file_is_read(tmp_path):
    target = tmp_path / "target.jsonl"
    target.write_bytes(b"a\nb")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert list(lines(link)) == [b"a\n", b"b"]


def test_lines_come_one_at_a_time_each_within_the_limit(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"12345\n" + b"x" * 50 + b"\n")
    read = lines(path, limit=10)
    assert next(read) == b"12345\n"
    with pytest.raises(UserFileError, match="line 2 is longer than the limit of 10 bytes"):
        next(read)


def test_missing_files_are_the_usual_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_bytes(tmp_path / "missing", 10)


def test_write_target_is_the_file_or_what_its_link_names(tmp_path, fifo):
    plain = tmp_path / "r.json"
    assert write_target(plain) == plain.resolve()  # not there yet: the writer creates it
    plain.write_text("x")
    assert write_target(plain) == plain.resolve()
    link = tmp_path / "link.json"
    link.symlink_to(plain)
    assert write_target(link) == plain.resolve()
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "new.json")
    assert write_target(dangling) == (tmp_path / "new.json").resolve()


def test_write_target_refuses_what_is_not_a_regular_file(tmp_path, fifo):
    to_fifo = tmp_path / "to-fifo"
    to_fifo.symlink_to(fifo)
    for path, kind in ((fifo, "a FIFO (named pipe)"), (to_fifo, "a FIFO (named pipe)"), (tmp_path, "a folder")):
        with pytest.raises(UserFileError) as err:
            write_target(path)
        assert err.value.strerror == f"{kind}, not a regular file" and err.value.filename == str(path)


def test_kinds_are_named():
    assert files.kind(os.stat(".").st_mode) == "a folder"
    assert files.kind(0o100644) == "a regular file"
    assert files.kind(0o020666) == "a character device"


# ------------------------------------------------------------- atomic writes

def test_writes_the_text(tmp_path):
    path = atomic_write_text(tmp_path / "r.json", "new\n")
    assert path.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["r.json"]


@pytest.mark.parametrize("fail_at", ["write", "replace"])
def test_a_failed_write_leaves_the_old_file_whole(tmp_path, monkeypatch, fail_at):
    path = tmp_path / "r.json"
    path.write_text("old\n")

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    target = "os.replace" if fail_at == "replace" else "os.fsync"
    monkeypatch.setattr(target, boom)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(path, "new text that never lands\n")
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["r.json"]


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        atomic_write_text(tmp_path / "nowhere" / "r.json", "x")
    assert err.value.filename == str(tmp_path / "nowhere" / "r.json")


def test_a_symbolic_link_is_written_through(tmp_path):
    target = tmp_path / "run-42.json"
    target.write_text("old\n")
    target.chmod(0o644)
    link = tmp_path / "latest.json"
    link.symlink_to(target.name)
    assert atomic_write_text(link, "new\n") == link
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o644  # the replaced file keeps its permissions
    assert sorted(os.listdir(tmp_path)) == ["latest.json", "run-42.json"]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("through_link", [False, True])
def test_a_fifo_is_refused_not_replaced(tmp_path, through_link):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    path = fifo
    if through_link:
        path = tmp_path / "link"
        path.symlink_to(fifo)
    with pytest.raises(UserFileError, match=r"a FIFO \(named pipe\), not a regular file") as err:
        atomic_write_text(path, "x")
    assert err.value.filename == str(path)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == sorted({"out.fifo", path.name})


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(UserFileError, match="a folder, not a regular file"):
        atomic_write_text(tmp_path, "x")


def test_a_new_file_gets_the_umask_mode_not_a_private_one(tmp_path):
    old = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "new.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_without_replace_a_file_there_is_kept(tmp_path):
    path = tmp_path / "r.json"
    assert files.atomic_write_text(path, "mine\n", replace=False) == path
    with pytest.raises(FileExistsError) as err:
        files.atomic_write_text(path, "theirs\n", replace=False)
    assert err.value.filename == str(path)
    assert path.read_text() == "mine\n" and os.listdir(tmp_path) == ["r.json"]


def test_without_hard_links_a_file_there_is_still_kept(tmp_path, monkeypatch):
    def no_links(*args):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "r.json"
    files.atomic_write_text(path, "mine\n", replace=False)
    with pytest.raises(FileExistsError):
        files.atomic_write_text(path, "theirs\n", replace=False)
    assert path.read_text() == "mine\n" and os.listdir(tmp_path) == ["r.json"]


# ------------------------------------------------------------- held files

def test_a_held_file_is_refused_to_a_second_holder_until_released(tmp_path):
    path = tmp_path / "r.jsonl"
    first = files.HeldFile.create(path)
    with pytest.raises(files.FileInUseError) as err:
        files.HeldFile.open(path)
    assert err.value.strerror == "another process is writing it" and err.value.filename == str(path)
    assert files.held_elsewhere(path)
    with pytest.raises(FileExistsError):
        files.HeldFile.create(path)
    first.close()
    assert not files.held_elsewhere(path)
    files.HeldFile.open(path).close()


def test_a_file_system_that_keeps_no_locks_is_written_without_one(tmp_path, monkeypatch):
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with files.HeldFile.create(tmp_path / "r.jsonl") as held:
        held.append(b"a line\n")
    assert (tmp_path / "r.jsonl").read_bytes() == b"a line\n"


def test_appends_are_whole_or_cut_back(tmp_path, disk_full):
    path = tmp_path / "r.jsonl"
    with files.HeldFile.create(path) as held:
        held.append(b"first line\n")
        disk_full(tmp_path, 5)
        with pytest.raises(OSError) as err:
            held.append(b"second line\n")
        assert err.value.errno == errno.ENOSPC and err.value.filename == str(path)
        assert held.size == 11
        disk_full(tmp_path, 100)
        held.append(b"third line\n")
    assert path.read_bytes() == b"first line\nthird line\n"


def _sleep(started, seconds: float) -> None:
    started.set()
    time.sleep(seconds)


def test_a_forked_child_does_not_keep_the_file_held(tmp_path):
    """A worker forked while a results file is held outlived a killed parent, and kept the lock."""
    path = tmp_path / "r.jsonl"
    held = files.HeldFile.create(path)
    fork = multiprocessing.get_context("fork")
    started = fork.Event()
    child = fork.Process(target=_sleep, args=(started, 30), daemon=True)
    child.start()
    try:
        assert started.wait(20)
        held.close()
        assert child.is_alive() and not files.held_elsewhere(path)
    finally:
        child.kill()
        child.join()


@pytest.mark.parametrize("text, message", [
    ('{"seed": 3, "seed": 4}', 'the key "seed" is given twice'),
    ('{"a": {"b": 1, "b": 1}}', 'the key "b" is given twice'),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": ' + "9" * 5001 + "}", "a number of more than 4300 digits: no value of a game has that many"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_json_from_a_users_file_is_strict_and_says_why_not(text, message):
    with pytest.raises(ValueError) as err:
        files.json_value(text)
    assert str(err.value) == message
    assert files.json_value('{"a": [1, -2.5, "x", null, true]}') == {"a": [1, -2.5, "x", None, True]}
