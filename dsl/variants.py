"""Variants as patches, `extends:` chains and `include:` files.

A variant never copies its base: it is a list of patch operations (set,
replace, remove, merge, append at a YAML path) applied to the base data.
`SourceMap` remembers which file and which YAML path each patched subtree
came from, so diagnostics about patched data still point at the line the
author wrote, in whichever file that was.
"""

from __future__ import annotations

import copy
import errno
import hashlib
import os
import re
import stat
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from .diagnostics import Diagnostic, Related
from .parser import Origin
from .yamlload import Document, YamlProblem, format_path, load_document

PATCH_OPS = ("set", "replace", "remove", "merge", "append")
_SEGMENT = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_-]*)|\[([0-9]+)\]")  # ASCII digits only: [১] is no index


class PatchProblem(Exception):
    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def parse_path(text: str) -> tuple[Any, ...] | None:
    """`actions.place.require[0]` -> ('actions', 'place', 'require', 0); None if malformed."""
    parts: list[Any] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if not m or (m.group(0).startswith(".") and not parts) or (m.group(1) and parts and not m.group(0).startswith(".")):
            return None
        parts.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    return tuple(parts) if parts else None


@dataclass
class SourceMap:
    """Maps a path in the final data to the document and path it came from."""

    base: Document
    overlays: list[tuple[tuple[Any, ...], Document, tuple[Any, ...]]] = field(default_factory=list)

    def locate(self, path: tuple[Any, ...]) -> tuple[Document, tuple[Any, ...]]:
        path = tuple(path)
        for prefix, doc, doc_prefix in reversed(self.overlays):
            if path[: len(prefix)] == prefix:
                return doc, doc_prefix + path[len(prefix):]
        return self.base, path

    def where(self, path: tuple[Any, ...], key: bool = False) -> tuple[str, int, int, str]:
        doc, doc_path = self.locate(path)
        line, col = doc.where(doc_path, key=key)
        return doc.file, line, col, doc.source_line(line)

    def origin(self, path: tuple[Any, ...]) -> Origin:
        doc, doc_path = self.locate(path)
        return doc.origin(doc_path)

    def documents(self) -> list[Document]:
        """Every distinct file the data came from, base first."""
        seen: dict[str, Document] = {}
        for doc in [self.base] + [d for _, d, _ in self.overlays]:
            seen.setdefault(doc.file, doc)
        return list(seen.values())


def _diag(code: str, message: str, smap: SourceMap, path: tuple, hint: str = "") -> Diagnostic:
    file, line, col, source = smap.where(path)
    return Diagnostic(code, message, file, line, col, hint=hint, path=format_path(path), source_line=source)


LINKING_KEYS = ("extends", "include", "patch")  # what links files together: only the ruleset's own files follow
UNPATCHABLE = ("extends", "include", "variants", "patch")  # read before patches apply: a patch would be ignored


def patch_value_problem(op: dict) -> tuple[str, str, str] | None:
    """What is wrong with an operation's `value:` — (message, key to point at, hint) — or None.

    A `remove` takes no value and every other operation needs one. The schema
    states the same rule for editors; its check reports it through this
    function, so a variant's patch and an `extends:` file's say the same.
    """
    kind = op.get("op")
    if kind not in PATCH_OPS:
        return None  # an unknown `op:` is its own error: "`delete` needs a `value:`" would say it is known
    if kind == "remove" and "value" in op:
        return "a `remove` takes no `value:`", "value", "remove the `value:` (or use `set`/`replace` to give one)"
    if kind != "remove" and "value" not in op:
        return f"`{kind}` needs a `value:`", "op", "write the value to use, `value: null` for null"
    return None


