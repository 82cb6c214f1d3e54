"""Whole-file writes: the target holds the old text or the new, no temporary file is left behind, and
only a regular file (or one a symbolic link names) is ever replaced."""

from __future__ import annotations

import os
import stat

import pytest

from ruleplay.atomicfile import atomic_write_text
from ruleplay.userfiles import UserFileError


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
