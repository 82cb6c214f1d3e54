"""Whole-file writes that a crash cannot leave half done.

The text goes to a temporary file in the target's folder, is flushed to
disk, and then `os.replace`s the target in one step: a reader (or a later
run) sees the old file or the new one, never a mixture.  The temporary file
sits in the same folder because `os.replace` is atomic only within one
file system.

The target is what `userfiles.write_target` says: a symbolic link is
written through (the regular file it names is replaced, with its
permissions, and the link stays), and a FIFO, device node or folder is
refused with a UserFileError instead of being replaced by an ordinary file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .userfiles import write_target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Replace the file at `path` (through a symbolic link) with `text`; returns `path`."""
    path = Path(path)
    target = write_target(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as err:  # name the file asked for, not the temporary one
        raise OSError(err.errno, err.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            # mkstemp's 0600 would make a report private: a replaced file keeps its permissions,
            # a new one gets what the user's umask gives any new file.
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode) if target.exists() else _new_file_mode())
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