def apply_patch(data: Any, ops: list[dict], smap: SourceMap, patch_doc: Document,
                patch_path: tuple[Any, ...]) -> Any:
    """Apply patch operations; a path that does not exist is an error (RP401)."""
    for i, op in enumerate(ops):
        where = patch_path + (i,)
        if not isinstance(op, dict) or op.get("op") not in PATCH_OPS:
            # An `extends:` file's own patch is applied before any schema check, so check it here.
            raise PatchProblem(_diag("RP401", f"a patch operation needs `op:` ({', '.join(PATCH_OPS)}) and `path:`",
                                     SourceMap(patch_doc), where + (("op",) if isinstance(op, dict) else ()),
                                     "write e.g. {op: replace, path: end[0].when, value: ...}"))
        kind, text = op["op"], op.get("path", "")
        value_problem = patch_value_problem(op)
        if value_problem is not None:
            message, key, hint = value_problem
            raise PatchProblem(_diag("RP401", message, SourceMap(patch_doc), where + (key,), hint))
        path = parse_path(text) if isinstance(text, str) else None
        if path is None:
            raise PatchProblem(_diag("RP401", f"malformed patch path {text!r}", SourceMap(patch_doc),
                                     where + ("path",), "write a path like actions.place.effects or end[0].when"))
        if path[0] in UNPATCHABLE:
            raise PatchProblem(_diag("RP401", f"a patch cannot change `{path[0]}`: files are linked and variants "
                                     f"chosen before any patch applies", SourceMap(patch_doc), where + ("path",),
                                     "write a variant file with its own `extends:` or `include:` instead"))
        parent: Any = data
        for step in path[:-1]:
            if isinstance(parent, dict) and step in parent:
                parent = parent[step]
            elif isinstance(parent, list) and isinstance(step, int) and 0 <= step < len(parent):
                parent = parent[step]
            else:
                raise PatchProblem(_diag("RP401", f"patch path {text!r} does not exist in the base "
                                         f"(no {format_path(path[: path.index(step) + 1])!r})",
                                         SourceMap(patch_doc), where + ("path",),
                                         "check the spelling against the base ruleset"))
        last = path[-1]
        exists = (isinstance(parent, dict) and last in parent) or (
            isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent))
        if kind in ("replace", "remove", "append", "merge") and not exists:
            raise PatchProblem(_diag("RP401", f"patch path {text!r} does not exist in the base "
                                     f"(`{kind}` needs an existing value)", SourceMap(patch_doc),
                                     where + ("path",), "use `set` to create a new key"))
        if not isinstance(parent, (dict, list)) or (isinstance(parent, list) and not isinstance(last, int)):
            raise PatchProblem(_diag("RP401", f"patch path {text!r} goes through a plain value",
                                     SourceMap(patch_doc), where + ("path",)))
        if isinstance(parent, dict) and isinstance(last, int):
            raise PatchProblem(_diag("RP401", f"patch path {text!r} gives a position, [{last}], in a mapping",
                                     SourceMap(patch_doc), where + ("path",),
                                     "a position [k] names an item of a list; a mapping's entries are named "
                                     "by key, e.g. flow.phases[0].actions"))
        value = copy.deepcopy(op.get("value"))
        if kind == "remove":
            del parent[last]
            continue
        if kind == "append":
            if not isinstance(parent[last], list):
                raise PatchProblem(_diag("RP401", f"`append` needs a list at {text!r}", SourceMap(patch_doc),
                                         where + ("path",)))
            parent[last].append(value)
            smap.overlays.append((path + (len(parent[last]) - 1,), patch_doc, where + ("value",)))
            continue
        if kind == "merge":
            if not isinstance(parent[last], dict) or not isinstance(value, dict):
                raise PatchProblem(_diag("RP401", f"`merge` needs mappings at {text!r}", SourceMap(patch_doc),
                                         where + ("path",)))
            for key in value:
                smap.overlays.append((path + (key,), patch_doc, where + ("value", key)))
            parent[last] = deep_merge(parent[last], value)
            continue
        if isinstance(parent, list) and not exists:
            raise PatchProblem(_diag("RP401", f"index {last} is out of range at {text!r}", SourceMap(patch_doc),
                                     where + ("path",)))
        parent[last] = value
        smap.overlays.append((path, patch_doc, where + ("value",)))
    return data


