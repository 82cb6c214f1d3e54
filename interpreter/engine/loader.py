"""From a game name or a file to a validated `GameModel`.

The pipeline: find the file, read YAML safely (positions kept), follow
`extends:`/`include:`, check the JSON Schema, apply the chosen variant and
check again, compile, then run the semantic validators.  All diagnostics are
gathered; any error stops the load with a `RulesetError` holding them all.
"""

from __future__ import annotations

import difflib
import errno
import gc
import hashlib
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ruleplay.dsl.diagnostics import Diagnostic, RulesetError, sort_key
from ruleplay.dsl.variants import NOTHING_UNSAVED, PatchProblem, SourceMap, Unsaved, apply_variant, load_with_extends
from ruleplay.dsl.yamlload import MAX_FILE_BYTES, YamlProblem
from ruleplay.validators import semantic_checks
from ruleplay.validators.schema import check_schema

from .. import files
from .builders import build_model
from .model import GameModel

RULESETS_DIR = Path(__file__).resolve().parent.parent / "rulesets"


def rulesets_dir() -> Path:
    """The built-in rulesets: the source tree's folder, or the installed package's."""
    try:
        from importlib import resources

        installed = Path(str(resources.files("ruleplay.rulesets")))
        if installed.is_dir():
            return installed
    except (ModuleNotFoundError, TypeError):
        pass
    return RULESETS_DIR


def builtin_games() -> dict[str, Path]:
    folder = rulesets_dir()
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def find_ruleset(name_or_path: str | os.PathLike) -> Path:
    """A built-in game's file, or the regular file named (RP009 for anything else)."""
    text = str(name_or_path)
    games = builtin_games()
    if text in games:
        return games[text]
    if not text:  # Path("") is the current folder: say what is really wrong
        raise RulesetError([Diagnostic("RP009", "the game name is empty", "''",
                                       hint=f"built-in games: {', '.join(games) or 'none'}; or give a path "
                                            "to a .yaml file")])
    path = Path(text)
    try:
        mode = path.stat().st_mode
    except OSError as err:
        if err.errno == errno.ELOOP:  # os.stat follows links until the OS gives up
            raise RulesetError([Diagnostic("RP009", f"{text} is a symbolic link that leads round in a loop, to "
                                           f"no file", text, hint="point the link at a ruleset file")]) from None
        mode = None  # missing, or a name the OS refuses (too long)
    except ValueError:  # a NUL byte
        mode = None
    if mode is not None and stat.S_ISREG(mode):
        return path
    if mode is not None:
        raise RulesetError([Diagnostic("RP009", f"{text} is {files.kind(mode)}, not a regular file", text,
                                       hint="name a .yaml ruleset")])
    raise RulesetError([Diagnostic(
        "RP009", f"no game or file named {text!r}", text,
        hint=f"built-in games: {', '.join(games) or 'none'}; or give a path to a .yaml file")])


def _fail(diags: list[Diagnostic]) -> RulesetError:
    return RulesetError(sorted(diags, key=sort_key))


# Objects that loads made with the collector paused may leave behind before a full collection runs.
COLLECT_AFTER = 1_000_000
_owed = {"objects": 0, "full": -1}  # objects made by paused loads since the full collection counted in "full"


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the duration, back on after (if it was on), whatever happens.

    A load makes some two hundred thousand objects that live until it ends
    (YAML nodes, parse trees, syntax trees, generated code); the collections
    their allocation triggers walk them again and again, the full ones all
    of them, and find next to nothing to free: about 30% of the largest
    seed game's load in a fresh process (`python -m benchmarks startup`).

    A model is a web of cycles, freed only by a full collection, and the
    collector runs one when it has counted enough new objects, which it
    does not while paused: a process that loads game after game (`validate`
    of several large files, mutation testing) kept every model it had
    dropped, hundreds of MB each for the largest rulesets.  So the loads
    keep count of the objects they made, and once that passes
    COLLECT_AFTER since the last full collection, the next load starts with
    one: the cost of a collection spread over a million objects made.
    """
    if not gc.isenabled():
        yield
        return
    full = gc.get_stats()[2]["collections"]
    if full != _owed["full"]:  # Python collected everything since: nothing is owed from before
        _owed.update(objects=0, full=full)
    if _owed["objects"] >= COLLECT_AFTER:
        gc.collect()
        _owed.update(objects=0, full=gc.get_stats()[2]["collections"])
    gc.disable()
    start = gc.get_count()[0]  # counts the objects made (and not yet freed) while the collector is off
    try:
        yield
    finally:
        _owed["objects"] += max(0, gc.get_count()[0] - start)
        gc.enable()


def load_model(name_or_path: str | os.PathLike, players: int | None = None, variant: str | None = None,
               disabled_rules: frozenset[str] = frozenset(), max_bytes: int = MAX_FILE_BYTES,
               unsaved: Unsaved = NOTHING_UNSAVED) -> GameModel:
    """The model of a ruleset; `unsaved` holds an editor's texts of files, by real path, read in their place."""
    with _collector_paused():
        return _load_model(name_or_path, players, variant, disabled_rules, max_bytes, unsaved)


