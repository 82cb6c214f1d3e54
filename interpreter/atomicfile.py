"""Whole-file writes that a crash cannot leave half done.

The text goes to a temporary file in the target's folder, is flushed to
disk, and then `os.replace`s the target in one step: a reader (or a later
run) sees the old file or the new one, never a mixture.  The temporary file
sits in the same folder because `os.replace` is atomic only within one
file system.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:  # name the file asked for, not the temporary one
        raise OSError(err.errno, err.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