def deep_merge(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = deep_merge(base[key], value) if key in base else value
        return out
    return extra


def inside(folder: Path, target: Path) -> bool:
    try:
        real_folder, real_target = os.path.realpath(folder), os.path.realpath(target)
        return os.path.commonpath([real_folder, real_target]) == real_folder
    except ValueError:
        return False


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(path: str | os.PathLike) -> str | None:
    """What is at `path` (after links): "a regular file", "a folder", "a FIFO (named pipe)", ...; None if nothing.

    The same names as `ruleplay.files.kind`, which `dsl` may not import: a
    FIFO named by `include:` must be reported as a FIFO, not as missing.
    A name the OS refuses (too long, a NUL byte) names nothing.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def is_file(path: Path) -> bool:
    """Path.is_file, but False for names the OS refuses (too long, NUL bytes) instead of raising."""
    return file_kind(path) == "a regular file"


def read_regular(path: str | os.PathLike, max_bytes: int) -> bytes:
    """At most `max_bytes` + 1 bytes of a regular file (enough to tell it is too big); OSError otherwise.

    Opened without blocking and checked again once open, so a FIFO swapped
    in after the check cannot make the read wait for a writer for ever.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as stream:
        mode = os.fstat(stream.fileno()).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "a special file")
            raise OSError(errno.EINVAL, f"{kind}, not a regular file", str(path))
        return stream.read(max_bytes + 1)


def read_document(path: Path, max_bytes: int) -> Document:
    try:
        raw = read_regular(path, max_bytes)
    except OSError as err:
        raise YamlProblem(Diagnostic("RP001", f"cannot read {path}: {err.strerror or err}", str(path), 0, 0,
                                     hint="check the path")) from None
    return load_document(raw, str(path), max_bytes=max_bytes)


# Texts an editor holds for files, by the files' real paths (`os.path.realpath`): a ruleset is read with
# them in place of what is saved, and a file that exists only as such a text (never saved yet) counts as one.
Unsaved = Mapping[str, str]
NOTHING_UNSAVED: Unsaved = {}


def linked_file(doc: Document, smap: SourceMap, path: tuple, name: str, what: str,
                builtins: Mapping[str, Path], unsaved: Unsaved = NOTHING_UNSAVED) -> Path:
    """The file an `extends:` or `include:` entry names: a built-in game by its name, as on the command
    line, else a file of the ruleset's own folder (`resolve_file`).  A built-in's name wins, as it does
    there; a file of that very name is `./NAME`."""
    if name in builtins:
        return builtins[name]
    return resolve_file(doc, smap, path, name, what, unsaved)


def resolve_file(doc: Document, smap: SourceMap, path: tuple, name: str, what: str,
                 unsaved: Unsaved = NOTHING_UNSAVED) -> Path:
    """A file named inside a ruleset: relative, inside the ruleset's folder, a regular file (or an unsaved text)."""
    folder = Path(doc.file).resolve().parent
    if os.path.isabs(name) or name.startswith("~"):
        raise PatchProblem(_diag("RP403", f"{what} {name!r} is an absolute path", smap, path,
                                 "name a file in the same folder as the ruleset"))
    target = folder / name
    if not inside(folder, target):
        raise PatchProblem(_diag("RP403", f"{what} {name!r} is outside the ruleset's folder", smap, path,
                                 "rulesets may only read files in their own folder"))
    kind = "a regular file" if os.path.realpath(target) in unsaved else file_kind(target)
    if kind is None:
        raise PatchProblem(_diag("RP404", f"{what} {name!r} does not exist", smap, path,
                                 f"looked for {target}; a built-in game is named without .yaml"))
    if kind != "a regular file":
        raise PatchProblem(_diag("RP404", f"{what} {name!r} is {kind}, not a regular file", smap, path,
                                 "name a YAML file"))
    return target


MAX_PARTS = 100  # files one ruleset is made of, counting every `extends:` and `include:` use
MAX_TOTAL_FILES_FACTOR = 4  # all of a ruleset's distinct files together: this many times the one-file limit


_PARSED: dict[tuple[str, int, str], Document] = {}  # documents by file name, byte limit and text digest
MAX_PARSED = 16
_PARSED_LOCK = threading.Lock()


def parsed_document(raw: bytes, file: str, max_bytes: int) -> Document:
    """`load_document`, kept for the same bytes: each load gets its own copy of the data.

    Validating a file with N variants loads it N + 1 times, and parsing a
    large file each time made that quadratic (1,000 variants took minutes);
    a deep copy of the data costs a few percent of a parse. The positions
    are shared: nothing writes to them after the parse. Only good parses
    are kept, so a file's errors are found again every time.
    """
    key = (file, max_bytes, hashlib.sha256(raw).hexdigest())
    kept = _PARSED.get(key)
    if kept is None:
        kept = load_document(raw, file, max_bytes=max_bytes)
        with _PARSED_LOCK:  # games may load in threads (a Dask worker's): the eviction must not race
            while len(_PARSED) >= MAX_PARSED:
                del _PARSED[next(iter(_PARSED))]
            _PARSED[key] = kept
    return replace(kept, data=copy.deepcopy(kept.data))


