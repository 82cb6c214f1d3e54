"""One ruleset checked as `ruleplay validate` checks it, with the editor's unsaved texts, placed for an editor.

`analyze` loads the ruleset (the base game): every diagnostic the load
gives, each with the stretch of text it is about and the other places it
names; `with_variant` then loads one variant the base declares, as
`validate` does, and adds what only that variant shows (said so in its
message, with the variant's declaration as a related place). They are
separate steps so an editor can show the base's findings without waiting
for the variants', and drop the variants of a text edited meanwhile.

What an edit does not change is not done again: the YAML of files whose
text is unchanged, the schema's verdict on unchanged texts and every
expression text already parsed are kept by the loader itself
(`dsl.variants.parsed_document`, `engine.loader`, `dsl.parser`); the index
of names and the inferred types are made only when first asked for.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruleplay.dsl.diagnostics import Diagnostic, RulesetError, SourceLines, sort_key
from ruleplay.dsl.variants import PatchProblem, SourceMap, Unsaved, load_with_extends
from ruleplay.dsl.yamlload import MAX_FILE_BYTES, YamlProblem
from ruleplay.engine.loader import builtin_games, load_model
from ruleplay.engine.model import GameModel
from ruleplay.validators.inferred import InferredTypes
from ruleplay.validators.type_passes import inferred_types

from .index import Index, Span, build_index

_RULE_REF = re.compile(r"@[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?:\.[A-Za-z0-9]+)*")
_RULE_ID = re.compile(r"[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?:\.[A-Za-z0-9]+)*(?![\w-])")
_WORD = re.compile(r"\w+(?:-[A-Za-z_]\w*)*")
_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"?|'(?:[^']|'')*'?")


@dataclass(frozen=True)
class Placed:
    """A diagnostic with the stretch of text it is about and its related places (each a span and a message)."""

    diagnostic: Diagnostic
    span: Span
    related: tuple[tuple[Span, str], ...] = ()


def token_span(file: str, line: int, col: int, text: str) -> Span:
    """The word, rule id, `@` citation or quoted text that starts at `col` of a line (one character otherwise)."""
    at = max(col, 1) - 1
    for pattern in (_RULE_REF, _RULE_ID, _WORD, _QUOTED):
        found = pattern.match(text, at)
        if found and found.end() > at:
            return Span(file, line, col, found.end() + 1)
    return Span(file, line, col, min(col + 1, len(text) + 1) if at < len(text) else col)


@dataclass
class Analysis:
    """What one load of a ruleset (its base game) found; the index and types are made when first asked for."""

    root: str
    texts: dict[str, str]  # every file of the ruleset read (by absolute path) and its text
    model: GameModel | None
    data: Any = None
    source: SourceMap | None = None
    placed: list[Placed] = field(default_factory=list)
    _index: Index | None = None
    _types: InferredTypes | None = None

    @property
    def files(self) -> set[str]:
        """Every file this analysis read (the ruleset's own at least), and every file a diagnostic of it is in."""
        return set(self.texts) | {self.root} | {p.span.file for p in self.placed}

    def by_file(self) -> dict[str, list[Placed]]:
        out: dict[str, list[Placed]] = {f: [] for f in self.files}
        for p in self.placed:
            out[p.span.file].append(p)
        return out

    def index(self) -> Index | None:
        """Every declaration and use of a name (None when the YAML does not read)."""
        if self._index is None and self.data is not None and self.source is not None:
            self._index = build_index(self.data, self.source)
        return self._index

    def types(self) -> InferredTypes | None:
        """What the type checker inferred (None when the ruleset does not load)."""
        if self._types is None and self.model is not None:
            self._types = inferred_types(self.model)
        return self._types


def analyze(root: str, unsaved: Unsaved) -> Analysis:
    """Load the ruleset at `root` (an absolute path) with the editor's texts, and place what the load found."""
    try:
        model = load_model(root, unsaved=unsaved)
        diagnostics = model.diagnostics
    except RulesetError as err:
        model, diagnostics = None, err.diagnostics
    data, source = (model.data, model.source) if model is not None else _read(root, unsaved)
    texts = {os.path.abspath(doc.file): doc.text for doc in source.documents()} if source is not None else {}
    analysis = Analysis(root, texts, model, data, source)
    lines = _lines(analysis, unsaved)
    analysis.placed = [place(d, lines, root) for d in sorted(diagnostics, key=sort_key)]
    return analysis


def with_variant(analysis: Analysis, unsaved: Unsaved, variant: str) -> Analysis:
    """`analysis` with what the base's variant `variant` adds, loaded as `validate` loads it."""
    seen = {_identity(p.diagnostic) for p in analysis.placed}
    lines = _lines(analysis, unsaved)
    try:
        found = load_model(analysis.root, variant=variant, unsaved=unsaved).diagnostics
    except RulesetError as err:
        found = err.diagnostics
    declared = _variant_place(analysis, variant)
    extra: list[Placed] = []
    for d in found:
        if _identity(d) in seen:
            continue
        seen.add(_identity(d))
        placed = place(replace(d, message=f"in variant {variant}: {d.message}"), lines, analysis.root)
        extra.append(replace(placed, related=placed.related + ((declared, f"variant {variant}"),)))
    return replace(analysis, placed=analysis.placed + extra)


def _identity(d: Diagnostic) -> tuple:
    return d.code, os.path.abspath(d.file), d.line, d.col, d.message


def _variant_place(analysis: Analysis, variant: str) -> Span:
    assert analysis.source is not None
    file, line, col, source = analysis.source.where(("variants", variant), key=True)
    return token_span(os.path.abspath(file), line, col, source)


def _read(root: str, unsaved: Unsaved) -> tuple[Any, SourceMap | None]:
    """The ruleset's data and source map when its YAML reads, though the rest of the load failed."""
    try:
        return load_with_extends(Path(root), MAX_FILE_BYTES, builtin_games(), unsaved)
    except (YamlProblem, PatchProblem, OSError):
        return None, None


def _lines(analysis: Analysis, unsaved: Unsaved) -> SourceLines:
    """The lines of every file a diagnostic may be in: the texts read, the editor's, then what is saved."""
    lines = SourceLines()
    for file, text in {**analysis.texts, **unsaved}.items():
        lines.add(file, text)
    return lines


def place(d: Diagnostic, lines: SourceLines, root: str) -> Placed:
    """A diagnostic's span; one in a file that cannot be read (or in none) is put at the ruleset's start."""
    file = os.path.abspath(d.file) if d.file and not d.file.startswith("<") else root
    if not lines.line(file, 1) and not os.path.isfile(file):
        file = root
    span = token_span(file, d.line, d.col, lines.line(file, d.line)) if d.line >= 1 else Span(file, 1, 1, 1)
    related = tuple((token_span(os.path.abspath(r.file), r.line, r.col, lines.line(os.path.abspath(r.file), r.line)),
                     r.message) for r in d.related)
    return Placed(d, span, related)
