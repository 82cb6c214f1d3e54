"""Rule traceability: every spec rule cited, every citation a real rule.

The spec is the game's numbered English specification (`spec:` in the
ruleset).  A spec rule that nothing cites is a warning with its own code
(RP310) so `validate` can list the rules not yet encoded; a citation of an
id the spec lacks is an error (RP311) — usually a typo — and so is an id the
spec defines twice (RP312), since a citation of it could mean either rule.
The spec may live in the folder of the file that names it (`spec:` may come
from a file the ruleset extends, a built-in game's among them) or in a
`seeds/` folder beside that folder, nowhere else.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

from ruleplay.dsl.checks import Suggester
from ruleplay.dsl.diagnostics import Diagnostic, Related
from ruleplay.dsl.variants import file_kind, inside
from ruleplay.dsl.yamlload import format_path, lookup

from .spec import read_spec


def spec_path(model) -> tuple[Path | None, str]:
    """The spec file a ruleset links, or None with the reason: "no spec", "outside", "missing", or what
    the path is instead of a regular file ("a folder", "a FIFO (named pipe)", ...).

    The path is read from the folder of the file that writes `spec:`: a
    variant that extends a game keeps the game's spec where the game has it,
    and a spec a variant names is beside the variant."""
    if not model.spec:
        return None, "no spec"
    folder = Path(model.source.locate(("spec",))[0].file).resolve().parent
    try:
        target = (folder / model.spec).resolve()
    except (OSError, ValueError):  # a name the OS refuses (NUL byte, too long) names no file
        return None, "missing"
    seeds = folder.parent / "seeds"
    # `seeds/` counts only as a folder of the ruleset's own tree: a link out of it (to /etc, say) would
    # make validating a ruleset from anyone read, and quote, any file the user can read.
    allowed = inside(folder, target) or (inside(folder.parent, seeds) and inside(seeds, target))
    if not allowed or Path(model.spec).is_absolute():
        return None, "outside"
    kind = file_kind(target)
    if kind is None:
        return None, "missing"
    if kind != "a regular file":
        return None, kind
    return target, ""


def check_citations(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    where = model.source.where
    path, why = spec_path(model)
    if why == "outside":
        file, line, col, src = where(("spec",))
        yield Diagnostic("RP403", f"spec {model.spec!r} is outside the ruleset's folder and seeds/", file, line, col,
                         hint="put the specification in the folder of the file that names it, or in "
                              "../seeds/ beside it", path="spec",
                         source_line=src)
        return
    if why == "missing":
        file, line, col, src = where(("spec",))
        yield Diagnostic("RP404", f"spec file {model.spec!r} does not exist", file, line, col, path="spec",
                         hint="give the path of the rule specification relative to this file", source_line=src)
        return
    if path is None and why != "no spec":
        file, line, col, src = where(("spec",))
        yield Diagnostic("RP404", f"spec {model.spec!r} is {why}, not a regular file", file, line, col,
                         path="spec", hint="a spec is a UTF-8 Markdown file", source_line=src)
        return
    if path is None:
        return
    try:
        rules = read_spec(path)
    except (OSError, UnicodeDecodeError) as err:
        file, line, col, src = where(("spec",))
        yield Diagnostic("RP404", f"spec file {model.spec!r} cannot be read: {err}", file, line, col, path="spec",
                         hint="a spec is a UTF-8 Markdown file", source_line=src)
        return
    known = {r.id for r in rules}
    assumption_ids = {a.get("id") for a in model.assumptions}
    suggest = Suggester()
    for rule, paths in sorted(model.cited_rules.items()):
        if rule not in known and rule not in assumption_ids:
            file, line, col, src, at = _citation_place(model, paths[0], rule)
            yield Diagnostic("RP311", f"cites rule {rule!r}, which is not in {path.name}", file, line, col,
                             hint=suggest(rule, lambda: sorted(known)) or "check the id against the spec",
                             path=format_path(at), source_line=src)
    first: dict[str, int] = {}  # the line of each id's first definition
    for r in rules:
        if r.id in first:
            yield Diagnostic("RP312", f"spec rule {r.id} is defined twice (first at line {first[r.id]})", str(path),
                             r.line, 1, hint="give each rule its own id, or merge the two into one rule",
                             source_line=r.text, related=(Related(f"{r.id} first defined here", str(path),
                                                                  first[r.id], 1),))
            continue
        first[r.id] = r.line
        if r.id not in model.cited_rules:
            yield Diagnostic("RP310", f"spec rule {r.id} is not cited by the ruleset", str(path), r.line, 1,
                             severity="warning", hint="encode the rule and cite it, or resolve it in an assumption",
                             source_line=r.text)


def _citation_place(model, path: tuple, rule: str) -> tuple[str, int, int, str, tuple]:
    """Where the author wrote a citation: its `rule:`/`resolves:` entry, or the `@ID` in rule text."""
    value = lookup(model.data, path)
    if isinstance(value, dict):
        for key in ("rule", "resolves"):
            cited = value.get(key)
            if cited == rule:
                return (*model.source.where(path + (key,)), path + (key,))
            if isinstance(cited, list) and rule in cited:
                at = path + (key, cited.index(rule))
                return (*model.source.where(at), at)
    if isinstance(value, str):
        found = re.search("@" + re.escape(rule) + r"(?![A-Za-z0-9-]|\.[A-Za-z0-9])", value)
        if found:
            before = value[: found.start()]
            line = before.count("\n") + 1
            pos = model.source.origin(path).pos(line, found.start() - (before.rfind("\n") + 1) + 1)
            docs = {doc.file: doc for doc in model.source.documents()}
            src = docs[pos.file].source_line(pos.line) if pos.file in docs else ""
            return pos.file, pos.line, pos.col, src, path
    return (*model.source.where(path), path)