class _Parts:
    """The files of one ruleset: each read and parsed once, however often it is named, within totals.

    Per-file limits alone let one small file named hundreds of times by
    `include:` be read and parsed hundreds of times, and a chain of
    `extends:` grow without end; so uses are counted (`MAX_PARTS`) and the
    bytes of distinct files summed (`MAX_TOTAL_FILES_FACTOR` x the limit).
    """

    def __init__(self, max_bytes: int, unsaved: Unsaved):
        self.max_bytes = max_bytes
        self.unsaved = unsaved
        self.total_limit = MAX_TOTAL_FILES_FACTOR * max_bytes
        self.docs: dict[str, Document] = {}
        self.uses = 0
        self.total = 0

    def read(self, path: Path, smap: SourceMap | None = None, at: tuple = ()) -> tuple[Document, bool]:
        """The document at `path`, and whether it was read before; `smap`/`at` locate a limit error."""
        self.uses += 1
        if self.uses > MAX_PARTS:
            raise PatchProblem(self._over(f"the ruleset is made of more than {MAX_PARTS} files "
                                          f"(`extends:` and `include:` uses together)", smap, at, path))
        real = os.path.realpath(path)
        if real in self.docs:
            return self.docs[real], True
        try:
            text = self.unsaved.get(real)
            # An editor's text may hold a lone surrogate (a JSON escape): kept, for the loader to refuse (RP001).
            raw = read_regular(path, self.max_bytes) if text is None else text.encode("utf-8", "surrogatepass")
        except OSError as err:
            raise YamlProblem(Diagnostic("RP001", f"cannot read {path}: {err.strerror or err}", str(path), 0, 0,
                                         hint="check the path")) from None
        self.total += len(raw)
        if self.total > self.total_limit:
            raise PatchProblem(self._over(f"the ruleset's files together are over {self.total_limit} bytes",
                                          smap, at, path))
        doc = parsed_document(raw, str(path), self.max_bytes)
        self.docs[real] = doc
        return doc, False

    @staticmethod
    def _over(message: str, smap: SourceMap | None, at: tuple, path: Path) -> Diagnostic:
        hint = "merge the parts into fewer, smaller files"
        if smap is None:
            return Diagnostic("RP005", message, str(path), 0, 0, hint=hint)
        return _diag("RP005", message, smap, at, hint)


def load_with_extends(path: Path, max_bytes: int, builtins: Mapping[str, Path] | None = None,
                      unsaved: Unsaved = NOTHING_UNSAVED) -> tuple[Any, SourceMap]:
    """Load a ruleset file, following `extends:` and `include:`; returns data and its source map.

    The `extends:` chain is followed with a loop, not recursion, so its
    length is bounded by `MAX_PARTS` (a clear RP005), never by Python's
    stack.  Then each file, from the last base to the file itself, is laid
    over the one it extends, and the files it itself includes fill in
    the keys it still lacks.  A file with a text in `unsaved` is read as
    that text (an editor's buffer), saved or not.  `builtins` maps the built-in games' names to
    their files, which `extends:` and `include:` may name (`dsl` knows no
    game: the loader gives them).  A built-in's file stays where it is, so
    what it names itself (its spec) is found where it lives, and a
    diagnostic in it points into it.
    """
    builtins = builtins or {}
    parts = _Parts(max_bytes, unsaved)
    doc, _ = parts.read(path)
    chain, reals = [doc], [os.path.realpath(path)]
    while isinstance(doc.data, dict) and isinstance(doc.data.get("extends"), str):
        base_path = linked_file(doc, SourceMap(doc), ("extends",), doc.data["extends"], "extends", builtins,
                                unsaved)
        real = os.path.realpath(base_path)
        if real in reals:
            again = parts.docs[real]
            cycle = " -> ".join(Path(c).name for c in reals + [real])
            line, col = again.where(("extends",))
            raise PatchProblem(Diagnostic("RP402", f"circular extends: {cycle}", again.file, line, col,
                                          hint="remove one of the extends links", path="extends",
                                          source_line=again.source_line(line)))
        doc, _ = parts.read(base_path, SourceMap(doc), ("extends",))
        chain.append(doc)
        reals.append(real)
    base = chain.pop()
    data, smap = base.data, SourceMap(base)
    if not isinstance(data, dict):
        return data, smap
    data = _include(base, data, smap, parts, builtins)
    for doc in reversed(chain):
        merged = copy.deepcopy(data)
        merged.pop("variants", None)
        for key, value in doc.data.items():
            if key == "extends" or (key == "patch" and isinstance(value, list)):
                continue  # a `patch:` that is no list stays, for the schema to report where it is written
            merged[key] = copy.deepcopy(value)
            smap.overlays.append(((key,), doc, (key,)))
        if isinstance(doc.data.get("patch"), list):
            merged = apply_patch(merged, doc.data["patch"], smap, doc, ("patch",))
        data = _include(doc, merged, smap, parts, builtins)
    return data, smap


