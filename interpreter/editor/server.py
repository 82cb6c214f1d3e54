"""`ruleplay lsp`: the Language Server Protocol over stdio (pygls), answering from `analysis`, `index`, `hover`
and `completion`.

Every open YAML file that is a ruleset (it has `ruleplay:` or `extends:`)
is analysed, and so is, for a file it only includes, the open ruleset that
reads it (or one beside it that names it). Analyses run one at a time on a
worker thread, always on the editor's latest texts; one whose text changed
while it ran is not shown but run again, so typing never queues work. The
base game's diagnostics are published as soon as they are found, then again
with the variants' (loaded one at a time, and left for the new text as soon
as it is edited). A file's diagnostics are those of every analysis that
read it; hover, definition and references wait for the file's analysis to
catch up with the text.
"""

from __future__ import annotations

import asyncio
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ruleplay.dsl.diagnostics import ERROR

from .analysis import Analysis, Placed, analyze, with_variant
from .completion import Completion, complete, word_before
from .hover import hover
from .index import Span, Symbol

SETTLE_SECONDS = 10  # at most, that hover, definition and references wait for an analysis to catch up
ROOT_KEY = re.compile(r"^(ruleplay|extends)\s*:", re.M)
KINDS = {"field": T.CompletionItemKind.Field, "state": T.CompletionItemKind.Variable,
         "constant": T.CompletionItemKind.Constant, "derived": T.CompletionItemKind.Constant,
         "function": T.CompletionItemKind.Function, "builtin": T.CompletionItemKind.Function,
         "procedure": T.CompletionItemKind.Method, "param": T.CompletionItemKind.Variable,
         "local": T.CompletionItemKind.Variable, "given": T.CompletionItemKind.Variable,
         "flow": T.CompletionItemKind.Variable, "rule": T.CompletionItemKind.Reference,
         "keyword": T.CompletionItemKind.Keyword, "value": T.CompletionItemKind.Value,
         "action": T.CompletionItemKind.Event, "phase": T.CompletionItemKind.Enum,
         "stage": T.CompletionItemKind.EnumMember, "board": T.CompletionItemKind.Struct}