def _load_model(name_or_path: str | os.PathLike, players: int | None, variant: str | None,
                disabled_rules: frozenset[str], max_bytes: int, unsaved: Unsaved) -> GameModel:
    path = Path(name_or_path) if unsaved and os.path.realpath(name_or_path) in unsaved else find_ruleset(name_or_path)
    try:
        data, smap = load_with_extends(path, max_bytes, builtin_games(), unsaved)
    except YamlProblem as err:
        raise _fail([err.diagnostic]) from None
    except PatchProblem as err:
        raise _fail([err.diagnostic]) from None
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a single value ({type(data).__name__})"
        file, line, col, source = smap.where(())
        raise _fail([Diagnostic("RP006", f"the top level is {kind}, not a mapping", file, line, col,
                                hint="a ruleset is a mapping that starts with `ruleplay: 1` and `game: NAME`",
                                source_line=source)])
    diags = _base_schema_diagnostics(data, smap)
    if diags:
        raise _fail(diags)
    if variant is not None:
        known = sorted((data.get("variants") or {}).keys())
        if variant not in known:
            file, line, col, source = smap.where(("variants",), key=True)
            close = difflib.get_close_matches(variant, known, n=1)
            raise _fail([Diagnostic("RP405", f"{data.get('game')} has no variant {variant!r}", file, line, col,
                                    hint=(f"did you mean {close[0]!r}? " if close else "")
                                    + f"variants: {', '.join(known) or 'none'}", source_line=source)])
        try:
            data = apply_variant(data, smap, variant)
        except PatchProblem as err:
            raise _fail([err.diagnostic]) from None
        # The variants are the base's, checked above (no patch may touch `variants:`): only the rest changed.
        diags = _schema_diagnostics({k: v for k, v in data.items() if k != "variants"}, smap)
        if diags:
            raise _fail(diags)
    model, diags = build_model(data, smap, players, variant, disabled_rules)
    if model is not None:
        diags += list(semantic_checks(model, Path(smap.base.file)))
    if model is None or any(d.severity == "error" for d in diags):
        raise _fail(diags)
    model.diagnostics = sorted(diags, key=sort_key)
    return model


def _schema_diagnostics(data: dict, smap: SourceMap) -> list[Diagnostic]:
    return list(check_schema(data, smap))


_CHECKED_FILES: dict[str, list[Diagnostic]] = {}  # the schema's verdict on a ruleset's files, by their texts
MAX_CHECKED_FILES = 16
_CHECKED_LOCK = threading.Lock()


def _base_schema_diagnostics(data: dict, smap: SourceMap) -> list[Diagnostic]:
    """`_schema_diagnostics` of a ruleset as its files are written, kept for the same texts: validating a
    file with N variants loads it N + 1 times, and checking N variants each time made that quadratic."""
    key = hashlib.sha256("\0".join(f"{doc.file}\0{doc.text}" for doc in smap.documents()).encode()).hexdigest()
    found = _CHECKED_FILES.get(key)
    if found is None:
        found = _schema_diagnostics(data, smap)
        with _CHECKED_LOCK:  # games may load in threads (a Dask worker's): the eviction must not race
            while len(_CHECKED_FILES) >= MAX_CHECKED_FILES:
                del _CHECKED_FILES[next(iter(_CHECKED_FILES))]
            _CHECKED_FILES[key] = found
    return list(found)