def _include(doc: Document, data: dict, smap: SourceMap, parts: _Parts, builtins: Mapping[str, Path]) -> dict:
    """Fill the keys `data` lacks from the files `doc` itself lists under `include:`."""
    names = doc.data.get("include")
    if not isinstance(names, list):
        return data
    included: dict[str, Document] = {}  # each key an include gave, and the file it came from
    for i, name in enumerate(names):
        if not isinstance(name, str):
            continue
        inc_path = linked_file(doc, smap, ("include", i), name, "include", builtins, parts.unsaved)
        inc, seen = parts.read(inc_path, smap, ("include", i))
        if not isinstance(inc.data, dict):
            line, col = inc.where(())
            raise PatchProblem(Diagnostic("RP006", "an included file must hold a mapping", inc.file, line, col,
                                          hint="write `key: value` entries; they are added to the ruleset",
                                          source_line=inc.source_line(line)))
        for key in LINKING_KEYS:
            if key in inc.data:
                line, col = inc.where((key,), key=True)
                raise PatchProblem(Diagnostic(
                    "RP006", f"an included file cannot have `{key}:`: its keys are merged as they are, and "
                    f"nothing in it is followed or applied", inc.file, line, col, path=key,
                    hint=f"give `{key}:` to the file that includes this one", source_line=inc.source_line(line)))
        for key, value in list(inc.data.items()):
            first = included.get(key, inc)
            if first.file != inc.file:  # the same file listed twice gives the same keys
                line, col = inc.where((key,), key=True)
                raise PatchProblem(Diagnostic(
                    "RP006", f"`{key}:` is in two included files, {Path(first.file).name} and "
                    f"{Path(inc.file).name}: one would silently be dropped", inc.file, line, col, path=key,
                    hint="keep it in one of them, or write it in the including file, which wins over both",
                    source_line=inc.source_line(line),
                    related=(Related(f"`{key}:` in {Path(first.file).name}", first.file,
                                     *first.where((key,), key=True)),)))
            if key in data:
                continue
            included[key] = inc
            data[key] = copy.deepcopy(value) if seen else value  # a file used twice must not share its values
            smap.overlays.append(((key,), inc, (key,)))
    return data


def apply_variant(data: dict, smap: SourceMap, name: str) -> dict:
    """Apply the inline variant `name` (from `variants:`) to the data."""
    variants = data.get("variants") or {}
    variant = variants.get(name)
    # No patch may touch `variants:` (UNPATCHABLE), so it is shared, not copied: with many variants,
    # copying all of them for each one made validating a file quadratic.
    patched = {key: value if key == "variants" else copy.deepcopy(value) for key, value in data.items()}
    ops = variant.get("patch") or []
    patched = apply_patch(patched, ops, smap, smap.base if not smap.overlays else smap.locate(("variants",))[0],
                          smap.locate(("variants", name, "patch"))[1])
    extra = variant.get("assumptions") or []
    if extra:
        patched.setdefault("assumptions", []).extend(copy.deepcopy(extra))
    return patched
