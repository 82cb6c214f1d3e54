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
file system.  A file that must not replace one (`replace=False`: the user
did not say `--overwrite`) is put in place by `os.link`, which fails if a
file appeared at the name meanwhile: a check made when the command started
cannot see a file someone creates during an hour's run.

Files written a line at a time (a results file, a game log) are `HeldFile`s:
held by one process at a time through an OS lock (`flock`), so a second run
naming the same file is refused instead of writing over the first one's
bytes, and written by whole appends, so a write that fails part way (a full
disk) is cut back and the file ends at its last whole line.

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
import weakref
from pathlib import Path
from typing import Any, BinaryIO, Iterator

try:
    import fcntl
except ImportError:  # Windows: no flock; a HeldFile is then written without a lock
    fcntl = None  # type: ignore[assignment]

MAX_LINE_BYTES = 1 << 20  # one line of a game log or results file: a few hundred bytes in practice

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class UserFileError(OSError):
    """A path that is not a regular file, or a file (or line) over its size limit."""


class FileInUseError(UserFileError):
    """A file another process holds for writing (see `HeldFile`)."""


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


def atomic_write_text(path: str | os.PathLike, text: str, replace: bool = True) -> Path:
    """Write `text` as UTF-8 to the file at `path` (through a symbolic link) whole or not at all; returns
    `path`.  With `replace` False a file there is kept: FileExistsError."""
    return atomic_write_bytes(path, text.encode("utf-8"), replace)


def atomic_write_bytes(path: str | os.PathLike, data: bytes, replace: bool = True) -> Path:
    """Write `data` to the file at `path` (through a symbolic link) whole or not at all; returns `path`.

    With `replace` (the default) a file already there is replaced in one
    step; without it, a file there, even one that appeared a moment ago, is
    kept and FileExistsError raised.  Any OSError names `path`.
    """
    path = Path(path)
    target = write_target(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as err:  # name the file asked for, not the temporary one
        raise OSError(err.errno, err.strerror, str(path)) from None
    try:
        try:
            write_all(fd, data)
            # mkstemp's 0600 would make a report private: a replaced file keeps its permissions,
            # a new one gets what the user's umask gives any new file.
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode) if target.exists() else _new_file_mode())
            os.fsync(fd)
        finally:
            os.close(fd)
        if replace:
            os.replace(tmp, target)
        else:
            _put_new(tmp, target, data)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(err.errno, err.strerror, str(path)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# A file system without hard links (FAT, some network and FUSE ones) refuses os.link with one of these.
_NO_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV}


def _put_new(tmp: str, target: Path, data: bytes) -> None:
    """The whole file `tmp` at the name `target`, which must be free: FileExistsError if it is taken.

    `os.link` gives the written file its second name only if the name is
    free, in one step (`os.replace` would replace), and the temporary name
    goes.  Where the file system has no hard links, the target is created
    exclusively and written in place: still never over a file, though a
    crash then leaves it part written.
    """
    try:
        os.link(tmp, target)
    except OSError as err:
        if err.errno not in _NO_LINKS:
            raise
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            write_all(fd, data)
            os.fsync(fd)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        finally:
            os.close(fd)
    Path(tmp).unlink(missing_ok=True)