class RulesetServer(LanguageServer):
    """The server's state: the latest analysis of each ruleset, and which analyses still have to run."""

    def __init__(self) -> None:
        from ruleplay.engine.game import ENGINE_VERSION

        super().__init__("ruleplay", ENGINE_VERSION, text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.analyses: dict[str, Analysis] = {}  # by the ruleset's path
        self.last_good: dict[str, Analysis] = {}  # the last analysis of each ruleset that loaded
        self.shown: dict[str, set[str]] = {}  # the files each ruleset's diagnostics were published to
        self.dirty: set[str] = set()
        self.busy: asyncio.Task | None = None
        self.settled = asyncio.Event()
        self.settled.set()
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="ruleplay-analysis")

    # ----------------------------------------------------------- texts
    def open_texts(self) -> dict[str, str]:
        """The editor's texts of open files, by real path: what an analysis reads instead of the files."""
        out = {}
        for doc in list(self.workspace.text_documents.values()):
            path = to_fs_path(doc.uri)
            if path is not None:
                out[os.path.realpath(path)] = doc.source
        return out

    def text_of(self, path: str) -> str:
        for doc in list(self.workspace.text_documents.values()):
            if to_fs_path(doc.uri) == path:
                return doc.source
        found = next((a.texts[path] for a in self.analyses.values() if path in a.texts), None)
        if found is not None:
            return found
        try:
            return Path(path).read_text(encoding="utf-8-sig", errors="replace")
        except OSError:
            return ""

    def rulesets_reading(self, path: str) -> set[str]:
        """The rulesets to analyse again when `path` changes: itself, if it is one, and those that read it."""
        found = {root for root, a in self.analyses.items() if path in a.texts}
        if ROOT_KEY.search(self.text_of(path)):
            return found | {path}
        return found or _including(path) or {path}

    # ----------------------------------------------------------- the analyses
    def touch(self, path: str) -> None:
        self.run(self.rulesets_reading(path))

    def run(self, roots: set[str]) -> None:
        """Analyse these rulesets again (after those already waiting), on the editor's texts of then."""
        self.dirty |= roots
        if roots and (self.busy is None or self.busy.done()):
            self.settled.clear()
            self.busy = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self.dirty:
                root = min(self.dirty)
                self.dirty.discard(root)
                texts = self.open_texts()
                found = await loop.run_in_executor(self.worker, analyze, root, texts)
                if root in self.dirty:
                    continue  # edited while it ran: run again before showing anything
                self._keep(found)
                for variant in found.model.variants if found.model is not None else ():
                    if root in self.dirty:
                        break  # edited meanwhile: the new text's base comes first
                    found = await loop.run_in_executor(self.worker, with_variant, found, texts, variant)
                else:
                    if root not in self.dirty:
                        self._keep(found)
        finally:
            self.settled.set()

    def _keep(self, found: Analysis) -> None:
        self.analyses[found.root] = found
        if found.model is not None:
            self.last_good[found.root] = found
        self.publish(found.root)

    def forget(self) -> None:
        """Drop the rulesets no open file needs any more, and clear what they published."""
        open_paths = {to_fs_path(d.uri) for d in self.workspace.text_documents.values()}
        for root in list(self.analyses):
            if not (open_paths & self.analyses[root].files):
                del self.analyses[root]
                self.last_good.pop(root, None)
                self.publish(root)

    def publish(self, root: str) -> None:
        """Publish the diagnostics of every file `root` touches (now or before), gathered from every ruleset."""
        now = self.analyses[root].files if root in self.analyses else set()
        files = now | self.shown.get(root, set())
        self.shown[root] = now
        for file in sorted(files):
            placed = [p for a in self.analyses.values() for p in a.by_file().get(file, ())]
            unique = list({(p.diagnostic.code, p.span, p.diagnostic.message): p for p in placed}.values())
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                uri=from_fs_path(file) or file, diagnostics=[self.lsp_diagnostic(p) for p in unique]))

    # ----------------------------------------------------------- positions
    def lines(self, file: str) -> list[str]:
        return self.text_of(file).split("\n")

    def lsp_range(self, span: Span) -> T.Range:
        lines = self.lines(span.file)
        codec = self.workspace.position_codec
        start = codec.position_to_client_units(lines, T.Position(line=span.line - 1, character=span.col - 1))
        end = codec.position_to_client_units(lines, T.Position(line=span.line - 1, character=span.end - 1))
        return T.Range(start=start, end=end)

    def location(self, span: Span) -> T.Location:
        return T.Location(uri=from_fs_path(span.file) or span.file, range=self.lsp_range(span))

    def lsp_diagnostic(self, placed: Placed) -> T.Diagnostic:
        d = placed.diagnostic
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        return T.Diagnostic(
            range=self.lsp_range(placed.span), message=message, code=d.code, source="ruleplay",
            severity=T.DiagnosticSeverity.Error if d.severity == ERROR else T.DiagnosticSeverity.Warning,
            related_information=[T.DiagnosticRelatedInformation(location=self.location(span), message=text)
                                 for span, text in placed.related] or None)

    async def symbol_at(self, uri: str, position: T.Position) -> tuple[Analysis, Span, Symbol] | None:
        """The name under the cursor, once the file's analysis has caught up with its text."""
        try:
            await asyncio.wait_for(self.settled.wait(), timeout=SETTLE_SECONDS)
        except asyncio.TimeoutError:
            pass  # still typing: answer from the latest analysis there is
        path = to_fs_path(uri)
        if path is None:
            return None
        analysis = self.analysis_of(path)
        ix = analysis.index() if analysis is not None else None
        if ix is None:
            return None
        here = self.workspace.position_codec.position_from_client_units(self.lines(path), position)
        hit = ix.at(path, here.line + 1, here.character + 1)
        return None if hit is None else (analysis, *hit)

    def analysis_of(self, path: str) -> Analysis | None:
        if path in self.analyses:
            return self.analyses[path]
        return next((a for a in self.analyses.values() if path in a.files), None)


