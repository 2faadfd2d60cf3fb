"""`devlint lsp`: the language server (pygls), a thin adapter over `devlint.sources.document`.

- Diagnostics are pushed (`textDocument/publishDiagnostics`) after open, change and save, or
  pulled (`textDocument/diagnostic`) by clients that declare pull support (they are then not
  pushed, as ruff's server does, so no report shows twice). Checking runs on one worker thread;
  changes that arrive while a document is being checked are coalesced into one more check of its
  latest text (the debounce: an idle server answers at once, a busy one skips stale versions).
- Code actions: one quick fix per fixable report, "Disable DEVnnn for this line", and
  `source.fixAll.devlint` (safe fixes only), each as edits in the action itself.
- Notebooks (LSP 3.17 notebook sync): the code cells are checked as one module, as the CLI does,
  and each cell gets its own reports and edits.
- Bad input never stops it: a syntax error is a DEV999 report; an internal error is logged to the
  client (`window/logMessage`) and the request answered empty.
"""

from __future__ import annotations

import asyncio
import os
import traceback
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from devlint.contract.diagnostics import Applicability, Diagnostic
from devlint.contract.project import __version__
from devlint.engine.noqa import Suppressions, noqa_edit
from devlint.engine.project import forget_project_indexes
from devlint.engine.settings import ENGINE_CODES, SYNTAX_ERROR_CODE, TOO_LARGE_CODE, Settings
from devlint.frontends.lsp.resilient import kept_reports
from devlint.runner.project_settings import CONFIG_FILES, ProjectSettings
from devlint.frontends.lsp.text import UTF8, UTF16, Lines, changed_lines
from devlint.frontends.report.meta import rule_url
from devlint.runner.discovery import is_excluded
from devlint.sources import document
from devlint.sources.files import NOTEBOOK_SUFFIX

if TYPE_CHECKING:  # pragma: no cover
    from devlint.engine.reparse import Reparser

NAME = "devlint"
# Documents whose LibCST tree the server keeps for the next check (each is tens of MiB for a
# large file): those being edited.
KEPT_TREES = 4
FIX_ALL = "source.fixAll.devlint"
_Result = TypeVar("_Result")


@dataclass(frozen=True)
class Snapshot:
    """One document's text(s) as the client last sent them; checked off the event loop."""

    key: str  # the text document's URI, or the notebook's
    path: str
    source: document.Source
    uris: dict[Optional[int], str]  # cell number (None: a plain file) -> the URI reports go to
    texts: dict[str, str]  # URI -> its text (a cell's source for a notebook)
    versions: dict[str, Optional[int]]


@dataclass
class Checked:
    snapshot: Snapshot
    settings: Settings
    diagnostics: list[Diagnostic] = field(default_factory=list)  # with fix edits when asked for


class Protocol(LanguageServerProtocol):
    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams):  # type: ignore[no-untyped-def]
        """Prefer UTF-8 columns where the client offers them (no conversion per line), whatever
        its order of preference; pygls takes the client's first otherwise."""
        general = params.capabilities.general
        if general is not None and general.position_encodings and UTF8 in general.position_encodings:
            general.position_encodings = [UTF8, *(e for e in general.position_encodings if e != UTF8)]
        return (yield from super().lsp_initialize(params))


class DevlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            NAME, __version__, protocol_cls=Protocol,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            notebook_document_sync=lsp.NotebookDocumentSyncOptions(
                notebook_selector=[lsp.NotebookDocumentFilterWithCells(
                    notebook="*", cells=[lsp.NotebookCellLanguage(language="python")])],
                save=True,
            ),
        )
        self.project = ProjectSettings()
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="devlint-check")
        self.pending: set[str] = set()  # documents changed since their last check started
        self.running: dict[str, asyncio.Task] = {}  # type: ignore[type-arg]
        self.push = True
        self.shown_errors: set[str] = set()
        self._with_fixes: dict[str, tuple[tuple[Any, ...], Checked]] = {}  # key -> (versions, result)
        # The last documents checked, each with its parser: an edit re-parses what it touched.
        # Used on the checker thread only; a few, as each holds the LibCST tree of its text.
        self.reparsers: OrderedDict[str, Reparser] = OrderedDict()
        # Each open document's last text that parsed, with its reports (devlint/frontends/lsp/resilient.py).
        self.last_parsed: dict[str, tuple[str, list[Diagnostic]]] = {}

    # -- documents ------------------------------------------------------------------------------

    def key_of(self, uri: str) -> str:
        """The document a URI belongs to: a cell's notebook, or itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def is_open(self, key: str) -> bool:
        return unquote(key) in self.workspace.text_documents or unquote(key) in self.workspace.notebook_documents

    def snapshot(self, key: str) -> Optional[Snapshot]:
        notebook = self.workspace.notebook_documents.get(unquote(key))
        path = _path_of(key)
        if notebook is None:
            text_document = self.workspace.text_documents.get(unquote(key))
            if text_document is None or path.endswith(NOTEBOOK_SUFFIX):
                return None  # a notebook's JSON shown as text: its reports belong to cells it has not got
            text = text_document.source
            return Snapshot(key, path, document.PythonSource(path, text), {None: key}, {key: text},
                            {key: text_document.version})
        cells: list[tuple[int, str]] = []
        uris: dict[Optional[int], str] = {}
        texts: dict[str, str] = {}
        versions: dict[str, Optional[int]] = {}
        for number, cell in enumerate(notebook.cells, start=1):
            if cell.kind != lsp.NotebookCellKind.Code:
                continue
            cell_document = self.workspace.text_documents.get(unquote(cell.document))
            if cell_document is None:
                continue
            cells.append((number, cell_document.source))
            uris[number] = cell.document
            texts[cell.document] = cell_document.source
            versions[cell.document] = cell_document.version
        return Snapshot(key, path, document.from_cells(path, cells), uris, texts, versions)

    # -- checking -------------------------------------------------------------------------------

    def settings_for(self, path: str) -> Optional[Settings]:
        """The settings for `path`; None when the configuration excludes it."""
        resolved = self.project.resolve(path)
        if resolved.error is not None and resolved.error not in self.shown_errors:
            self.shown_errors.add(resolved.error)
            self.window_show_message(lsp.ShowMessageParams(
                lsp.MessageType.Error, f"devlint: {resolved.error} (checking with the defaults)"))
        return None if is_excluded(path, resolved.settings) else resolved.settings

    def check(self, snapshot: Snapshot, settings: Optional[Settings], with_fixes: bool = False) -> Checked:
        if settings is None:
            return Checked(snapshot, Settings())
        diagnostics = document.check(snapshot.source, settings, with_fixes=with_fixes,
                                     reparser=self.reparser(snapshot.key))
        source = snapshot.source
        if isinstance(source, document.PythonSource):
            if any(d.code == SYNTAX_ERROR_CODE for d in diagnostics):
                last = self.last_parsed.get(snapshot.key)
                if last is not None:  # a half-typed line hides no report of the statements it did not touch
                    diagnostics = sorted([*diagnostics, *kept_reports(*last, source.text)], key=lambda d: d.sort_key)
            else:
                self.last_parsed[snapshot.key] = (source.text, diagnostics)
        return Checked(snapshot, settings, diagnostics)

    def reparser(self, key: str) -> Reparser:
        """The parser of `key`'s versions (on the checker thread)."""
        found = self.reparsers.pop(key, None)
        if found is None:
            from devlint.engine.libcst_loader import load_libcst

            load_libcst()
            from devlint.engine.compiled_dataclasses import compiled_dataclasses

            with compiled_dataclasses():  # (LibCST's node classes, their methods compiled once per machine)
                from devlint.engine.reparse import Reparser  # LibCST: imported with the first check that needs it

            found = Reparser()
            while len(self.reparsers) >= KEPT_TREES:
                self.reparsers.popitem(last=False)
        self.reparsers[key] = found
        return found

    async def off_loop(self, function: Callable[..., _Result], *args: Any) -> _Result:
        return await asyncio.get_running_loop().run_in_executor(self.checker, function, *args)

    def schedule(self, key: str) -> None:
        """Check `key` soon: now if it is idle, else once more after the check under way. (A pull
        client asks for its diagnostics itself.)"""
        if not self.push:
            return
        self.pending.add(key)
        task = self.running.get(key)
        if task is None or task.done():
            self.running[key] = asyncio.ensure_future(self._check_while_pending(key))

    async def _check_while_pending(self, key: str) -> None:
        while key in self.pending:
            self.pending.discard(key)
            try:
                snapshot = self.snapshot(key)
                if snapshot is None:
                    return
                checked = await self.checked_now(key, snapshot)
                # Not when a newer text is waiting (that is published next), nor once it was closed.
                if key not in self.pending and self.is_open(key):
                    self.publish(checked)
            except Exception:  # never let one document stop the server
                self.log_error(f"checking {key}")

    def publish(self, checked: Checked) -> None:
        for uri, diagnostics in self.to_lsp(checked).items():
            version = checked.snapshot.versions.get(uri)
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, diagnostics, version))

    def clear(self, key: str, uris: list[str]) -> None:
        self.pending.discard(key)
        self.last_parsed.pop(key, None)
        self.running.pop(key, None)
        self._with_fixes.pop(key, None)
        if self.push:
            for uri in uris:
                self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, []))

    def recheck_all(self) -> None:
        self.project.forget()
        forget_project_indexes()
        self._with_fixes.clear()
        if self.push:
            for key in self.open_keys():
                self.schedule(key)
        elif _supports_refresh(self.client_capabilities):
            self.workspace_diagnostic_refresh(None)

    def open_keys(self) -> list[str]:
        cells = {cell.document for notebook in self.workspace.notebook_documents.values() for cell in notebook.cells}
        return [*self.workspace.notebook_documents, *(uri for uri in self.workspace.text_documents if uri not in cells)]

    async def checked_now(self, key: str, snapshot: Snapshot) -> Checked:
        """`snapshot` checked with its fixes' edits, kept for the code actions asked of that version: the editor's
        check parses the whole text (its parser keeps the tree), so the edits cost nothing more than the reports."""
        checked = await self.off_loop(self.check, snapshot, self.settings_for(snapshot.path), True)
        self._with_fixes[key] = (_versions(snapshot), checked)
        return checked

    async def checked_with_fixes(self, uri: str) -> Optional[Checked]:
        """The check of the document's current version: the one its diagnostics came from where it is that version's
        (a code action reuses the analysis), else a new one."""
        key = self.key_of(uri)
        snapshot = self.snapshot(key)
        if snapshot is None:
            return None
        cached = self._with_fixes.get(key)
        if cached is not None and cached[0] == _versions(snapshot) and cached[1].snapshot.texts == snapshot.texts:
            return cached[1]
        return await self.checked_now(key, snapshot)

    # -- conversion -----------------------------------------------------------------------------

    def lines(self, text: str) -> Lines:
        encoding = self.workspace.position_encoding or UTF16
        return Lines(text, str(getattr(encoding, "value", encoding)))

    def to_lsp(self, checked: Checked) -> dict[str, list[lsp.Diagnostic]]:
        snapshot = checked.snapshot
        result: dict[str, list[lsp.Diagnostic]] = {uri: [] for uri in snapshot.uris.values()}
        lines = {uri: self.lines(text) for uri, text in snapshot.texts.items()}
        for diagnostic in checked.diagnostics:
            uri = snapshot.uris.get(diagnostic.cell)
            if uri is not None:
                result[uri].append(self.diagnostic(diagnostic, lines[uri]))
        return result

    def diagnostic(self, diagnostic: Diagnostic, lines: Lines) -> lsp.Diagnostic:
        start_line, end_line = diagnostic.line - 1, (diagnostic.end_line or diagnostic.line) - 1
        end_col = diagnostic.end_col if diagnostic.end_line else diagnostic.col
        url = rule_url(diagnostic.code)
        # a syntax error, or devlint failed: not a finding; a file too large to check: a note
        engine_error = diagnostic.code in ENGINE_CODES and diagnostic.code != TOO_LARGE_CODE
        return lsp.Diagnostic(
            range=lsp.Range(lsp.Position(start_line, lines.to_units(start_line, diagnostic.col - 1)),
                            lsp.Position(end_line, lines.to_units(end_line, end_col - 1))),
            message=diagnostic.message,
            severity=(lsp.DiagnosticSeverity.Error if engine_error else lsp.DiagnosticSeverity.Information
                      if diagnostic.code == TOO_LARGE_CODE else lsp.DiagnosticSeverity.Warning),
            code=diagnostic.code,
            code_description=lsp.CodeDescription(href=url) if url else None,
            source=NAME,
        )

    def position(self, lines: Lines, line: int, column: int) -> lsp.Position:
        """1-based line and column (characters) -> an LSP position."""
        return lsp.Position(line - 1, lines.to_units(line - 1, column - 1))

    # -- code actions ---------------------------------------------------------------------------

    async def code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        checked = await self.checked_with_fixes(uri)
        if checked is None:
            return []
        snapshot = checked.snapshot
        wanted = params.context.only
        actions: list[lsp.CodeAction] = []
        cell = next((number for number, cell_uri in snapshot.uris.items() if cell_uri == uri), None)
        lines = self.lines(snapshot.texts[uri])
        suppressions = Suppressions(snapshot.texts[uri])  # its token scans are read once for every action
        first, last = params.range.start.line + 1, params.range.end.line + 1
        for diagnostic in checked.diagnostics:
            if diagnostic.cell != cell or (diagnostic.end_line or diagnostic.line) < first or diagnostic.line > last:
                continue
            lsp_diagnostic = self.diagnostic(diagnostic, lines)
            if _wanted(lsp.CodeActionKind.QuickFix, wanted):
                fix_action = self.quick_fix(uri, diagnostic, lsp_diagnostic, lines)
                if fix_action is not None:
                    actions.append(fix_action)
                noqa_action = self.disable_action(uri, suppressions, diagnostic, lsp_diagnostic, lines)
                if noqa_action is not None:
                    actions.append(noqa_action)
        if _wanted(FIX_ALL, wanted):
            fix_all = await self.off_loop(self.fix_all, checked)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def quick_fix(self, uri: str, diagnostic: Diagnostic, lsp_diagnostic: lsp.Diagnostic,
                  lines: Lines) -> Optional[lsp.CodeAction]:
        fix = diagnostic.fix
        if fix is None or not fix.edits:
            return None
        safe = fix.applicability is Applicability.SAFE
        title = f"{fix.description} ({diagnostic.code})" if safe else (
            f"{fix.description} ({diagnostic.code}, unsafe fix: may change behaviour)")
        edits = [lsp.TextEdit(lsp.Range(self.position(lines, edit.start_line, edit.start_col),
                                        self.position(lines, edit.end_line, edit.end_col)), edit.content)
                 for edit in fix.edits]
        return lsp.CodeAction(title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[lsp_diagnostic],
                              edit=lsp.WorkspaceEdit(changes={uri: edits}), is_preferred=safe)

    def disable_action(self, uri: str, suppressions: Suppressions, diagnostic: Diagnostic,
                       lsp_diagnostic: lsp.Diagnostic, lines: Lines) -> Optional[lsp.CodeAction]:
        if diagnostic.code == SYNTAX_ERROR_CODE:
            return None
        edit = noqa_edit(suppressions, diagnostic.line, [diagnostic.code])
        if edit is None:
            return None
        index = edit.line - 1  # NoqaEdit's columns are 0-based characters
        where = lsp.Range(lsp.Position(index, lines.to_units(index, edit.start)),
                          lsp.Position(index, lines.to_units(index, edit.end)))
        return lsp.CodeAction(
            f"Disable {diagnostic.code} for this line", kind=lsp.CodeActionKind.QuickFix,
            diagnostics=[lsp_diagnostic],
            edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(where, edit.text)]}),
        )

    def fix_all(self, checked: Checked) -> Optional[lsp.CodeAction]:
        """Every safe fix, applied until none applies (the CLI's `--fix`), as whole-line edits."""
        snapshot = checked.snapshot
        if not any(d.fix is not None and d.fix.applicability is Applicability.SAFE for d in checked.diagnostics):
            return None
        fixed = document.fix(snapshot.source, replace(checked.settings, unsafe_fixes=False))
        if isinstance(snapshot.source, document.PythonSource):
            new_texts = {snapshot.key: fixed.text}
        else:
            new_texts = {snapshot.uris[number]: text for number, text in fixed.cells.items()}
        changes: dict[str, list[lsp.TextEdit]] = {}
        for uri, new_text in new_texts.items():
            old_text = snapshot.texts[uri]
            change = changed_lines(old_text, new_text)
            if change is None:
                continue
            lines = self.lines(old_text)
            first, after, replacement = change
            end = lsp.Position(after, 0) if after < len(lines.lines) else lsp.Position(*lines.end())
            changes[uri] = [lsp.TextEdit(lsp.Range(lsp.Position(first, 0), end), replacement)]
        if not changes:
            return None
        return lsp.CodeAction("Fix all safe devlint reports", kind=FIX_ALL, edit=lsp.WorkspaceEdit(changes=changes))

    # -- errors ---------------------------------------------------------------------------------

    def log_error(self, what: str) -> None:
        self.window_log_message(lsp.LogMessageParams(
            lsp.MessageType.Error, f"devlint: internal error while {what}; please report it:\n{traceback.format_exc()}"))


