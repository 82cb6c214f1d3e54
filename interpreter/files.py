"""Files a user names: read only regular files, never more than a limit; replace only regular files.

A path given on the command line or to the API can name anything: a folder,
a FIFO (opening it for reading waits for a writer, for ever), a device such
as /dev/zero (endless), or a regular file of many gigabytes.  Every reader
here refuses what is not a regular file before reading a byte, and reads at
most a stated limit: a whole file (a saved state, a scenario) has a size
limit, a JSON Lines file (a game log, a results file) is read one line at a
time with a limit per line, so a long file costs time, never memory.

Every writer checks its target with `write_target`: a target that exists
and is not a regular file (a FIFO, a device node, a folder) is refused,
since replacing it with an ordinary file would silently undo what the user
set up.  A symbolic link is written through: the regular file it names is
the one replaced, and the link stays a link.

Whole-file writes (`atomic_write_text`) cannot be left half done by a
crash: the text goes to a temporary file in the target's folder, is flushed
to disk, and then `os.replace`s the target in one step, so a reader (or a
later run) sees the old file or the new one, never a mixture.  The temporary
file sits in the same folder because `os.replace` is atomic only within one
file system.

Problems are `UserFileError`, an OSError whose `strerror` says what is wrong,
so each reader's "cannot read X: <strerror>" stays one clear line.
"""

from __future__ import annotations

import errno
import json
import itertools
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Iterator

MAX_LINE_BYTES = 1 << 20  # one line of a game log or results file: a few hundred bytes in practice

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class UserFileError(OSError):
    """A path that is not a regular file, or a file (or line) over its size limit."""


def kind(mode: int) -> str:
    """What a file of this `st_mode` is, for messages: "a regular file", "a FIFO (named pipe)", ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def _not_regular(path: str | os.PathLike, mode: int) -> UserFileError:
    return UserFileError(errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL,
                         f"{kind(mode)}, not a regular file", str(path))


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """Open a regular file for reading; anything else is refused without being opened.

    The second check, on the open descriptor, covers a file swapped between
    the two calls; O_NONBLOCK makes that open return at once even if the
    swap put a FIFO there.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The whole of a regular file of at most `limit` bytes."""
    with open_regular(path) as stream:
        size = os.fstat(stream.fileno()).st_size
        data = b"" if size > limit else stream.read(limit + 1)
    size = max(size, len(data))  # a file may grow while it is read
    if size > limit:
        raise UserFileError(errno.EFBIG, f"the file is {size} bytes, over the limit of {limit}", str(path))
    return data


def lines(path: str | os.PathLike, limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of a regular file one at a time, each with its b"\\n" (the last may lack it)."""
    with open_regular(path) as stream:
        for number in itertools.count(1):
            line = stream.readline(limit + 1)
            if not line:
                return
            if len(line) > limit:
                raise UserFileError(errno.EFBIG, f"line {number} is longer than the limit of {limit} bytes",
                                    str(path))
            yield line


def write_target(path: str | os.PathLike) -> Path:
    """The file that writing `path` replaces: `path`, or the file its symbolic link names.

    Raises UserFileError if that exists and is not a regular file.  A target
    that does not exist yet is returned as is: creating it is the writer's job.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        raise _not_regular(path, mode)
    return target


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Replace the file at `path` (through a symbolic link) with `text` as UTF-8; returns `path`."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Replace the file at `path` (through a symbolic link) with `data`; returns `path`."""
    path = Path(path)
    target = write_target(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as err:  # name the file asked for, not the temporary one
        raise OSError(err.errno, err.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
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


def json_value(text: str | bytes) -> Any:
    """One JSON document from a user's file; ValueError for anything else.

    `json.loads` raises RecursionError on nesting a few thousand deep,
    accepts `NaN` and `Infinity`, which are not JSON, and keeps the last of
    two equal keys (`{"seed": 3, "seed": 4}` reads as seed 4, and a reader
    that took the first would see another game): all three become the
    ValueError every reader already turns into its own located message.
    """
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as err:
        if "integer string conversion" in str(err):  # Python's advice is for programmers: sys.set_int_max_...
            raise ValueError(f"a number of more than {sys.get_int_max_str_digits()} digits: no value of a game "
                             f"has that many") from None
        raise


def json_line(text: str) -> Any:
    """One line of a JSON Lines file (a game log, a results file): `json_value`, with a ValueError that
    says what is wrong with the line the caller names, with its start, the fault placed by its column.

    The decoder counts lines and characters itself, and the line ending made
    a blank line `Expecting value: line 2 column 1 (char 1)`; a reader given
    `file:4:` wants "a blank line", or the column of line 4.
    """
    line = text.rstrip("\r\n")
    if not line.strip():
        raise ValueError("a blank line, where every line holds one JSON object")
    try:
        return json_value(line)
    except ValueError as err:
        if isinstance(err, json.JSONDecodeError):
            err = ValueError(f"{err.msg} " + ("at the end of the line" if err.pos >= len(line)
                                              else f"at column {err.colno}"))
        raise ValueError(f"not a JSON line ({err}): {line.rstrip()[:60]!r}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {json.dumps(twice)} is given twice")
    return value
