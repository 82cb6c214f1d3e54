"""The ruleset a game log or scenario file names: recorded portably, read back only where it is safe.

A log or scenario file may come from anyone, and its `ruleset:` or `game:`
field is a path that ruleplay then opens.  Taken as it stands, such a field
could name `/etc/passwd` or `/proc/self/environ`, and the YAML error for
that file would echo its first line to whoever runs `replay`.  So a file's
field is trusted only as far as the file's own folder:

* a built-in game's name is always fine;
* a relative path is resolved against the folder of the log or scenario
  (symbolic links resolved, in the folder and in the path) and must stay
  under it: no `..` that leaves it, no absolute path, no link out of it;
* anything else is refused with the field's name and the fix: give
  `--ruleset PATH` (the API's `ruleset=` keyword), a file the *user* chose.

Writers record what readers accept: a built-in by name, a file by its path
relative to the log's folder (which may start with `..` when the ruleset
lies elsewhere; such a log then needs `--ruleset` to replay, and says so).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..engine.loader import builtin_games


class UnsafeRulesetReference(ValueError):
    """A file's ruleset field that names a file outside that file's folder, or no usable file."""


def recorded(name_or_path: str | os.PathLike, beside: str | os.PathLike) -> str:
    """How a file written at `beside` names the ruleset `name_or_path`: a built-in by name, else a relative path.

    The path is relative to the real folder of `beside`, from the real path
    of the ruleset, which is what `resolve` checks when the file is read.
    """
    text = str(name_or_path)
    builtins = builtin_games()
    if text in builtins:
        return text
    folder = os.path.dirname(os.path.realpath(beside))
    relative = Path(os.path.relpath(os.path.realpath(text), folder)).as_posix()
    # A file that happens to be called like a built-in game would be read back as the built-in.
    return f"./{relative}" if relative in builtins else relative


def resolve(ref: str, file: str | os.PathLike, field: str) -> str:
    """What `load_game` should load for the ruleset field `field` of `file`: a built-in name or a safe path.

    Raises UnsafeRulesetReference, whose message names the field, what is
    wrong and how to fix it, and never shows anything of the file named.
    """
    if ref in builtin_games():
        return ref
    fix = ("name a built-in game, or a ruleset file in the same folder (or below it), or choose the "
           "ruleset yourself with --ruleset PATH")
    if not ref:
        raise UnsafeRulesetReference(f"`{field}` '' is empty: {fix}")
    if os.path.isabs(ref) or ref.startswith("~"):
        raise UnsafeRulesetReference(f"`{field}` {ref!r} is an absolute path: {fix}")
    folder = Path(os.path.realpath(file)).parent
    try:
        target = Path(os.path.realpath(folder / ref))
    except (OSError, ValueError):  # a NUL byte
        raise UnsafeRulesetReference(f"`{field}` {ref!r} is not a usable file name: {fix}") from None
    if target == folder:
        raise UnsafeRulesetReference(f"`{field}` {ref!r} names the folder itself, not a ruleset file: {fix}")
    if not target.is_relative_to(folder):
        raise UnsafeRulesetReference(f"`{field}` {ref!r} leads outside the folder {folder}: {fix}")
    return str(target)
