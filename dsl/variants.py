"""Variants as patches, `extends:` chains and `include:` files.

A variant never copies its base: it is a list of patch operations (set,
replace, remove, merge, append at a YAML path) applied to the base data.
`SourceMap` remembers which file and which YAML path each patched subtree
came from, so diagnostics about patched data still point at the line the
author wrote, in whichever file that was.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic
from .parser import Origin
from .yamlload import Document, YamlProblem, format_path, load_document

PATCH_OPS = ("set", "replace", "remove", "merge", "append")
_SEGMENT = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]")


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


UNPATCHABLE = ("extends", "include", "variants", "patch")  # read before patches apply: a patch would be ignored


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


def is_file(path: Path) -> bool:
    """Path.is_file, but False for names the OS refuses (too long, NUL bytes) instead of raising."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def read_document(path: Path, max_bytes: int) -> Document:
    try:
        with open(path, "rb") as stream:
            raw = stream.read(max_bytes + 1)  # enough to tell it is too big without reading all of it
    except OSError as err:
        raise YamlProblem(Diagnostic("RP001", f"cannot read {path}: {err.strerror}", str(path), 0, 0,
                                     hint="check the path")) from None
    return load_document(raw, str(path), max_bytes=max_bytes)


def resolve_file(doc: Document, smap: SourceMap, path: tuple, name: str, what: str) -> Path:
    """A file named inside a ruleset: relative, inside the ruleset's folder, existing."""
    folder = Path(doc.file).resolve().parent
    if os.path.isabs(name) or name.startswith("~"):
        raise PatchProblem(_diag("RP403", f"{what} {name!r} is an absolute path", smap, path,
                                 "name a file in the same folder as the ruleset"))
    target = folder / name
    if not inside(folder, target):
        raise PatchProblem(_diag("RP403", f"{what} {name!r} is outside the ruleset's folder", smap, path,
                                 "rulesets may only read files in their own folder"))
    if not is_file(target):
        raise PatchProblem(_diag("RP404", f"{what} {name!r} does not exist", smap, path,
                                 f"looked for {target}"))
    return target


def load_with_extends(path: Path, max_bytes: int, chain: tuple[str, ...] = ()) -> tuple[Any, SourceMap]:
    """Load a ruleset file, following `extends:` and `include:`; returns data and its source map."""
    doc = read_document(path, max_bytes)
    real = os.path.realpath(path)
    if real in chain:
        cycle = " -> ".join(Path(c).name for c in chain + (real,))
        raise PatchProblem(Diagnostic("RP402", f"circular extends: {cycle}", doc.file,
                                      *doc.where(("extends",)), hint="remove one of the extends links",
                                      path="extends", source_line=doc.source_line(doc.where(("extends",))[0])))
    data = doc.data
    smap = SourceMap(doc)
    if not isinstance(data, dict):
        return data, smap
    if isinstance(data.get("extends"), str):
        base_path = resolve_file(doc, smap, ("extends",), data["extends"], "extends")
        base_data, smap = load_with_extends(base_path, max_bytes, chain + (real,))
        if not isinstance(base_data, dict):
            return base_data, smap
        merged = copy.deepcopy(base_data)
        merged.pop("variants", None)
        for key, value in data.items():
            if key in ("extends", "patch"):
                continue
            merged[key] = copy.deepcopy(value)
            smap.overlays.append(((key,), doc, (key,)))
        if isinstance(data.get("patch"), list):
            merged = apply_patch(merged, data["patch"], smap, doc, ("patch",))
        data = merged
    if isinstance(data.get("include"), list):
        for i, name in enumerate(data["include"]):
            if not isinstance(name, str):
                continue
            inc_path = resolve_file(doc, smap, ("include", i), name, "include")
            inc = read_document(inc_path, max_bytes)
            if not isinstance(inc.data, dict):
                line, col = inc.where(())
                raise PatchProblem(Diagnostic("RP006", "an included file must hold a mapping", inc.file, line, col,
                                              hint="write `key: value` entries; they are added to the ruleset",
                                              source_line=inc.source_line(line)))
            for key, value in inc.data.items():
                if key in data and key != "include":
                    continue
                data[key] = value
                smap.overlays.append(((key,), inc, (key,)))
    return data, smap


def apply_variant(data: dict, smap: SourceMap, name: str) -> dict:
    """Apply the inline variant `name` (from `variants:`) to the data."""
    variants = data.get("variants") or {}
    variant = variants.get(name)
    patched = copy.deepcopy(data)
    ops = variant.get("patch") or []
    patched = apply_patch(patched, ops, smap, smap.base if not smap.overlays else smap.locate(("variants",))[0],
                          smap.locate(("variants", name, "patch"))[1])
    extra = variant.get("assumptions") or []
    if extra:
        patched.setdefault("assumptions", []).extend(copy.deepcopy(extra))
    return patched
