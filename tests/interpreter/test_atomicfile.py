"""Whole-file writes: the target holds the old text or the new, and no temporary file is left behind."""

from __future__ import annotations

import os

import pytest

from ruleplay.atomicfile import atomic_write_text


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