def _wanted(kind: str, only: Optional[list[str]]) -> bool:
    """LSP's `only` filter: a kind is wanted when it is, or is below, one of the kinds asked for."""
    return not only or any(kind == asked or kind.startswith(asked + ".") for asked in only)


def _path_of(uri: str) -> str:
    """The file path a URI names; for an unsaved buffer (`untitled:Untitled-1`) a name in the
    current directory, so that the defaults apply."""
    path = to_fs_path(uri) if urlparse(uri).scheme == "file" else None
    if path:
        return path
    name = os.path.basename(unquote(urlparse(uri).path)) or "untitled"
    return os.path.join(os.getcwd(), name if name.endswith((".py", ".pyi", ".ipynb")) else name + ".py")


def _supports_refresh(capabilities: lsp.ClientCapabilities) -> bool:
    workspace = capabilities.workspace
    return bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)


def _supports_pull(capabilities: lsp.ClientCapabilities) -> bool:
    return bool(capabilities.text_document and capabilities.text_document.diagnostic)


def build() -> DevlintServer:
    server = DevlintServer()

    def guarded(what: str, empty: Any = None) -> Callable:  # type: ignore[type-arg]
        """A handler that logs an internal error to the client and answers `empty`."""
        def wrap(handler: Callable) -> Callable:  # type: ignore[type-arg]
            if asyncio.iscoroutinefunction(handler):
                async def run_async(params: Any) -> Any:
                    try:
                        return await handler(params)
                    except Exception:
                        server.log_error(what)
                        return empty
                return run_async

            def run(params: Any) -> Any:
                try:
                    return handler(params)
                except Exception:
                    server.log_error(what)
                    return empty
            return run
        return wrap

    @server.feature(lsp.INITIALIZE)
    @guarded("initializing")
    def initialize(params: lsp.InitializeParams) -> None:
        server.push = not _supports_pull(params.capabilities)
        roots = [to_fs_path(folder.uri) for folder in params.workspace_folders or []]
        if not roots and params.root_uri:
            roots = [to_fs_path(params.root_uri)]
        server.project = ProjectSettings([root for root in roots if root])

    @server.feature(lsp.INITIALIZED)
    @guarded("registering for configuration changes")
    def initialized(params: lsp.InitializedParams) -> None:
        watched = server.client_capabilities.workspace
        if watched and watched.did_change_watched_files and watched.did_change_watched_files.dynamic_registration:
            watchers = [lsp.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_FILES]
            server.client_register_capability(lsp.RegistrationParams([lsp.Registration(
                "devlint-config", lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                lsp.DidChangeWatchedFilesRegistrationOptions(watchers))]))

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    @guarded("opening a document")
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        if server.workspace.get_notebook_document(cell_uri=params.text_document.uri) is None:
            server.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    @guarded("applying a change")
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        server.schedule(server.key_of(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    @guarded("saving a document")
    def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        if os.path.basename(to_fs_path(params.text_document.uri) or "") in CONFIG_FILES:
            server.recheck_all()
        else:
            forget_project_indexes()  # a saved file may change what the project writes or calls
            server.schedule(server.key_of(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    @guarded("closing a document")
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        server.clear(params.text_document.uri, [params.text_document.uri])

    def notebook_changed(params: Any) -> None:  # opened, changed or saved: check it again
        server.schedule(params.notebook_document.uri)

    for method in (lsp.NOTEBOOK_DOCUMENT_DID_OPEN, lsp.NOTEBOOK_DOCUMENT_DID_CHANGE, lsp.NOTEBOOK_DOCUMENT_DID_SAVE):
        server.feature(method)(guarded(f"handling {method}")(notebook_changed))

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    @guarded("closing a notebook")
    def notebook_close(params: lsp.DidCloseNotebookDocumentParams) -> None:
        server.clear(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @guarded("re-reading the configuration")
    def watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
        if any(os.path.basename(to_fs_path(change.uri) or "") in CONFIG_FILES for change in params.changes):
            server.recheck_all()

    @server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC,
                    lsp.DiagnosticOptions(identifier=NAME, inter_file_dependencies=False, workspace_diagnostics=False))
    @guarded("answering a diagnostic request",
             lsp.RelatedFullDocumentDiagnosticReport(items=[]))
    async def pull(params: lsp.DocumentDiagnosticParams) -> lsp.RelatedFullDocumentDiagnosticReport:
        uri = params.text_document.uri
        snapshot = server.snapshot(server.key_of(uri))
        if snapshot is None:
            return lsp.RelatedFullDocumentDiagnosticReport(items=[])
        checked = await server.checked_now(server.key_of(uri), snapshot)
        return lsp.RelatedFullDocumentDiagnosticReport(items=server.to_lsp(checked).get(uri, []))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False))
    @guarded("computing code actions", [])
    async def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return await server.code_actions(params)

    return server


def _versions(snapshot: Snapshot) -> tuple[Any, ...]:
    return tuple(sorted(snapshot.versions.items(), key=str))


def serve() -> None:
    build().start_io()