def _including(path: str) -> set[str]:
    """Rulesets beside `path` (or in the folder above) that name it, for a file they only include."""
    name = Path(path).name
    found = set()
    for folder in (Path(path).parent, Path(path).parent.parent):
        for candidate in sorted(folder.glob("*.yaml"))[:200]:
            try:
                text = candidate.read_text(encoding="utf-8", errors="replace")[:200_000]
            except OSError:
                continue
            if str(candidate) != path and name in text and ROOT_KEY.search(text):
                found.add(str(candidate.resolve()))
    return found


def make_server() -> RulesetServer:
    server = RulesetServer()

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def changed(ls: RulesetServer, params: T.DidOpenTextDocumentParams) -> None:
        path = to_fs_path(params.text_document.uri)
        if path is not None:
            ls.touch(path)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def closed(ls: RulesetServer, params: T.DidCloseTextDocumentParams) -> None:
        ls.forget()
        path = to_fs_path(params.text_document.uri)  # its unsaved text is gone: what reads it reads the file
        ls.run({root for root, a in ls.analyses.items() if path in a.texts})

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: RulesetServer, params: T.HoverParams) -> T.Hover | None:
        found = await ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, span, symbol = found
        earlier = ls.last_good.get(analysis.root)
        text = hover(analysis, span, symbol, earlier.types() if earlier is not None else None)
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text), range=ls.lsp_range(span))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: RulesetServer, params: T.DefinitionParams) -> list[T.Location] | None:
        found = await ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, _, symbol = found
        ix = analysis.index()
        assert ix is not None
        if symbol.kind == "file":
            start = T.Position(line=0, character=0)
            return [T.Location(uri=from_fs_path(symbol.name) or symbol.name, range=T.Range(start=start, end=start))]
        span = ix.declarations.get(symbol)
        return [ls.location(span)] if span is not None else None

    @server.feature(T.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: RulesetServer, params: T.ReferenceParams) -> list[T.Location] | None:
        found = await ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        analysis, _, symbol = found
        ix = analysis.index()
        assert ix is not None
        return [ls.location(s) for s in ix.references(symbol, params.context.include_declaration)]

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["@", ".", " ", "["]))
    def on_completion(ls: RulesetServer, params: T.CompletionParams) -> T.CompletionList:
        path = to_fs_path(params.text_document.uri)
        doc = ls.workspace.get_text_document(params.text_document.uri)
        here = ls.workspace.position_codec.position_from_client_units(doc.lines, params.position)
        analysis = ls.analysis_of(path) if path is not None else None
        ix = analysis.index() if analysis is not None else None
        if ix is None and analysis is not None and analysis.root in ls.last_good:  # the YAML does not read now
            ix = ls.last_good[analysis.root].index()
        text = doc.source
        items = complete(text, here.line + 1, here.character + 1, ix)
        typed = word_before(text, here.line + 1, here.character + 1)
        return T.CompletionList(is_incomplete=False, items=[_item(c, typed) for c in items
                                                            if c.label.startswith(typed)])

    return server


def _item(c: Completion, typed: str) -> T.CompletionItem:
    return T.CompletionItem(label=c.label, kind=KINDS.get(c.kind, T.CompletionItemKind.Text), detail=c.detail or None,
                            documentation=T.MarkupContent(kind=T.MarkupKind.Markdown, value=c.documentation)
                            if c.documentation else None, insert_text=c.insert or c.label)


def serve() -> None:
    """Serve over stdin and stdout until the editor says `exit`."""
    make_server().start_io()
