"""A real LSP client (pytest-lsp's, over pipes) driving a real `devlint lsp` process."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import AsyncIterator, Optional, Sequence

import pytest

pytest.importorskip("pytest_lsp", reason="the language server tests need the test extra (pytest-lsp)")
pytest.importorskip("pygls", reason="the language server tests need the lsp extra (pygls)")

from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import LanguageClient, make_test_lsp_client  # noqa: E402

from conftest import ROOT  # noqa: E402

TIMEOUT = 60  # seconds: a loaded CI machine checks slowly


def capabilities(*, encodings: Sequence[str] = (), pull: bool = False, notebooks: bool = False,
                 watch: bool = False) -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=list(encodings)) if encodings else None,
        text_document=lsp.TextDocumentClientCapabilities(
            diagnostic=lsp.DiagnosticClientCapabilities() if pull else None,
            code_action=lsp.CodeActionClientCapabilities(),
        ),
        notebook_document=lsp.NotebookDocumentClientCapabilities(
            synchronization=lsp.NotebookDocumentSyncClientCapabilities()) if notebooks else None,
        workspace=lsp.WorkspaceClientCapabilities(
            did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
        ) if watch else None,
    )


class Session:
    """One client and its server; documents are kept as the client sees them."""

    def __init__(self, client: LanguageClient, result: lsp.InitializeResult) -> None:
        self.client = client
        self.result = result
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

    def open(self, path: Path, text: Optional[str] = None) -> str:
        uri = path.as_uri()
        self.texts[uri] = path.read_text() if text is None else text
        self.versions[uri] = 1
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "python", 1, self.texts[uri])))
        return uri

    def replace(self, uri: str, text: str) -> None:
        """Send the whole new text (as a client does for a reload)."""
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(self.versions[uri], uri),
            [lsp.TextDocumentContentChangeWholeDocument(text)]))

    async def diagnostics(self, uri: str) -> list[lsp.Diagnostic]:
        """The next diagnostics pushed for `uri` (those of its latest text)."""
        deadline = time.monotonic() + TIMEOUT
        while uri not in self.client.diagnostics:
            if time.monotonic() > deadline:
                raise AssertionError(f"no diagnostics for {uri} within {TIMEOUT}s")
            await asyncio.sleep(0.02)
        return list(self.client.diagnostics[uri])

    async def actions(self, uri: str, *, only: Optional[list[str]] = None,
                      line: Optional[int] = None) -> list[lsp.CodeAction]:
        last = len(self.texts[uri].split("\n"))
        start, end = (line, line) if line is not None else (0, last)
        result = await asyncio.wait_for(self.client.text_document_code_action_async(lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(start, 0), lsp.Position(end, 0)),
            lsp.CodeActionContext(diagnostics=[], only=only))), TIMEOUT)
        return [action for action in result or [] if isinstance(action, lsp.CodeAction)]


def units(char: str, encoding: str) -> int:
    """How many `encoding` code units one character is (written out, not taken from the server)."""
    if encoding == "utf-8":
        return len(char.encode("utf-8"))
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return 1


def apply(text: str, edits: Sequence[lsp.TextEdit], encoding: str = "utf-16") -> str:
    """`edits` (non-overlapping, columns in `encoding` units) applied to `text`, as an editor does."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: lsp.Position) -> int:
        if position.line >= len(lines):
            return len(text)
        counted = 0
        for index, char in enumerate(lines[position.line]):
            if counted >= position.character:
                return starts[position.line] + index
            counted += units(char, encoding)
        return starts[position.line] + len(lines[position.line])

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


@contextlib.asynccontextmanager
async def session(cwd: Path, client_capabilities: Optional[lsp.ClientCapabilities] = None,
                  root: Optional[Path] = None) -> AsyncIterator[Session]:
    client = make_test_lsp_client()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    await client.start_io(sys.executable, "-m", "devlint", "lsp", cwd=str(cwd), env=env)
    try:
        folders = [lsp.WorkspaceFolder((root or cwd).as_uri(), "root")]
        result = await asyncio.wait_for(client.initialize_session(lsp.InitializeParams(
            capabilities=client_capabilities or capabilities(), workspace_folders=folders)), TIMEOUT)
        yield Session(client, result)
    finally:
        # Also after a failed assertion: a server left running would keep the test waiting.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), TIMEOUT)
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.stop(), TIMEOUT)
