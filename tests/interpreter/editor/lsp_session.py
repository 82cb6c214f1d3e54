"""A language client session with `ruleplay lsp`, for the protocol tests: pygls's own client over stdio.

The server runs as the command an editor starts; diagnostics are gathered
as they are published, by file, and a test waits for those of a version.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

RULEPLAY = str(Path(sys.executable).with_name("ruleplay"))
TIMEOUT = 60.0  # seconds to wait for the server, on a loaded machine


class Session:
    """One server, its open documents, and the diagnostics it published (the latest per file)."""

    def __init__(self) -> None:
        self.client = LanguageClient("ruleplay-tests", "1")
        self.diagnostics: dict[str, list[T.Diagnostic]] = {}
        self.published = asyncio.Event()
        self.versions: dict[str, int] = {}

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: T.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.published.set()

    async def __aenter__(self) -> Session:
        await self.client.start_io(RULEPLAY, "lsp")
        await asyncio.wait_for(self.client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), process_id=None, root_uri=None)), TIMEOUT)
        self.client.initialized(T.InitializedParams())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), TIMEOUT)

    def open(self, path: Path, text: str | None = None) -> str:
        uri = from_fs_path(str(path))
        self.versions[uri] = 1
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
            uri=uri, language_id="yaml", version=1, text=path.read_text(encoding="utf-8") if text is None else text)))
        return uri

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(T.DidCloseTextDocumentParams(text_document=T.TextDocumentIdentifier(uri=uri)))

    def replace(self, uri: str, line: int, start: int, end: int, new: str) -> None:
        """An edit as an editor sends it: characters [start, end) of a line (from 0) become `new`."""
        self.versions[uri] += 1
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
            content_changes=[T.TextDocumentContentChangePartial(
                range=T.Range(start=T.Position(line=line, character=start), end=T.Position(line=line, character=end)),
                text=new)]))

    async def wait_for(self, uri: str, test) -> list[T.Diagnostic]:  # type: ignore[no-untyped-def]
        """The diagnostics of `uri` once `test` holds of them (the server publishes a file more than once)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            found = self.diagnostics.get(uri)
            if found is not None and test(found):
                return found
            self.published.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no diagnostics as expected for {uri}: {found}")
            try:
                await asyncio.wait_for(self.published.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def hover(self, uri: str, line: int, col: int) -> str | None:
        found = await self.client.text_document_hover_async(T.HoverParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=line, character=col)))
        return None if found is None else found.contents.value

    async def definition(self, uri: str, line: int, col: int) -> list[T.Location]:
        found = await self.client.text_document_definition_async(T.DefinitionParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=line, character=col)))
        return list(found or [])

    async def references(self, uri: str, line: int, col: int, declaration: bool = True) -> list[T.Location]:
        found = await self.client.text_document_references_async(T.ReferenceParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=line, character=col),
            context=T.ReferenceContext(include_declaration=declaration)))
        return list(found or [])

    async def complete(self, uri: str, line: int, col: int) -> list[T.CompletionItem]:
        found = await self.client.text_document_completion_async(T.CompletionParams(
            text_document=T.TextDocumentIdentifier(uri=uri), position=T.Position(line=line, character=col)))
        return found.items if isinstance(found, T.CompletionList) else list(found or [])