def write_all(fd: int, data: bytes) -> None:
    """All of `data` to `fd`: `os.write` may write only part (a full disk takes what fits, then refuses)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


_HELD: "weakref.WeakSet[HeldFile]" = weakref.WeakSet()


class HeldFile:
    """A regular file that this process alone writes, and only at its end, while it holds it.

    The hold is an exclusive `flock` on the open file, taken without
    waiting: a second process (another ruleplay run naming the file) gets
    FileInUseError at once.  The OS drops the lock when the holder exits or
    is killed, so a crash leaves no stale lock behind; a child process
    forked while the file is held closes its copy at once (`_forget_held`),
    so a worker that outlives a killed parent does not keep the file held.
    On a system without `flock` (Windows), or a file system that keeps no
    locks, the file is written without one.

    `append` writes its bytes whole or not at all: a write that fails part
    way (a full disk) is cut back to where it started before the error is
    raised, so the file always ends after its last whole record.
    Every OSError names the file.
    """

    def __init__(self, path: str | os.PathLike, fd: int):
        self.path = Path(path)
        self._fd = fd
        self.size = os.fstat(fd).st_size
        _HELD.add(self)

    @classmethod
    def create(cls, path: str | os.PathLike) -> "HeldFile":
        """A new file at `path` (a symbolic link to none yet is written through); FileExistsError if
        there is a file there already."""
        return cls._open(path, os.O_CREAT | os.O_EXCL)

    @classmethod
    def open(cls, path: str | os.PathLike, create: bool = True) -> "HeldFile":
        """The regular file at `path`, created empty if there is none (FileNotFoundError without `create`)."""
        return cls._open(path, os.O_CREAT if create else 0)

    @classmethod
    def _open(cls, path: str | os.PathLike, flags: int) -> "HeldFile":
        target = write_target(path)
        flags |= os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(target, flags, 0o666)
        except OSError as err:
            raise type(err)(err.errno, err.strerror, str(path)) from None
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise _not_regular(path, mode)
            _lock(fd, path)
            if not _same_file(fd, target):  # removed or replaced between the open and the lock
                raise FileInUseError(errno.EBUSY, "another process replaced it as it was opened", str(path))
            return cls(path, fd)
        except BaseException:
            os.close(fd)
            raise

    @property
    def closed(self) -> bool:
        return self._fd < 0

    def append(self, data: bytes) -> None:
        """Write `data` at the end, whole: on any error the file is cut back to its size before."""
        start = self.size
        try:
            write_all(self._fd, data)
        except BaseException as err:
            try:
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            if isinstance(err, OSError):
                raise type(err)(err.errno, err.strerror, str(self.path)) from None
            raise
        self.size = start + len(data)

    def cut(self, size: int) -> None:
        """Cut the file back to its first `size` bytes (a torn tail, moves taken back)."""
        self._call(os.ftruncate, size)
        self.size = size

    def sync(self) -> None:
        """What was appended, on the disk (not only in the system's cache)."""
        self._call(os.fsync)

    def _call(self, fn: Any, *args: Any) -> None:
        try:
            fn(self._fd, *args)
        except OSError as err:
            raise type(err)(err.errno, err.strerror, str(self.path)) from None

    def remove(self) -> None:
        """Remove the file (one that holds nothing whole: its first write failed) and release it."""
        try:
            if not self.closed and _same_file(self._fd, self.path):
                self.path.unlink(missing_ok=True)
        finally:
            self._forget()

    def close(self) -> None:
        """Sync and release the file (closing its descriptor drops the lock)."""
        if self.closed:
            return
        try:
            self.sync()
        finally:
            fd, self._fd = self._fd, -1
            os.close(fd)

    def __enter__(self) -> "HeldFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _forget(self) -> None:
        """Close the descriptor without a sync (in a forked child, its copy: the parent keeps the lock)."""
        if not self.closed:
            fd, self._fd = self._fd, -1
            os.close(fd)


def _forget_held() -> None:
    for held in list(_HELD):
        held._forget()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_held)


# A file system that keeps no locks (some network and FUSE ones) refuses flock with one of these.
_NO_LOCKS = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL}


def _lock(fd: int, path: str | os.PathLike) -> None:
    """The exclusive lock of a HeldFile: FileInUseError if another process has it; none at all where the
    system or the file system keeps no locks (the file is then written as it would be without one)."""
    if fcntl is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise FileInUseError(errno.EBUSY, "another process is writing it", str(path)) from None
    except OSError as err:
        if err.errno not in _NO_LOCKS:
            raise


def _same_file(fd: int, path: Path) -> bool:
    try:
        there = os.stat(path)
    except OSError:
        return False
    here = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (here.st_dev, here.st_ino)


def held_elsewhere(path: str | os.PathLike) -> bool:
    """Whether another process holds the file at `path` as a `HeldFile` now (for a message)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError:  # no locks kept here
        return False
    finally:
        os.close(fd)


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
